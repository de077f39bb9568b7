"""Broken HTTP status service: a run whose model call fails records the error and returns
from its error branch before the clean-up, so the run lease stays held (and its renewer keeps
renewing it): the session reads running for good after a run that ended in an error. Caught by
http.failure.model-error.
The suite at 856482f certified it (exit 0): no model of its runs ever failed.
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def run(self, session, token):
        renewer = asyncio.create_task(self._renew(session.id, token))
        self.emit(session, "run_started")
        try:
            await self.agent_loop(session)
        except asyncio.CancelledError:
            self.finish_reply(session, "interrupted")
        except Exception as exc:
            reply = self.open_reply(session)
            reply["error"] = {"type": type(exc).__name__, "message": str(exc)[:500]}
            self.finish_reply(session, "error")
            return  # the clean-up below is skipped: the lease and its renewer stay
        renewer.cancel()
        self.touch(session)
        self.emit(session, "run_ended")
        self.release_lease(session.id, token)
        if self.runs.get(session.id) is asyncio.current_task():
            del self.runs[session.id]


if __name__ == "__main__":
    main(Service)
