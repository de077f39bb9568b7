"""Broken (MUST), with --memory-cap N: status of an inactive (evicted or closed, on disk) session
reads its record through the agent's session cache, which makes room for it first.

Breaks: "session/status MUST NOT have side effects. It must not load, resume, create, close, or
change the session" (here: it changes another session, which leaves memory) and "Checking whether
a session is active SHOULD be cheap (an in-memory lookup)".
The agent "peeks" at a stored session by putting it into its LRU cache (which, at the cap, evicts
the least recently used live session), reads it, and takes it out again. The asked session's
answer is true (`inactive`) and it does not stay loaded; but every status call about a not-in-
memory session while memory is full pushes one live session out. Status calls about in-memory
sessions and about never-created ids change nothing. Caught by
status.inactive.after-memory-eviction's rule lookups-evict-none (its round of status calls about
sessions the agent evicted).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if answer == self.words["inactive"] and self.policy.memory_cap is not None:
            self.memory.use(session_id)  # make room in the cache for the peeked record
            self.memory.forget(session_id)  # peeked: out again
        return answer


main(Agent)
