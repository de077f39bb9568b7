"""Broken HTTP status service: a tool call counts as waiting for permission until it has a
successful result, so a denied call keeps the session awaiting_permission after the resumed run
ended. Caught by http.later.permission-answered (rule denied).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        reply = self.last_reply(session)
        blocks = (reply or {}).get("content") or []
        if any(b.get("type") == "tool_result" and b.get("state") == "denied" for b in blocks):
            return "awaiting_permission"
        return super().parked_status(session)


if __name__ == "__main__":
    main(Service)
