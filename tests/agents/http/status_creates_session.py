"""Broken HTTP status service: the status of an unknown id creates that session and answers 200 idle.
Caught by http.unknown.not-found, http.safe.no-side-effects.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import CreateSessionRequest, ReferenceService, main


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        agent = self.agents.get(agent_id)
        if verdict == "unknown" and agent is not None and agent.user_id == user_id:
            self.create_session(user_id, CreateSessionRequest(agent_id=agent_id), session_id=session_id)
            return self.status_body(self.sessions[session_id], session_id, "idle")
        return super().status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)


if __name__ == "__main__":
    main(Service)
