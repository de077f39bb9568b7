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

from lru_touched_by_other_caller import Store as Bug  # the variants beside this one, on the script's own path
from evicts_past_the_cap import Store as Cap

from conformance.reference.mcp.server import main


class Store(Bug, Cap):
    """The bug's method, the cap's eviction."""


if __name__ == "__main__":
    main(store_factory=Store)
