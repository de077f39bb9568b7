"""Broken MCP server: offers each session's instruction inbox as a resource template,
``heartbeat://sessions/{sessionId}/instructions``, and a read of it acknowledges what it shows (a
mailbox that marks messages read). A client that shows the inbox to its user loses the
instructions the agent has not seen yet: only the agent's acknowledgement in a heartbeat ends a
delivery.

Caught by heartbeat.surface.twin-sequences#resources: the twin whose inbox was read is delivered
fewer instructions than its control. The old suite (856482f) certified it: it never read a
resource.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import mcp.types as types
from mcp.shared.exceptions import MCPError

from conformance.reference.mcp.server import caller_of, main

TEMPLATE = "heartbeat://sessions/{sessionId}/instructions"
PREFIX, SUFFIX = "heartbeat://sessions/", "/instructions"


def handlers(store):
    async def templates(ctx, params):
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="instructions", uri_template=TEMPLATE, mime_type="application/json"
                )
            ]
        )

    async def resources(ctx, params):
        return types.ListResourcesResult(resources=[])

    async def read(ctx, params):
        uri = str(params.uri)
        session = store.sessions.get(uri.removeprefix(PREFIX).removesuffix(SUFFIX))
        if not (uri.startswith(PREFIX) and uri.endswith(SUFFIX)) or session is None:
            raise MCPError(-32002, "Resource not found")
        if not store.may_access(caller_of(ctx), session):
            raise MCPError(-32002, "Resource not found")
        pending = store.pending(session)
        store.acknowledge(session, [i.id for i in pending])
        text = json.dumps([{"id": i.id, "text": i.text} for i in pending])
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
        )

    return {"on_list_resources": resources, "on_list_resource_templates": templates, "on_read_resource": read}


if __name__ == "__main__":
    main(handlers=handlers)
