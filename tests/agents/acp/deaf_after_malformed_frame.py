"""Robustness only (frames no client sends): the frame guard stops reading stdin for good at the
first line that is not a JSON-RPC frame (not JSON, not an object, a broken envelope). The agent
stays up and answers nothing more; a client that sends well-formed frames never sees it.

Reported by fuzz.frames.survives and fuzz.frames.error-codes (warn). Every later case runs on a
fresh process and judges as on the reference: the two silences are those cases' findings, never a
reason to skip the status cases. The suite of c9de112 ran none of them after the two: 47 cases not
testable."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.guard import check_line


async def pump_until_malformed(source, writer, guarded):
    while line := await source.readline():
        if not line.strip():
            continue
        problem = check_line(line.strip())
        if problem is not None and b"-32602" in problem:  # a frame, with params of the wrong type
            writer.write(problem)
            continue
        if problem is not None:
            await asyncio.Event().wait()  # deaf from here on, and still running
        guarded.feed_data(line)
    guarded.feed_eof()


_base.replace_guard(pump_until_malformed)

main(ReferenceAgent)
