"""Conforming HTTP status service: POST /chat/ does not take the answer to a permission request
(501: this deployment resolves permissions through another channel), so a parked turn stays
parked, truly awaiting_permission. The status spec says nothing of how a turn is answered.
Defeats the assumption that the answering route works (http.later.permission-answered,
http.safe.parked-stays-parked, whose control session is refused the same answer): must get not
testable, never a failure.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException


class Service(ReferenceService):
    async def chat(self, user_id, request):
        if isinstance(request.input, dict) and request.input.get("type") == "USER_CONFIRM_RESULT":
            self.owned(user_id, request.agent_id, request.session_id)
            raise HTTPException(501, "permission answers are not taken here")
        return await super().chat(user_id, request)


if __name__ == "__main__":
    main(Service)
