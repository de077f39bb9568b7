"""ACP fuzzing: a live session per input (the runner is conformance.core.fuzzing).

An agent that dies on an input is restarted before the next example, so shrinking can go on.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from conformance.targets.acp.target import AcpTarget

__all__ = ["LiveSession", "settle"]


class LiveSession:
    """A fresh session for every input (so examples do not depend on each other), after
    restarting the agent if an earlier input killed it."""

    def __init__(self, target: AcpTarget) -> None:
        self.t = target
        self.sid: str | None = None
        self.restarts = 0
        self.err_mark = 0

    async def ensure(self) -> str:
        if not self.t.harness.agent_alive:
            self.restarts += 1
            await self.t.harness.restart_agent()
        self.sid = await self.t.new_session()
        self.err_mark = self.t.harness.stderr.mark()
        return self.sid

    def crash_layer(self) -> str | None:
        """Which layer the agent's crash on this input was in, from what it wrote since."""
        from conformance.core.layers import stderr_layer

        return stderr_layer(self.t.harness.stderr.since(self.err_mark))

    def fill(self, value: Any) -> Any:
        text = json.dumps(value).replace('"$live"', json.dumps(self.sid))
        return json.loads(text)


async def settle() -> None:
    await anyio.sleep(0.02)
