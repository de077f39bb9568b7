"""Conforming HTTP status service: POST /chat/ queues the run and a worker picks it up 3 s later
(taking the lease only then), so a session reads idle for a while after the chat was accepted.
Defeats the assumption that the run holds the lease as soon as POST /chat/ answers
(http.state.running-during-run, http.ownership.while-running): must pass.
"""

import asyncio

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from conformance.reference.http.models import BadInput
from fastapi import HTTPException
from fastapi.responses import JSONResponse, Response


class Service(ReferenceService):
    QUEUED_FOR = 3.0  # seconds before a worker picks the run up

    async def chat(self, user_id, request) -> Response:  # the base's: subclasses may answer otherwise
        session = self.owned(user_id, request.agent_id, request.session_id)
        try:
            self.apply_input(session, request.input)
        except BadInput as exc:
            raise HTTPException(400, str(exc)) from None
        self.touch(session)
        self.runs[session.id] = asyncio.create_task(self.worker(session))
        return JSONResponse({"status": "queued", "session_id": session.id})

    async def worker(self, session):
        await asyncio.sleep(self.QUEUED_FOR)
        token = self.acquire_lease(session.id)
        while token is None:  # a run still holds it: wait for it
            await asyncio.sleep(0.05)
            token = self.acquire_lease(session.id)
        await self.run(session, token)


if __name__ == "__main__":
    main(Service)
