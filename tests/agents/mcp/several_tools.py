"""Conforming MCP server: lists three tools beside the heartbeat that legitimately do other
things with the same sessions: ``session_summary`` reads a session's reported state and how many
instructions are pending (changing nothing), ``session_note`` keeps a free-text note of its own on
a session, ``echo`` answers its text. It also offers a session's state as a resource template
(``heartbeat://sessions/{sessionId}/state``) and a prompt (``report_progress``, naming a session).

Defeats the assumption that the heartbeat is the server's only tool: heartbeat.surface.twin-sequences
calls each of them, reads the resource and gets the prompt on one twin and must find the twins alike.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import OtherTool, main
from conformance.reference.mcp.store import NOT_ACCESSIBLE, STATE_FIELDS, HeartbeatError

SESSION = {"type": "string", "description": "Session ID"}
NOTES = {}


def session_of(store, caller, args):
    session = store.sessions.get(str(args.get("sessionId")))
    if session is None or not store.may_access(caller, session):
        raise HeartbeatError(NOT_ACCESSIBLE)
    return session


def summary(store, caller, args):
    session = session_of(store, caller, args)
    return {
        **{name: session.state.get(name) for name in STATE_FIELDS},
        "pendingInstructions": len(store.pending(session)),
    }


def note(store, caller, args):
    session_of(store, caller, args)
    NOTES[(caller, args["sessionId"])] = str(args.get("note", ""))[:1000]
    return {"saved": True}


TOOLS = (
    OtherTool(
        "session_summary",
        "A session's last reported state and how many instructions are pending.",
        {"type": "object", "properties": {"sessionId": SESSION}, "required": ["sessionId"]},
        summary,
    ),
    OtherTool(
        "session_note",
        "Keep a note on a session (not shown to the agent).",
        {
            "type": "object",
            "properties": {"sessionId": SESSION, "note": {"type": "string"}},
            "required": ["sessionId", "note"],
        },
        note,
    ),
    OtherTool(
        "echo",
        "Answer the text given.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        lambda store, caller, args: {"text": str(args.get("text", ""))[:1000]},
    ),
)

STATE = "heartbeat://sessions/{sessionId}/state"


def handlers(store):
    import mcp.types as types
    from mcp.shared.exceptions import MCPError

    from conformance.reference.mcp.server import caller_of

    async def templates(ctx, params):
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(name="state", uri_template=STATE, mime_type="application/json")
            ]
        )

    async def resources(ctx, params):
        return types.ListResourcesResult(resources=[])

    async def read(ctx, params):
        uri = str(params.uri)
        sid = uri.removeprefix("heartbeat://sessions/").removesuffix("/state")
        try:
            state = summary(store, caller_of(ctx), {"sessionId": sid})
        except HeartbeatError:
            raise MCPError(-32002, "Resource not found") from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=uri, mime_type="application/json", text=json.dumps(state))
            ]
        )

    async def prompts(ctx, params):
        argument = types.PromptArgument(name="sessionId", required=True)
        return types.ListPromptsResult(prompts=[types.Prompt(name="report_progress", arguments=[argument])])

    async def prompt(ctx, params):
        sid = (params.arguments or {}).get("sessionId", "")
        text = f"Report the progress of session {sid[:100]} with session_heartbeat."
        return types.GetPromptResult(
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))]
        )

    return {
        "on_list_resources": resources,
        "on_list_resource_templates": templates,
        "on_read_resource": read,
        "on_list_prompts": prompts,
        "on_get_prompt": prompt,
    }


if __name__ == "__main__":
    main(other_tools=TOOLS, handlers=handlers)
