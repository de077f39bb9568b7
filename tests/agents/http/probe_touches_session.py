"""Broken HTTP status service: a status probe writes the session back: its updated_at (so its place in
the listing) moves and a probe note joins its messages. Caught by http.safe.no-side-effects.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main, new_id, now_iso


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        session = self.sessions.get(session_id)
        if answer.status_code == 200 and session is not None:
            note = {"type": "text", "text": "status probed"}
            session.messages.append(
                {
                    "id": new_id(),
                    "name": "system",
                    "role": "system",
                    "content": [note],
                    "created_at": now_iso(),
                }
            )
            self.touch(session)
        return answer


if __name__ == "__main__":
    main(Service)
