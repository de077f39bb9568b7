"""Conforming HTTP status service: each start takes a new free port, prints its URL as a server
started by `uvicorn.run(port=...)` does (a log line first, the URL inside a sentence) a moment
before it accepts connections, and keeps nothing across a restart: its sessions, agents and
credentials are gone (the spec asks no durability of them).

Defeats the assumption that a restarted service answers at once on the URL it printed, and that
the agent the suite made before a restart (with its credential) still exists: http.twins.restart
is not testable (nothing kept to compare), and the cases after it make a new agent. Must pass.
"""

import asyncio
import pathlib
import socket
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http import service as reference

# How long after printing its URL the service starts accepting connections.
STARTUP = 0.5


def free_port(host):
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


async def serve(app, host, port):
    port = free_port(host) if port == 0 else port
    print("INFO:     Started server process", flush=True)
    print(f"INFO:     Uvicorn running on http://{host}:{port} (Press CTRL+C to quit)", flush=True)
    await asyncio.sleep(STARTUP)
    await reference.serve_asgi(
        app, host, port, lambda h, p: f"INFO:     Application startup complete on port {p}"
    )


if __name__ == "__main__":
    reference.serve = serve
    reference.main()
