"""Broken (MUST), with --memory-cap N or --idle-evict-after S: status answers from its own index of
the sessions in memory, which create, load, resume, close and delete keep up to date but the
agent's own eviction does not, so a session the agent evicted still reads active."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.indexed = set()  # what status answers from

    def status_of(self, session_id):
        if session_id in self.indexed:
            return self.words["active"]
        return super().status_of(session_id)

    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        self.indexed.add(answer["sessionId"])
        return answer

    async def load_session(self, cwd, session_id, **kwargs):
        answer = await super().load_session(cwd, session_id, **kwargs)
        self.indexed.add(session_id)
        return answer

    async def resume_session(self, session_id, cwd, **kwargs):
        answer = await super().resume_session(session_id, cwd, **kwargs)
        self.indexed.add(session_id)
        return answer

    async def close_session(self, session_id, **kwargs):
        self.indexed.discard(session_id)
        return await super().close_session(session_id, **kwargs)

    async def delete_session(self, params):
        self.indexed.discard(params.get("sessionId") if isinstance(params, dict) else None)
        return await super().delete_session(params)


main(Agent)
