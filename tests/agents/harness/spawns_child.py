"""Answers initialize and starts a long-running child in its process group."""

import subprocess
import sys

from _frames import INIT, frames, reply

child = subprocess.Popen(["sleep", "300"])
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()
for frame in frames():
    if frame.get("method") == "initialize":
        reply(frame, INIT)
