"""Conforming: every method treats session ids case-insensitively (one session, two spellings),
and -32002 still echoes the id as asked. status.identity.id-variants must not fail it: the other
spellings are the session for prompt and resume as much as for status.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


def folded(agent, session_id):
    if not isinstance(session_id, str):
        return session_id
    names = {s.lower(): s for s in agent.known | set(agent.loaded)}
    return names.get(session_id.lower(), session_id)


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return super().status_of(folded(self, session_id))

    async def prompt(self, session_id, prompt, **kwargs):
        return await super().prompt(folded(self, session_id), prompt, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        return await super().resume_session(folded(self, session_id), cwd, **kwargs)

    async def load_session(self, cwd, session_id, **kwargs):
        return await super().load_session(cwd, folded(self, session_id), **kwargs)

    async def close_session(self, session_id, **kwargs):
        return await super().close_session(folded(self, session_id), **kwargs)


main(Agent)
