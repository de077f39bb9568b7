"""Broken MCP server: lists a ``session_summary`` tool beside the heartbeat that shows a session's
state and its pending instructions, and marks the instructions it showed as acknowledged (shown
to someone counts as handled). An agent that looks at the summary before its next heartbeat never
gets those instructions: only the agent's acknowledgement in a heartbeat ends a delivery.

Caught by heartbeat.surface.twin-sequences#tool: the twin the summary tool was called on is
delivered fewer instructions than its control. The old suite (856482f) certified it: nothing
called a tool other than the heartbeat.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import OtherTool, main
from conformance.reference.mcp.store import NOT_ACCESSIBLE, STATE_FIELDS, HeartbeatError


def summary(store, caller, args):
    session = store.sessions.get(str(args.get("sessionId")))
    if session is None or not store.may_access(caller, session):
        raise HeartbeatError(NOT_ACCESSIBLE)
    pending = store.pending(session)
    store.acknowledge(session, [i.id for i in pending])
    return {
        **{name: session.state.get(name) for name in STATE_FIELDS},
        "instructions": [{"id": i.id, "text": i.text} for i in pending],
    }


TOOLS = (
    OtherTool(
        "session_summary",
        "A session's last reported state and its pending instructions.",
        {
            "type": "object",
            "properties": {"sessionId": {"type": "string", "description": "Session ID"}},
            "required": ["sessionId"],
        },
        summary,
    ),
)

if __name__ == "__main__":
    main(other_tools=TOOLS)
