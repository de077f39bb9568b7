"""A dashboard's view of the heartbeat sessions, as MCP resources: ``heartbeat://sessions/{id}``,
each described by its reported state. ``scoped``: resources/list shows the caller's own sessions
only (resources/read checks the owner either way)."""

import json

import mcp.types as types
from mcp.shared.exceptions import MCPError

from conformance.reference.mcp.server import caller_of

PREFIX = "heartbeat://sessions/"


def dashboard(store, *, scoped: bool):
    def describe(session) -> str:
        state = session.state
        return f"{state.get('status', '?')}: {state.get('currentStep', '')}".strip()

    async def resources(ctx, params):
        caller = caller_of(ctx)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name=sid, uri=PREFIX + sid, description=describe(session), mime_type="application/json"
                )
                for sid, session in list(store.sessions.items())[:50]
                if not scoped or store.may_access(caller, session)
            ]
        )

    async def read(ctx, params):
        uri = str(params.uri)
        session = store.sessions.get(uri.removeprefix(PREFIX))
        if not uri.startswith(PREFIX) or session is None or not store.may_access(caller_of(ctx), session):
            raise MCPError(-32002, "Resource not found")
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=uri, mime_type="application/json", text=json.dumps(session.state)
                )
            ]
        )

    return {"on_list_resources": resources, "on_read_resource": read}
