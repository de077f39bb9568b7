"""Broken HTTP status service: a run appends its events to the session's loaded state, which it
expects to be there; under the memory cap (--memory-cap), a chat on one more session while every
other loaded session has a run going evicts the session at its own use, so its run dies at its
first event, after its lease renewer started and outside the code that stops it. The session reads
running for good: its model is never called, and an interrupt finds no run to stop.

Caught by http.state.runs-past-memory-cap (with --http-memory-cap N, N + 1 runs started at once;
each session interrupted, then none may read running). The old suite (265e177) certified it: its
memory pressure never ran more runs at once than the cap.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.models import new_id, now_iso
from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def emit(self, session, kind, **data):
        self.loaded[session.id].events.append({"id": new_id(), "type": kind, "at": now_iso(), **data})


if __name__ == "__main__":
    main(Service)
