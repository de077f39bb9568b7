"""The reference MCP server over Streamable HTTP, writing down every HTTP request it receives: for
the tests of what each protocol era puts on the wire.

    MCP_REQUEST_LOG=requests.jsonl python tests/servers/mcp_request_log.py --http 127.0.0.1:0

One JSON line per request: its HTTP method and path, the MCP headers it carried, and the JSON-RPC
method, id and name of its body. The server is the reference's, unchanged (every flag works).
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import conformance.reference.mcp.server as reference

LOG = os.environ.get("MCP_REQUEST_LOG", "requests.jsonl")
HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id")


def logged(app):
    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        received = []
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        body = b"".join(m.get("body", b"") for m in received if m["type"] == "http.request")
        try:
            rpc = json.loads(body)
        except ValueError:
            rpc = None
        rpc = rpc if isinstance(rpc, dict) else {}
        params = found if isinstance(found := rpc.get("params"), dict) else {}
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        params_headers = {k: v for k, v in headers.items() if k.startswith("mcp-param-")}
        entry = {
            "http": scope["method"],
            "path": scope["path"],
            "headers": {h: headers[h] for h in HEADERS if h in headers} | params_headers,
            "rpc": rpc.get("method"),
            "id": rpc.get("id"),
            "name": params.get("name"),
            "envelope": (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion"),
            "body": body[:200].decode("utf-8", "replace") if not rpc.get("method") else None,
        }
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

        async def replay():
            return received.pop(0) if received else await receive()

        await app(scope, replay, send)

    return wrapped


serve_asgi = reference.serve_asgi
reference.serve_asgi = lambda app, *args, **kwargs: serve_asgi(logged(app), *args, **kwargs)

if __name__ == "__main__":
    reference.main()
