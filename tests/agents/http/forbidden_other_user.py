"""Broken HTTP status service: 403 instead of 404 for another user's session. Caught by
http.ownership.other-user-404.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        if verdict == "other_user":
            return JSONResponse({"detail": "Not authorized to access this session."}, status_code=403)
        return super().status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)


if __name__ == "__main__":
    main(Service)
