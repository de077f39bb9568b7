"""Broken MCP server: over Streamable HTTP, when a connection ends (the client's DELETE of its
protocol session, which the SDK's client sends on close), the server "releases" everything the
caller holds: every heartbeat session its token owns, with their pending instructions and the
results stored under their idempotency keys. Heartbeat sessions are named by their sessionId, not
by a connection: a client that closed and reconnected finds its instructions gone and its retry
applied again. Stdio and the stateless era have no DELETE, and behave as the reference.
--results-only: only the results stored under the caller's keys are released (a retry cache per
login), so a retry after a reconnect is applied a second time. --when-last: only when the caller's
last protocol session ends (a reconnecting client that kept another connection open loses
nothing). --after S: the release runs in the background S seconds after the DELETE was answered.

Breaks "Pending human instructions are delivered automatically; unacknowledged instructions may be
redelivered until the agent acknowledges them." and "Preserve correlation IDs and unchanged mutation
idempotency keys across safe retries." Certified by the suite before (blind round 20's
mcp_logout_purge). Caught by heartbeat.access.connection-end-keeps-state, over MCP 2025-06-18 (in a
2026-07-28 run, on its handshake-era connection).
"""

import asyncio
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.mcp.server as server
from tests.agents._argv import flag, option

serve_http, serve_asgi = server.serve_http, server.serve_asgi


RESULTS_ONLY, WHEN_LAST = flag("--results-only"), flag("--when-last")
AFTER = float(option("--after") or 0)


class ForgetsCallerOnDelete:
    def __init__(self, app: Any, store: Any) -> None:
        self.app, self.store = app, store
        self.open: dict[str, set[str]] = {}  # the caller's protocol sessions not yet ended

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        caller = headers.get(b"authorization", b"").decode() or "anonymous"
        answered: dict[str, Any] = {}

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
                sent = dict(message.get("headers") or [])
                if b"mcp-session-id" in sent:
                    self.open.setdefault(caller, set()).add(sent[b"mcp-session-id"].decode())
            await send(message)

        await self.app(scope, receive, sending)
        if scope["method"] != "DELETE" or not 200 <= answered.get("status", 500) < 300:
            return
        still = self.open.get(caller, set())
        still.discard(headers.get(b"mcp-session-id", b"").decode())
        if WHEN_LAST and still:
            return
        if AFTER:
            asyncio.get_running_loop().call_later(AFTER, self.release, caller)
        else:
            self.release(caller)

    def release(self, caller: str) -> None:
        owned = [sid for sid, session in self.store.sessions.items() if session.owner == caller]
        for sid in owned:
            if RESULTS_ONLY:
                for done in [key for key in self.store.results if key[1] == sid]:
                    del self.store.results[done]
            else:
                self.store.forget(sid)


async def serve_http_forgetting(store: Any, app_server: Any, host: str, port: int, **options: Any) -> None:
    async def serve(app: Any, *args: Any) -> None:
        await serve_asgi(ForgetsCallerOnDelete(app, store), *args)

    server.serve_asgi = serve
    await serve_http(store, app_server, host, port, **options)


server.serve_http = serve_http_forgetting

if __name__ == "__main__":
    server.main()
