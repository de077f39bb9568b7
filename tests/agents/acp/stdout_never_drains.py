"""Conforming: stdout never waits for the pipe (no drain), and nothing is dropped: what the
editor has not read yet waits in the agent's own buffer, however large it grows. A slow reader
gets every answer once it reads again."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


async def never_wait(self):
    return None


asyncio.StreamWriter.drain = never_wait

main(ReferenceAgent)
