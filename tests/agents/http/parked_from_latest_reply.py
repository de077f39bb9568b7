"""Broken HTTP status service: the parked state is read from the agent's latest reply to the user
(across the user's sessions of that agent, as a context store keyed by user and agent returns it),
not from this session's tail, so an idle session reads awaiting_* while a sibling waits. Caught by
http.neighbour.siblings (rule parked or external, whichever sibling parked last).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        siblings = [
            s
            for s in self.sessions.values()
            if s.user_id == session.user_id and s.agent_id == session.agent_id and self.last_reply(s)
        ]
        if not siblings:
            return None
        latest = max(siblings, key=lambda s: (self.last_reply(s) or {}).get("created_at") or "")
        return super().parked_status(latest)


if __name__ == "__main__":
    main(Service)
