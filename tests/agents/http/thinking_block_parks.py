"""Broken HTTP status service: any block of the tail reply marked "state": "asking" parks the
session, not only a tool call (a thinking block a client sent in an assistant message does too),
so a turn with no tool call reads awaiting_permission for good. Caught by
http.state.parked-only-by-tool-calls.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def pending_calls(self, session):
        reply = self.last_reply(session)
        if reply is None:
            return []
        return [b for b in reply.get("content") or [] if b.get("state") in ("asking", "submitted")]


if __name__ == "__main__":
    main(Service)
