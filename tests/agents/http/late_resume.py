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

import asyncio
import copy
import pathlib
import sys
from types import SimpleNamespace

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.models import BadInput
from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException
from fastapi.responses import JSONResponse

ANSWERS = ("USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT")
RESUME_AFTER = 5.0


class Service(ReferenceService):
    def __init__(self) -> None:
        super().__init__()
        self.context: dict[str, list] = {}  # session id -> its messages as the last run saved them

    def parked_status(self, session):
        saved = self.context.get(session.id)
        if saved is None:
            return super().parked_status(session)
        return super().parked_status(SimpleNamespace(id=session.id, messages=saved))

    async def run(self, session, token):
        self.context[session.id] = copy.deepcopy(session.messages)
        try:
            await super().run(session, token)
        finally:
            self.context[session.id] = copy.deepcopy(session.messages)

    async def chat(self, user_id, request):
        data = request.input
        if not (isinstance(data, dict) and data.get("type") in ANSWERS):
            return await super().chat(user_id, request)
        session = self.owned(user_id, request.agent_id, request.session_id)
        if self.lease_held(session.id):
            raise HTTPException(
                409, f"Session '{session.id}' already has an active chat run in this process."
            )
        try:
            self.apply_input(session, data)
        except BadInput as exc:
            raise HTTPException(400, str(exc)) from None
        self.touch(session)
        self.runs[session.id] = asyncio.create_task(self.resume_later(session))
        return JSONResponse({"status": "queued", "session_id": session.id})

    async def resume_later(self, session):
        await asyncio.sleep(RESUME_AFTER)
        token = self.acquire_lease(session.id)
        while token is None:  # a run still holds it: wait for it
            await asyncio.sleep(0.05)
            token = self.acquire_lease(session.id)
        await self.run(session, token)


if __name__ == "__main__":
    main(Service)
