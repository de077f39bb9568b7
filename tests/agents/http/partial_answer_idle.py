"""Broken HTTP status service: any answer the client sends to a parked turn (a permission
confirmation or an external executor's result) is taken to mean "no longer parked", until the
model is called again. A reply parked on two tool calls that gets an answer for one of them is
still parked (the resumed run returns at once, the other call still waits), so the status reads
idle while a tool call waits for the user's permission. Breaks "AWAITING_PERMISSION: no worker is
running the session, and the persisted context tail has at least one tool call waiting for user
permission confirmation (HITL)". Caught by http.state.permission-over-external (its partial
answer); the suite of 856482f certified it (found by the sixth blind round).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

ANSWERS = ("USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT")


class Service(ReferenceService):
    def __init__(self) -> None:
        super().__init__()
        self.answered: set[str] = set()

    def apply_input(self, session, data):
        super().apply_input(session, data)
        if isinstance(data, dict) and data.get("type") in ANSWERS:
            self.answered.add(session.id)

    async def call_model(self, session):
        self.answered.discard(session.id)
        return await super().call_model(session)

    def parked_status(self, session):
        return None if session.id in self.answered else super().parked_status(session)


if __name__ == "__main__":
    main(Service)
