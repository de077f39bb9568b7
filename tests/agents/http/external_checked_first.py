"""Broken HTTP status service: the parked state is derived with the checks in the wrong order, a
call out with an external executor first, one waiting for the user's permission second, so a reply
that parks on both (parallel tool calls: a Write and an AskUser) reads awaiting_external_result.
Breaks "AWAITING_EXTERNAL_RESULT: ... at least one tool call dispatched to an external executor and
awaiting its result (with no peer awaiting permission)". Caught by
http.state.permission-over-external.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        states = {call.get("state") for call in self.pending_calls(session)}
        if "submitted" in states:
            return "awaiting_external_result"
        if "asking" in states:
            return "awaiting_permission"
        return None


if __name__ == "__main__":
    main(Service)
