"""Broken MCP server: over Streamable HTTP, when a connection ends (the client's DELETE of its
protocol session, which the SDK's client sends on close), the server "releases" everything the
caller holds: every heartbeat session its token owns, with their pending instructions and the
results stored under their idempotency keys. Heartbeat sessions are named by their sessionId, not
by a connection: a client that closed and reconnected finds its instructions gone and its retry
applied again. Stdio and the stateless era have no DELETE, and behave as the reference.
--results-only: only the results stored under the caller's keys are released (a retry cache per
login), so a retry after a reconnect is applied a second time.

Breaks "Pending human instructions are delivered automatically; unacknowledged instructions may be
redelivered until the agent acknowledges them." and "Preserve correlation IDs and unchanged mutation
idempotency keys across safe retries." Certified by the suite before (blind round 20's
mcp_logout_purge). Caught by heartbeat.access.connection-end-keeps-state, over MCP 2025-06-18 (in a
2026-07-28 run, on its handshake-era connection).
"""

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.mcp.server as server

serve_http, serve_asgi = server.serve_http, server.serve_asgi
RESULTS_ONLY = "--results-only" in sys.argv
if RESULTS_ONLY:
    sys.argv.remove("--results-only")


class ForgetsCallerOnDelete:
    def __init__(self, app: Any, store: Any) -> None:
        self.app, self.store = app, store

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            return await self.app(scope, receive, send)
        answered: dict[str, int] = {}

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
            await send(message)

        await self.app(scope, receive, sending)
        if 200 <= answered.get("status", 500) < 300:
            caller = dict(scope["headers"]).get(b"authorization", b"").decode() or "anonymous"
            owned = [sid for sid, session in self.store.sessions.items() if session.owner == caller]
            for sid in owned:
                if RESULTS_ONLY:
                    for done in [key for key in self.store.results if key[1] == sid]:
                        del self.store.results[done]
                else:
                    self.store.forget(sid)


async def serve_http_forgetting(
    store: Any, app_server: Any, host: str, port: int, *, stateless: bool = False
) -> None:
    async def serve(app: Any, *args: Any) -> None:
        await serve_asgi(ForgetsCallerOnDelete(app, store), *args)

    server.serve_asgi = serve
    await serve_http(store, app_server, host, port, stateless=stateless)


server.serve_http = serve_http_forgetting

if __name__ == "__main__":
    server.main()
