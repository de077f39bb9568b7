"""A conforming MCP server whose session ids are scoped per caller: caller B's heartbeat on the
id of caller A's session is a session of B's own, which shows and changes nothing of A's (the
operator's instructions for an id go to the session of the caller who opened it first).

The spec has the server verify "resource-level access before returning data or changing a
record"; it does not say ids are global. The access cases once required B to be refused (a
failure here); they now require that nothing of A's is revealed or changed: the reference's
outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        self.validate(args)
        sid = args["sessionId"]
        session = self.sessions.get(sid)
        if session is None or session.owner == caller:
            return super().heartbeat(caller, args)
        own = f"{sid}\x00{caller}"  # the caller's own session under that id
        return {**super().heartbeat(caller, {**args, "sessionId": own}), "sessionId": sid}


if __name__ == "__main__":
    main(store_factory=Store)
