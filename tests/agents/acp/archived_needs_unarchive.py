"""Conforming: an archived session is refused by session/resume and session/load (-32602) until it
is unarchived; its status is `inactive` all along (known, not in memory). The SDK 2.4.0 schema
says clients SHOULD unarchive a session before they load or resume it, so an agent may refuse
until then. set_title loads the session it retitles into memory (nothing says it must not): its
status then reads `active`. Nothing fails, under --strict too.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from acp import RequestError


class Agent(ReferenceAgent):
    surface = True

    def refuse_archived(self, session_id):
        if session_id in self.archived:
            raise RequestError.invalid_params({"reason": "the session is archived: unarchive it first"})

    async def load_session(self, cwd, session_id, **kwargs):
        self.refuse_archived(session_id)
        return await super().load_session(cwd, session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        self.refuse_archived(session_id)
        return await super().resume_session(session_id, cwd, **kwargs)

    async def set_title(self, params):
        answer = await super().set_title(params)
        session_id = params["sessionId"]
        if session_id not in self.loaded:
            self.loaded[session_id] = self.read(session_id)
            self.memory.use(session_id)
        return answer


if __name__ == "__main__":
    main(Agent)
