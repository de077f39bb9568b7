"""The reference agent over ACP's Streamable HTTP transport (the SDK's ASGI app, on uvicorn).

The SDK's `AcpServer` makes one agent per connection through a factory; each gets a view of
one shared session store (as over WebSocket, `ws.py`). The SDK routes v1 methods only, so each
view puts the `session/status` handler in front of the SDK's router once its connection
exists (`on_connect`); that touches the SDK connection's private `_conn`, which is fine for a
reference agent pinned to agent-client-protocol 0.12.

Run: python -m conformance.reference.acp.agent --listen-http 127.0.0.1:0
(prints ``ACP_URL http://127.0.0.1:<port>/acp`` on stdout once it listens)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp.agent.router import build_agent_router
from acp.http.asgi import create_asgi_app

from .serving import serve_asgi

__all__ = ["serve_http"]


def _factory(make_view: Callable[[], Any]) -> Callable[[Any], Any]:
    def make_agent(agent_conn: Any) -> Any:
        view = make_view()

        def on_connect(bound: Any) -> None:
            connection = bound._conn
            connection._handler = view.front(build_agent_router(view, use_unstable_protocol=True))
            view.conn = connection

        view.on_connect = on_connect
        return view

    return make_agent


async def serve_http(make_view: Callable[[], Any], host: str, port: int) -> None:
    app = create_asgi_app(_factory(make_view))
    await serve_asgi(app, host, port, lambda h, p: f"ACP_URL http://{h}:{p}/acp")
