"""Broken MCP server: speaks both protocol eras, and the handshake era's requests (initialize, MCP
2025-06-18) go through a legacy argument adapter that drops acknowledgedInstructionIds, so an
acknowledged instruction comes again on every heartbeat of a 2025-06-18 client; over 2026-07-28 it
is the reference. Certified before (blind 10): a run in the default era (auto: 2026-07-28) never
acknowledged in the other.

Caught by heartbeat.instructions.acked-never-again, which runs in the handshake era too.
"""

import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

LEGACY = contextvars.ContextVar("legacy", default=False)


async def note_era(ctx, call_next):
    token = LEGACY.set(ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS)
    try:
        return await call_next(ctx)
    finally:
        LEGACY.reset(token)


class Store(HeartbeatStore):
    def acknowledge(self, session, ids):
        if LEGACY.get():
            return
        super().acknowledge(session, ids)


if __name__ == "__main__":
    main(store_factory=Store, middleware=(note_era,))
