"""Broken HTTP status service, as thinking_block_parks (a thinking block marked "state": "asking"
parks the session), on a queue: POST /chat/ answers at once and its input joins the session 0.5 s
later. Right after the POST the session still reads idle, its tail still without the block: a
case that judges then passes the bug. It must wait until the messages change.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _later import queued
from thinking_block_parks import Service as ThinkingBlockParks

from conformance.reference.http.service import main

Service = queued(ThinkingBlockParks, 0.5)


if __name__ == "__main__":
    main(Service)
