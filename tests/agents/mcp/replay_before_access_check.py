"""Broken MCP server: answers a retry from its idempotency cache, keyed by session and key,
before it checks who is calling: another caller replaying a call gets its first result.

Caught by heartbeat.access.other-caller-replay.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore, fingerprint
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        self.validate(args)
        for (_, sid, key), (done, result) in self.results.items():
            if (sid, key) == (args["sessionId"], args["idempotencyKey"]) and done == fingerprint(args):
                return result
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
