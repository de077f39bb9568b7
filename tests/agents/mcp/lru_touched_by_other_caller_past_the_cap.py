"""Broken MCP server (run with --session-cap N): lru_touched_by_other_caller's bug (a session is
loaded through the cache, most recently used, before the caller's access to it is checked, so
another caller's refused heartbeat keeps it in memory) behind a cap that makes room only once more
than N are held (evicts_past_the_cap: N + 1 sessions live together, which conforms).

The suite certified it before: the memory twins, sized by the stated cap, saw neither twin evicted
and said not testable. Caught by heartbeat.twins.session-cap (rule other-caller; the owner's
retries reach the same check, so they are named too), which now finds the room one past the
stated cap.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def may_access(self, caller, session):
        sid = next(s for s, found in self.sessions.items() if found is session)
        self.sessions[sid] = self.sessions.pop(sid)
        return super().may_access(caller, session)

    def evict(self):
        if self.session_cap is None:
            return
        while len(self.sessions) > self.session_cap + 1:
            self.forget(next(iter(self.sessions)))


if __name__ == "__main__":
    main(store_factory=Store)
