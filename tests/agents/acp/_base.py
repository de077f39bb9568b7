"""Shared import path setup so each broken agent runs as a plain script, and what the variants
that act a moment after answering share."""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def later(owner, seconds, work):
    """Run ``work()`` ``seconds`` from now in the running loop, the task kept referenced (on
    ``owner``) until it ends: an agent or service that answers first and acts a moment later."""

    async def run():
        await asyncio.sleep(seconds)
        await work()

    pending = owner.__dict__.setdefault("_pending_later", set())
    task = asyncio.get_running_loop().create_task(run())
    pending.add(task)
    task.add_done_callback(pending.discard)


async def open_for_load(agent, session_id):
    """What the reference's session/load does before it replays: the stored session, now in
    memory and attached to the connection (variants that replay otherwise share it)."""
    await agent.storage_io()
    session = agent.read(session_id)
    agent.loaded[session_id] = session
    agent.memory.use(session_id)
    agent.attach(session_id)
    return session


def replace_guard(pump):
    """The reference's stdin frame guard replaced by ``pump(source, writer, guarded)``, a
    coroutine that reads stdin (``source``), feeds the frames it passes on to ``guarded`` (the
    SDK's reader) and writes its own answers to ``writer``."""
    from conformance.reference.acp import agent
    from conformance.reference.acp.guard import MAX_LINE

    async def guard(source, writer):
        guarded = asyncio.StreamReader(limit=MAX_LINE)
        # Held by the reader: the loop keeps only a weak reference to tasks.
        guarded.pump_task = asyncio.get_running_loop().create_task(pump(source, writer, guarded))  # type: ignore[attr-defined]  # an attribute StreamReader does not declare
        return guarded

    agent.guard_stdin = guard
