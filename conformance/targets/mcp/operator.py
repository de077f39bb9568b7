"""The operator's side of an MCP server: the hook the user gives (--instruct-cmd or
--instruct-url) that enqueues a human instruction for a session, as a person at the server's
console would. The suite never guesses one: without it the instruction cases are not testable."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import httpx

from conformance.core.outcomes import HarnessError, MissingInput
from conformance.targets.mcp.options import McpOptions
from conformance.transport.http_clients import tls_context

if TYPE_CHECKING:
    from conformance.targets.base import Harness

__all__ = ["OperatorHook"]


class OperatorHook:
    """The user's hook for enqueueing instructions, for one run."""

    def __init__(self, harness: Harness, options: Callable[[], McpOptions]) -> None:
        self.harness = harness
        self._options = options

    @property
    def can_instruct(self) -> bool:
        return bool(self._options().instruct_cmd or self._options().instruct_url)

    async def instruct(self, session_id: str, text: str, *, refusable: bool = False) -> str | None:
        """Enqueue a human instruction for a session through the operator hook the user gave. A hook
        that refuses (exits non-zero, answers 4xx) is a harness error, unless ``refusable`` (a value
        at a storage limit may be refused): then what it said, None when it took the instruction."""
        timeout = self.harness.config.timeout
        options = self._options()
        if options.instruct_cmd:
            words = [
                w.replace("{sessionId}", session_id).replace("{text}", text) for w in options.instruct_cmd
            ]
            with anyio.fail_after(timeout):
                done = await anyio.run_process(words, cwd=self.harness.config.cwd, check=False)
            if done.returncode != 0:
                said = f"--instruct-cmd exited with code {done.returncode}: {done.stderr.decode(errors='replace')[-300:]}"
                if refusable:
                    return said
                raise HarnessError(said)
            return None
        if options.instruct_url:
            url = options.instruct_url.replace("{sessionId}", session_id)
            url = url.replace("{baseUrl}", self._base_url())
            async with httpx.AsyncClient(timeout=timeout, verify=tls_context()) as client:
                response = await client.post(url, json={"sessionId": session_id, "text": text})
            if response.status_code >= 300:
                said = f"--instruct-url answered HTTP {response.status_code}: {response.text[:300]}"
                if refusable and 400 <= response.status_code < 500:
                    return said
                raise HarnessError(said)
            return None
        self.require_instruct()
        return None

    def require_instruct(self) -> None:
        if not self.can_instruct:
            raise MissingInput(
                "needs a way to enqueue human instructions from the operator's side: pass --instruct-cmd "
                "'CMD {sessionId} {text}' or --instruct-url URL"
            )

    def _base_url(self) -> str:
        url = httpx.URL(self.harness.current_url() or "http://127.0.0.1")
        return f"{url.scheme}://{url.netloc.decode()}"
