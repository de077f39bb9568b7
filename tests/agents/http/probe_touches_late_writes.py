"""Broken HTTP status service, as probe_touches_session (a status probe writes the session back:
a note joins its messages, its listing entry moves), on a queue: POST /chat/ answers at once and
its input (a message, an answer to a permission request) is applied 0.5 s later. A case that
reads the session right after its own write sees nothing change, and would conclude that the
messages and listing cannot show a write, so cannot show the probes' writes either: it must read
until its write shows, and then see the probes' notes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _later import queued
from probe_touches_session import Service as TouchesSession

from conformance.reference.http.service import main

Service = queued(TouchesSession, 0.5)


if __name__ == "__main__":
    main(Service)
