"""Conforming: session/new starts the stdio MCP servers it is given before it answers (each one's
MCP handshake and tools/list, then a second more, as a real agent connecting its tools takes
seconds), and refuses the session (-32603) if one does not start. The suite's sessions created with
an MCP server wait inside session/new, never after it: status.active.after-new passes.
"""

import asyncio
import json
import os

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from acp import RequestError

SETTLE = 1.0  # seconds more a session/new with MCP servers takes, past their handshakes
HANDSHAKE = 10.0  # the longest a server may take to answer its handshake


async def ask(proc, request_id, method, params=None):
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    proc.stdin.write((json.dumps(message) + "\n").encode())
    await proc.stdin.drain()
    while True:
        line = await proc.stdout.readline()
        if not line:
            raise ConnectionError(f"the MCP server ended before it answered {method}")
        answer = json.loads(line)
        if answer.get("id") == request_id:
            return answer


async def start(server):
    env = dict(os.environ)
    env.update({variable.name: variable.value for variable in server.env})
    proc = await asyncio.create_subprocess_exec(
        server.command,
        *server.args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "agent", "version": "1"},
    }
    assert proc.stdin is not None  # both pipes were asked for
    await ask(proc, 1, "initialize", init)
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    await ask(proc, 2, "tools/list", {})
    return proc


class Agent(ReferenceAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.servers = []  # kept running for the agent's life: they end when their stdin closes

    async def new_session(self, cwd, **kwargs):
        servers = kwargs.get("mcp_servers") or []
        for server in servers:
            if not hasattr(server, "command"):
                raise RequestError.invalid_params({"reason": "only stdio MCP servers are supported"})
            try:
                self.servers.append(await asyncio.wait_for(start(server), HANDSHAKE))
            except (TimeoutError, OSError, ValueError, ConnectionError) as exc:
                reason = f"MCP server {server.name!r} did not start: {exc}"
                raise RequestError.internal_error({"reason": reason}) from exc
        if servers:
            await asyncio.sleep(SETTLE)
        return await super().new_session(cwd, **kwargs)


if __name__ == "__main__":
    main(Agent)
