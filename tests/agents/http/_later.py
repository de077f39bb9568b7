"""For the variants whose store applies a request a moment after answering it: run ``work``
``seconds`` from now, in the service's loop, keeping the task referenced until it ends."""

import asyncio


def later(service, seconds, work):
    async def run():
        await asyncio.sleep(seconds)
        await work()

    pending = service.__dict__.setdefault("_pending_later", set())
    task = asyncio.get_running_loop().create_task(run())
    pending.add(task)
    task.add_done_callback(pending.discard)
