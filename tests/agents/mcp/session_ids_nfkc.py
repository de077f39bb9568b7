"""Broken MCP server: normalises session ids to NFKC, so a full-width id and its ASCII form are
one session.

Caught by heartbeat.session.id-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import unicodedata

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        if isinstance(args.get("sessionId"), str):
            args = {**args, "sessionId": unicodedata.normalize("NFKC", args["sessionId"])}
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
