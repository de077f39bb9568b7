"""Broken MCP server, written by hand on stdio (the SDK refuses to publish such a tool): the
tool's inputSchema is not the JSON Schema of an object.

Caught by heartbeat.tools.listed.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.heartbeat_store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, spool_dir

store = HeartbeatStore(spool=spool_dir())


def answer(message):
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "string-schema", "version": "0"},
        }
    if method == "tools/list":
        return {"tools": [{"name": "session_heartbeat", "inputSchema": {"type": "string"}}]}
    if method == "tools/call":
        try:
            result = store.heartbeat("local", params.get("arguments") or {})
            return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}
        except HeartbeatError as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
    return None


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    result = answer(message)
    if result is None:
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": "Method not found"},
        }
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
