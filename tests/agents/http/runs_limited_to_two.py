"""Conforming HTTP status service: at most two runs go at once in the whole service; a chat past
that is refused with 429 and a Retry-After (a worker pool of two), and starts nothing. Run with
--memory-cap 3: the runs can never outnumber the sessions it keeps in memory. Defeats the
assumption that a service takes as many runs at once as the suite starts
(http.state.runs-past-memory-cap is not testable, its refused sessions read idle): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException

MOST_RUNS = 2


class Service(ReferenceService):
    async def chat(self, user_id, request):
        going = sum(1 for task in self.runs.values() if not task.done())
        if going >= MOST_RUNS:
            self.owned(user_id, request.agent_id, request.session_id)  # 404 first, as any route
            raise HTTPException(429, "Every worker is busy; try again shortly.", headers={"Retry-After": "2"})
        return await super().chat(user_id, request)


if __name__ == "__main__":
    main(Service)
