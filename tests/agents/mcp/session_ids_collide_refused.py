"""Broken MCP server: keeps session ids unique under a case-, pad- and width-insensitive collation
(MySQL's default one is case- and pad-insensitive): a heartbeat that would open a session whose id
folds to an existing one is refused ("session id already in use"), though another string names
another session.

Caught by heartbeat.session.id-variants, which excuses a refusal of such an id only where a new id
of that form is refused too.
"""

import unicodedata
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


def folded(sid):
    return unicodedata.normalize("NFKC", sid).strip().casefold()


class Store(HeartbeatStore):
    def execute(self, caller, args):
        sid = args["sessionId"]
        if sid not in self.sessions and any(folded(s) == folded(sid) for s in self.sessions):
            raise HeartbeatError("session id already in use")
        return super().execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
