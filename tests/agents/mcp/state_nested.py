"""A conforming MCP server that reports the session's state under "session" in its results, not at
the top level (the spec does not say what a result holds).

The probe finds a written value wherever the result puts it: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["session"] = {name: result.pop(name) for name in STATE_FIELDS}
        return result


if __name__ == "__main__":
    main(store_factory=Store)
