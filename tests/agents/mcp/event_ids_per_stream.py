"""Broken MCP server (MUST, MCP 2025-06-18 Streamable HTTP: event ids "globally unique across all
streams within that session"): resumable streams (--resumable) whose event store numbers each
stream's events from 1, short ids readable in logs. Every response of a session goes out as event
1, and a client resuming with Last-Event-ID 1 is replayed whichever stream last issued it.

Caught by heartbeat.wire.event-ids-unique, in the handshake era (at default options on a
connection of its own). The suite of c9de112 certified it (blind round 21's mcp_event_ids did
the same): it never looked at the SSE ids."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.events import ResumableEvents
from conformance.reference.mcp.server import main


class PerStreamEvents(ResumableEvents):
    def __init__(self) -> None:
        super().__init__()
        self.issued: dict[str, int] = {}

    async def store_event(self, stream_id, message):
        number = self.issued[stream_id] = self.issued.get(stream_id, 0) + 1
        event_id = str(number)
        self.events.pop(event_id, None)
        self.events[event_id] = (stream_id, message)
        return event_id


if __name__ == "__main__":
    main(event_store=PerStreamEvents)
