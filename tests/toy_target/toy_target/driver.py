"""The toy target's per-run driver: what its cases are handed (targets.base.Driver)."""

from __future__ import annotations

from typing import Any

from conformance.core.outcomes import NotTestable
from conformance.targets.base import DriverHooks
from conformance.transport.peer import Reply

REVISION = "toy-2026"


class ToyTarget(DriverHooks):
    name = "toy"
    status_method = "toy/status"
    status_need = "status"

    def __init__(self, harness: Any) -> None:
        self.harness = harness
        self.hello: dict[str, Any] = {}

    @staticmethod
    def replay_record(config: Any) -> dict[str, Any]:
        return {}  # the command and its working directory say it all

    async def handshake(self) -> dict[str, Any]:
        reply = await self.harness.peer.request("toy/hello", {})
        self.hello = reply.result if reply.ok and isinstance(reply.result, dict) else {}
        return dict(self.hello)

    def advertises(self, need: str) -> bool:
        capabilities = self.hello.get("capabilities")
        return isinstance(capabilities, dict) and capabilities.get(need) is True

    def capability_name(self, need: str) -> str:
        return f"capabilities.{need}"

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    async def new_session(self) -> str:
        reply = await self.harness.peer.request("toy/open", {})
        sid = reply.result.get("id") if reply.ok and isinstance(reply.result, dict) else None
        if not isinstance(sid, str):
            raise NotTestable(f"toy/open did not open a session: {reply.describe()}")
        return sid

    async def status(self, sid: str) -> Reply:
        return await self.harness.peer.request(self.status_method, {"id": sid})

    async def detect_revision(self) -> tuple[str, str]:
        return REVISION, "the toy target's one revision"
