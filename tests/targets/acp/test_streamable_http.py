"""The Streamable HTTP channel keeps working however many sessions one connection opens.

The SDK's client opens one SSE GET per session it sees and never closes it; on httpx's default
pool (100 connections) the 100th session left every later POST waiting for a connection, and a
run that created many sessions ended in timeouts (seen as 10 errored cases in CI).
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from conformance.targets.acp.streamable_http import AcpHttpChannel as HttpChannel
from tests.conftest import REFERENCE_AGENT, listening

SESSIONS = 130


@pytest.fixture
def http_agent(tmp_path: Path):
    argv = [*REFERENCE_AGENT, "--listen-http", "127.0.0.1:0"]
    with listening(argv, tmp_path) as url:
        yield url, tmp_path


async def exchange(channel: HttpChannel, replies, message: dict) -> dict:
    with anyio.fail_after(10):  # a POST waiting for a pooled connection hangs in send_line
        await channel.send_line(json.dumps(message).encode())
        while True:
            reply = json.loads(await replies.__anext__())
            if reply.get("id") == message["id"]:
                return reply


def test_more_sessions_than_the_default_connection_pool(http_agent) -> None:
    url, cwd = http_agent

    async def main() -> list[str]:
        channel = HttpChannel(url)
        await channel.open(timeout=10)
        replies = channel.lines()
        try:
            init = {"protocolVersion": 1, "clientCapabilities": {}}
            await exchange(
                channel, replies, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
            )
            statuses = []
            for n in range(1, SESSIONS + 1):
                new = {"cwd": str(cwd), "mcpServers": []}
                made = await exchange(
                    channel, replies, {"jsonrpc": "2.0", "id": 2 * n, "method": "session/new", "params": new}
                )
                sid = made["result"]["sessionId"]
                asked = {
                    "jsonrpc": "2.0",
                    "id": 2 * n + 1,
                    "method": "session/status",
                    "params": {"sessionId": sid},
                }
                statuses.append((await exchange(channel, replies, asked))["result"]["status"])
            return statuses
        finally:
            await replies.aclose()
            await channel.close()

    statuses = anyio.run(main)
    assert statuses == ["active"] * SESSIONS
