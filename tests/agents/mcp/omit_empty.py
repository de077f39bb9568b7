"""A conforming MCP server that omits empty fields from its results (exclude-defaults style): no
"instructions" when nothing is pending, no "nextCursor" on the last page.

Once a list has been seen where the suite looks (in this run, or at --instructions-path), none
there is an empty list: without that, the cases whose first result was empty were not testable,
and the sequences hid their bugs (drops_after_empty_omit, cursor_offset_omit).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        return {k: v for k, v in result.items() if v not in (None, [])}


if __name__ == "__main__":
    main(store_factory=Store)
