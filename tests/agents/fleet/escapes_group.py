"""The reference agent, which starts a child in a session of its own: it outlives the agent's process
group, which the suite ends; only the fleet's sweep (by the marker variable it inherits) finds it."""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

child = subprocess.Popen(["sleep", "300"], start_new_session=True)
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()

from conformance.reference.acp.agent import main

main()
