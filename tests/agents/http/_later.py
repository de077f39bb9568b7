"""For the variants whose store applies a request a moment after answering it."""

import asyncio

from fastapi.responses import JSONResponse


def later(service, seconds, work):
    """Run ``work`` ``seconds`` from now, in the service's loop, keeping the task referenced until
    it ends."""

    async def run():
        await asyncio.sleep(seconds)
        await work()

    pending = service.__dict__.setdefault("_pending_later", set())
    task = asyncio.get_running_loop().create_task(run())
    pending.add(task)
    task.add_done_callback(pending.discard)


def queued(base, seconds=0.5):
    """``base`` with POST /chat/ answered at once and its input applied ``seconds`` later."""

    class Queued(base):
        async def chat(self, user_id, request):
            self.owned(user_id, request.agent_id, request.session_id)  # a 404 for another's session
            later(self, seconds, lambda: base.chat(self, user_id, request))
            return JSONResponse({"status": "queued", "session_id": request.session_id})

    return Queued
