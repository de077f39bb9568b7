"""Conforming HTTP status service: its listing has another layout than AgentScope's
(`{"data": {"items": [{"sessionId": …, "updatedAt": …, "state": …}]}}`). Defeats the assumption
that the listing entry is found under `sessions[].session.id`: the session's entry must still be
found (its changes observed) and every case must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def listing(self, user_id, agent_id):
        mine = [s for s in self.sessions.values() if s.user_id == user_id and s.agent_id == agent_id]
        items = [{"sessionId": s.id, "updatedAt": s.updated_at, "state": self.derive_status(s)} for s in mine]
        return {"data": {"items": items, "count": len(items)}}


if __name__ == "__main__":
    main(Service)
