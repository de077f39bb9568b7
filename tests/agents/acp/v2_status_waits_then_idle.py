"""v2, MUST: status waits while the session's model call runs, then answers `idle`.

Status of a session whose turn is `running` waits for the turn's model work to finish (it takes
the lock that work holds) and answers once it is free: the turn has ended by then, so the
snapshot says idle. While the turn waits on the user's permission the lock is free, so
status.active.during-turn passes. A status sent while the turn worked and answered only after
it ended is evidence, not n/a ("the turn ended before the status answer"). Caught by
status.state.running-during-turn.
"""

import asyncio

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        session_id = params.get("sessionId")
        while isinstance(session_id, str) and self.state.get(session_id, {}).get("state") == "running":
            await asyncio.sleep(0.01)
        return await super().status(params)


main_v2(None, None, Agent)
