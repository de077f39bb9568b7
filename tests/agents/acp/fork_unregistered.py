"""Broken: a fork is unknown to status until its first turn. Status answers from the registry of
sessions the agent serves, which session/new, load and resume fill; session/fork, added later,
answers the new session's id (and holds it in memory) but registers it only when its first turn
runs. Until then status answers -32002 for an id the agent itself handed out. Certified by the
suite before: it never called session/fork.

Sentence: "Unknown: the Agent does not know this session. This is returned as a -32002 error."
Caught by the sequence (rule fork-known: the fork asked about right after session/fork).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found


class Agent(ReferenceAgent):
    surface = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.unregistered = set()

    async def fork(self, params):
        answer = await super().fork(params)
        self.unregistered.add(answer["sessionId"])
        return answer

    async def prompt(self, session_id, prompt, **kwargs):
        self.unregistered.discard(session_id)
        return await super().prompt(session_id, prompt, **kwargs)

    def status_of(self, session_id):
        if session_id in self.unregistered:
            raise not_found(session_id)
        return super().status_of(session_id)


if __name__ == "__main__":
    main(Agent)
