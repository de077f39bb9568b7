"""A conforming MCP server whose session ids must start with a letter or digit and must not read
as a number: "007", "7.0", "+7" or " 7 " are refused as malformed (an isError result), on any call.
A store with a numeric column may refuse the ids it would read as numbers rather than merge them.

Caught by nothing: heartbeat.session.id-variants judges only the forms of a numeric id the server
accepted, and a refusal of a form only where a new id in that form is taken.
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore

NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate(args)
        sid = args["sessionId"]
        if not sid[:1].isalnum() or NUMBER.fullmatch(sid):
            raise HeartbeatError(
                "invalid arguments: sessionId must start with a letter or digit and must not be a number"
            )


if __name__ == "__main__":
    main(store_factory=Store)
