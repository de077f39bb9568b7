"""Conforming HTTP status service: every 404 says when it was served, to the second (as many web
frameworks' error bodies do). Two unknown ids asked back to back get the same second; another
user's probe a moment later may get the next one. Defeats the assumption that a field two unknown
ids agree on is no per-request noise (http.ownership.same-body, the ownership cases in every
state): must pass.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def not_found(self, session_id):
        served = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return JSONResponse(
            {"detail": f"Session '{session_id}' not found.", "timestamp": served}, status_code=404
        )


if __name__ == "__main__":
    main(Service)
