"""Answers initialize, then dies with code 7 on the next request, leaving a word on stderr."""

import sys

from _frames import INIT, frames, reply

for frame in frames():
    if frame.get("method") == "initialize":
        reply(frame, INIT)
    else:
        sys.stderr.write("fatal: out of cheese\n")
        sys.stderr.flush()
        sys.exit(7)
