"""The reference agent, which starts a child that outlives it."""

import subprocess
import sys

import _ref

child = subprocess.Popen(["sleep", "300"])
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()

from conformance.reference.acp.agent import main

main()
