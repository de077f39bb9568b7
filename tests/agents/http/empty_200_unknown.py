"""Broken HTTP status service: 200 with an empty body for an unknown session id. Caught by
http.unknown.not-found.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import Response


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        if verdict == "unknown":
            return Response(status_code=200)
        return super().status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)


if __name__ == "__main__":
    main(Service)
