"""For the variants whose store applies a request a moment after answering it."""

import pathlib
import sys

# later() is the ACP variants' helper (tests/agents/acp/_base.py): one for agents and services.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "acp"))

from _base import later
from fastapi.responses import JSONResponse

__all__ = ["later", "queued"]


def queued(base, seconds=0.5):
    """``base`` with POST /chat/ answered at once and its input applied ``seconds`` later."""

    class Queued(base):
        async def chat(self, user_id, request):
            self.owned(user_id, request.agent_id, request.session_id)  # a 404 for another's session
            later(self, seconds, lambda: base.chat(self, user_id, request))
            return JSONResponse({"status": "queued", "session_id": request.session_id})

    return Queued
