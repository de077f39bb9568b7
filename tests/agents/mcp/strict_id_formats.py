"""A conforming MCP server with its own format for ids: session ids and idempotency keys are
lower-case letters, digits and dashes; anything else is refused as malformed, on any call.

Caught by nothing: heartbeat.session.id-variants and heartbeat.idempotency.key-variants tell a
refusal of a form (a new id or key in that form is refused too) from a refusal because the id or
key was taken for another (keys_ci_lookup, session_ids_collide_refused).
"""

import re
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore

FORMAT = re.compile(r"[a-z0-9-]+")


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate(args)
        for name in ("sessionId", "idempotencyKey"):
            if not FORMAT.fullmatch(args[name]):
                raise HeartbeatError(
                    f"invalid arguments: {name} must be lower-case letters, digits and dashes"
                )


if __name__ == "__main__":
    main(store_factory=Store)
