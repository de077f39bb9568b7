"""The reference agent, after writing 200 MB to stderr."""

import os
import sys

import _ref

chunk = b"E" * (1 << 20)
for _ in range(200):
    os.write(sys.stderr.fileno(), chunk)

from conformance.reference.acp.agent import main

main()
