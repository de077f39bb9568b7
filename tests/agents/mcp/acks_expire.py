"""Broken MCP server: acknowledgements are kept in a cache whose entries live 1.5 s, so an
acknowledged instruction comes again once its entry has expired.

Caught by heartbeat.later.pending-held: an instruction acknowledged before the session is left
alone for the hold (3 s in the ci profile) comes again after it.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

ENTRY_TTL = 1.5


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.acked_at = {}

    def acknowledge(self, session, ids):
        now = time.monotonic()
        self.acked_at.update(dict.fromkeys(ids, now))
        session.acknowledged = {
            i for i in session.acknowledged | set(ids) if now - self.acked_at[i] < ENTRY_TTL
        }

    def pending(self, session):
        now = time.monotonic()
        session.acknowledged = {i for i in session.acknowledged if now - self.acked_at[i] < ENTRY_TTL}
        return super().pending(session)


if __name__ == "__main__":
    main(store_factory=Store)
