"""Broken HTTP status service: a rate limiter in front of every route that names a session allows
30 requests a minute per session, and counts the status route too, so a watched session's
permission answer is refused (429) where an unwatched one's is taken. Caught by
http.twins.request-allowance (rule probed), with --http-request-limit 30.
"""

import contextlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        if answer.status_code == 200:
            with contextlib.suppress(
                HTTPException
            ):  # the probe is answered; the allowance is spent all the same
                self.spend(session_id)
        return answer


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--request-limit", "30"])
