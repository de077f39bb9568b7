"""Serving an ASGI app for the suite: on a port of its own choosing, announced once it listens.

Every reference server that speaks HTTP (ACP Streamable HTTP, MCP Streamable HTTP, the HTTP
status service) and the AgentScope launcher in tests/ print their URL on stdout for the suite to
read; printing it only after uvicorn accepts connections keeps the suite from racing the bind.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn

__all__ = ["serve_asgi"]


async def serve_asgi(app: Any, host: str, port: int, announce: Callable[[str, int], str]) -> None:
    """Serve ``app`` on host:port (0: a free port); print ``announce(host, port)`` once it listens."""
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only then (else Nagle adds ~40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_host, bound_port = sock.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(announce(bound_host, bound_port), flush=True)
    await task
