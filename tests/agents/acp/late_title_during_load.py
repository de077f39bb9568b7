"""Conforming: late_updates with its timing pinned so the title it makes after a turn
(10 ms later here) reaches the client during the session/load that follows at once, which takes
60 ms to answer after replaying. The first replay of the history then carries a
`session_info_update` the next one does not: an update of the agent's own, not a history that
loads differently each time, so the history case must still judge status by the replay."""

import asyncio

import _base
from late_updates import Agent as LateUpdates

from conformance.reference.acp.agent import main


class Agent(LateUpdates):
    TITLE_AFTER = 0.01

    async def load_session(self, cwd, session_id, **kwargs):
        answer = await super().load_session(cwd, session_id, **kwargs)
        await asyncio.sleep(0.06)
        return answer


if __name__ == "__main__":
    main(Agent)
