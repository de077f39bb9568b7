"""Conforming HTTP status service: the status reads the session's persisted context, which a run
writes when it starts and when it ends; the messages show an answer (a permission given or denied,
an executor's result) as soon as it is accepted, but the run that resumes the turn starts 5 s later
(a queue, as in a deployment whose workers are busy). Until then the context still holds the call
waiting, and the status says so: awaiting_permission / awaiting_external_result, truly.

Defeats the assumption that a status still parked after the messages show the answer taken means
the status is stale (http.later.permission-answered, http.later.external-answered): with no run
resumed within --timeout (the model was asked nothing since), there is nothing to judge, so both
are not testable, never failed. Real AgentScope was seen doing this once (a deny, no run resumed
within 20 s). Tested with --timeout 2.
"""

import copy
import dataclasses
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from queued_runs import Service as QueuedRuns  # its chat: the input now, the run QUEUED_FOR s later

ANSWERS = ("USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT")


class Service(QueuedRuns):
    QUEUED_FOR = 5.0

    def __init__(self) -> None:
        super().__init__()
        self.context: dict[str, list] = {}  # session id -> its messages as the last run saved them

    def parked_status(self, session):
        saved = self.context.get(session.id)
        if saved is None:
            return super().parked_status(session)
        return super().parked_status(dataclasses.replace(session, messages=saved))

    async def run(self, session, token):
        self.context[session.id] = copy.deepcopy(session.messages)
        try:
            await super().run(session, token)
        finally:
            self.context[session.id] = copy.deepcopy(session.messages)

    async def chat(self, user_id, request):
        if isinstance(request.input, dict) and request.input.get("type") in ANSWERS:
            return await super().chat(user_id, request)  # queued
        return await ReferenceService.chat(self, user_id, request)  # runs at once


if __name__ == "__main__":
    main(Service)
