"""Conforming HTTP status service with no worker to run anything: POST /chat/ is refused with 503
every time, so no session ever runs or parks (each stays idle, truly). The status spec says
nothing of starting runs. Defeats the assumption that a refused POST /chat/ is a prerequisite
the service advertised and broke (the state, later and ownership-while cases, and
http.safe.no-lease, whose unprobed control session is refused too): must get not testable,
never a failure.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException


class Service(ReferenceService):
    async def chat(self, user_id, request):
        self.owned(user_id, request.agent_id, request.session_id)
        raise HTTPException(503, "no worker is available to run this session")


if __name__ == "__main__":
    main(Service)
