"""Resumable Streamable HTTP streams (``--resumable``): an in-memory event store for the SDK.

Every message the server sends on an SSE stream is kept under an event id, which the SSE ``id:``
field carries, so that a client whose stream broke can reconnect with ``Last-Event-ID`` and get
what it missed on that stream. MCP 2025-06-18, Streamable HTTP, Resumability and Redelivery: an
id "MUST be globally unique across all streams within that session" and the server "MUST NOT
replay messages that would have been delivered on a different stream". One counter for the whole
process keeps the ids unique across every stream and session; the oldest events go past
MAX_EVENTS.
"""

from __future__ import annotations

import collections
import itertools

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage

__all__ = ["ResumableEvents"]

MAX_EVENTS = 10_000


class ResumableEvents(EventStore):
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        # event id -> (its stream, its message); None: a priming event, which carries no message
        self.events: collections.OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None]] = (
            collections.OrderedDict()
        )

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self.events[event_id] = (stream_id, message)
        while len(self.events) > MAX_EVENTS:
            self.events.popitem(last=False)
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """The events of ``last_event_id``'s stream that came after it, and no other stream's."""
        found = self.events.get(last_event_id)
        if found is None:
            return None
        stream_id, _ = found
        after = False
        for event_id, (stream, message) in list(self.events.items()):
            if after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
