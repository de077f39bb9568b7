"""Broken MCP server (run with --session-cap N): lru_touched_by_retry's bug (answering a retry from
its first result moves the session to the most recently used end, so under memory pressure a
retried session outlives one used later) behind a cap that evicts on reaching N, not on passing it
(evicts_at_the_cap: N - 1 sessions live together, which conforms).

The suite certified it before: the memory twins, sized by the stated cap, saw both twins evicted
and said not testable. Caught by heartbeat.twins.session-cap (rule retry), which now finds the
room one short of the stated cap.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from lru_touched_by_retry import Store as Bug  # the variants beside this one, on the script's own path
from evicts_at_the_cap import Store as Cap

from conformance.reference.mcp.server import main


class Store(Bug, Cap):
    """The bug's method, the cap's eviction."""


if __name__ == "__main__":
    main(store_factory=Store)
