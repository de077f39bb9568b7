"""Broken HTTP status service: the status route validates the agent_id by asking whether the agent
belongs to the caller, not whether the session belongs to that agent.

Breaks: "agent_id (`str`): The agent that owns the session (ownership validation)" and
"Raises: HTTPException: 404 if the session does not exist or does not belong to the authenticated
user" with the query parameter "Agent the session belongs to.": a session probed with the id of
*another agent of the same user* answers 200 with its status. A made-up agent id, another user's
agent, another user's session: all 404 as they should (the agent lookup fails), so only a second
agent owned by the same caller shows it (a user with several agents, each with its sessions).
The other routes (messages, chat, delete) keep the exact check and answer 404 for that pair.
Caught by http.ownership.wrong-agent-404 (with a real agent of the caller's that the session does
not belong to).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        session, verdict = self.lookup(user_id, agent_id, session_id)
        if verdict == "wrong_agent":
            agent = self.agents.get(agent_id)
            if (
                agent is not None and agent.user_id == user_id and session is not None
            ):  # "the caller may use this agent"
                return self.status_body(session, session_id, self.derive_status(session))
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)
