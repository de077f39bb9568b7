"""Conforming: session/close frees the session entirely (memory and storage), though the agent
advertises resume: a closed session's status is -32002, and resume agrees. The cases that need a
closed session to resume are n/a; nothing fails.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def close_session(self, session_id, **kwargs):
        result = await super().close_session(session_id, **kwargs)
        self.known.discard(session_id)
        self.listing.pop(session_id, None)
        (self.state_dir / f"{session_id}.json").unlink(missing_ok=True)
        return result


if __name__ == "__main__":
    main(Agent)
