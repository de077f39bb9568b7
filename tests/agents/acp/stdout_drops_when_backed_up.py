"""Broken (MUST, JSON-RPC: "the Server MUST reply with a Response"): stdout never waits for the
pipe, so that an editor that stops reading cannot stall every session; a frame that finds more than
64 KiB already waiting to be written is dropped (a line on stderr says so). An editor that reads
promptly never backs the pipe up; one busy elsewhere for a moment loses answers.

Caught by transport.stdio.slow-reader. The suite of d4be4d9 certified it (blind round 16's MCP
server did the same): it always read at once."""

import _base

import asyncio
import sys

from conformance.reference.acp.agent import ReferenceAgent, main

BACKLOG = 64 * 1024
write = asyncio.StreamWriter.write


def write_or_drop(self, data):
    if self.transport.get_write_buffer_size() > BACKLOG:
        sys.stderr.write("stdout backed up: frame dropped\n")
        return
    write(self, data)


async def never_wait(self):
    return None


asyncio.StreamWriter.write = write_or_drop
asyncio.StreamWriter.drain = never_wait

main(ReferenceAgent)
