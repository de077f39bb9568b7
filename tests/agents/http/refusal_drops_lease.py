"""Broken HTTP status service: the chat route's error handler drops the session's run lease by
session id (not by the token its own request took) whenever it refuses a chat with 409 or 400,
"so that no lease is left behind": the 409 a double submit gets while a run works frees the
working run's lease, and the session reads idle while its worker still streams. Breaks RUNNING
("a worker ... currently holds the session's run lease") and the precedence of RUNNING. Caught by
http.failure.refused-requests (rule running).
Certified before: the suite at 0fbef22 certified it (exit 0, blind bug hunt round 10); no case
read the status of a working run after a refused request.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from fastapi import HTTPException

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def chat(self, user_id, request):
        try:
            return await super().chat(user_id, request)
        except HTTPException as refused:
            if refused.status_code in (400, 409):
                self.leases.pop(request.session_id, None)  # by session, not by the request's token
            raise


if __name__ == "__main__":
    main(Service)
