"""Broken HTTP status service: a run appends its events to the session's loaded state, which it
expects to be there; under the memory cap (--memory-cap), a chat on one more session while every
other loaded session has a run going evicts the session at its own use, so its run dies at its
first event, after its lease renewer started and outside the code that stops it. The session reads
running for good: its model is never called, and an interrupt finds no run to stop.

--no-interrupt: the service offers no POST /sessions/{id}/interrupt (an optional route).

Caught by http.state.runs-past-memory-cap (with --http-memory-cap N, N + 1 runs started at once):
each session interrupted, then none may read running; without the interrupt route, the lost run
has not called the model --timeout after every other run ended, and reads running. The old suite
(265e177) certified it: its memory pressure never ran more runs at once than the cap.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.http.service as reference
from conformance.reference.http.models import new_id, now_iso
from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def emit(self, session, kind, **data):
        self.loaded[session.id].events.append({"id": new_id(), "type": kind, "at": now_iso(), **data})


def without_interrupt(service=None):
    app = build(service)
    app.router.routes = [r for r in app.router.routes if not getattr(r, "path", "").endswith("/interrupt")]
    return app


if __name__ == "__main__":
    if "--no-interrupt" in sys.argv:
        sys.argv.remove("--no-interrupt")
        build, reference.create_app = reference.create_app, without_interrupt
    main(Service)
