"""The MCP target's own options: how to reach the heartbeat tool and its operator side."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any

from conformance.core.config import UsageError, absolutize_paths, parse_headers

__all__ = [
    "REFERENCE_CALLERS",
    "REFERENCE_INSTRUCT_CMD",
    "REFERENCE_INSTRUCT_URL",
    "McpOptions",
    "reference_command",
]

REFERENCE_INSTRUCT_CMD = "{python} -m conformance.reference.mcp.instruct {{sessionId}} {{text}}"
REFERENCE_INSTRUCT_URL = "{baseUrl}/operator/instructions"
# The embedded reference server over HTTP names its callers by their Authorization header.
REFERENCE_CALLERS = ({"Authorization": "Bearer conformance-a"}, {"Authorization": "Bearer conformance-b"})
# Bounds of the policies a user can state: each twin case waits a TTL, or makes about three times
# the cap or the limit in calls.
MAX_TTL = 600.0
MAX_CAP = 5000
MAX_REQUESTS = 2000


def reference_command(transport: str = "stdio", values: dict[str, Any] | None = None) -> list[str]:
    """The embedded reference server (official MCP Python SDK), on stdio or Streamable HTTP."""
    if transport == "websocket":
        raise UsageError("MCP servers are reached over stdio or Streamable HTTP: --transport stdio or http")
    command = [sys.executable, "-m", "conformance.reference.mcp.server"]
    return command + (["--http", "127.0.0.1:0"] if transport == "http" else [])


@dataclass
class McpOptions:
    """How to reach an MCP server's `session_heartbeat` and its operator side (--mcp-* options)."""

    headers: dict[str, str] = field(default_factory=dict)  # caller A (--header)
    other_headers: dict[str, str] | None = None  # caller B (--other-header), for the access cases
    instruct_cmd: list[str] | None = None  # words, with {sessionId} and {text} placeholders
    instruct_url: str | None = None  # with {sessionId} / {baseUrl} placeholders; POST {"sessionId", "text"}
    instructions_path: str | None = None  # JSON Pointer into the result; None: recognise common names
    cursor_path: str | None = None
    instruction_id_path: str | None = None  # JSON Pointer into an instruction item; None: common names
    delivery_wait: float | None = None  # seconds an enqueued instruction may take to show; None: --timeout
    # The server's own policies, as the user states them (the twin cases need them; None: unknown).
    session_ttl: float | None = None  # a session no heartbeat used for this long is forgotten
    session_cap: int | None = None  # sessions kept; one more evicts the least recently used
    request_limit: int | None = None  # heartbeats a session may make (in a window longer than a case)
    protocol: str = "auto"  # --mcp-protocol: auto, 2025-06-18, 2026-07-28 (both: the command line's)

    @classmethod
    def from_options(
        cls,
        *,
        headers: list[str],
        other_headers: list[str],
        instruct_cmd: str | None,
        instruct_url: str | None,
        instructions_path: str | None,
        cursor_path: str | None,
        embedded: bool,
        transport: str,
        instruction_id_path: str | None = None,
        delivery_wait: float | None = None,
        session_ttl: float | None = None,
        session_cap: int | None = None,
        request_limit: int | None = None,
        protocol: str = "auto",
    ) -> McpOptions:
        _check_pointers(instructions_path, cursor_path, instruction_id_path)
        _check_policies(delivery_wait, session_ttl, session_cap, request_limit)
        words = _instruct_words(instruct_cmd)
        if instruct_url is not None and not re.match(r"^(https?://|\{baseUrl\})\S*$", instruct_url):
            raise UsageError(f"--instruct-url {instruct_url!r} is not an http:// URL (or {{baseUrl}}/…)")
        options = cls(
            headers=parse_headers(headers, "--header"),
            other_headers=parse_headers(other_headers, "--other-header") if other_headers else None,
            instruct_cmd=words,
            instruct_url=instruct_url,
            instructions_path=instructions_path,
            cursor_path=cursor_path,
            instruction_id_path=instruction_id_path,
            delivery_wait=delivery_wait,
            session_ttl=session_ttl,
            session_cap=session_cap,
            request_limit=request_limit,
            protocol=protocol,
        )
        if embedded:
            options._reach_reference(transport, bool(instruct_cmd or instruct_url), headers, other_headers)
        return options

    def _reach_reference(
        self, transport: str, operator_given: bool, headers: list[str], other_headers: list[str]
    ) -> None:
        """The embedded reference server's operator side and callers, where the user named none."""
        if not operator_given:
            if transport == "http":
                self.instruct_url = REFERENCE_INSTRUCT_URL
            else:
                self.instruct_cmd = shlex.split(
                    REFERENCE_INSTRUCT_CMD.format(python=shlex.quote(sys.executable))
                )
        if transport == "http" and not headers and other_headers == []:
            self.headers, self.other_headers = dict(REFERENCE_CALLERS[0]), dict(REFERENCE_CALLERS[1])


def _check_pointers(
    instructions_path: str | None, cursor_path: str | None, instruction_id_path: str | None
) -> None:
    for name, pointer in (
        ("--instructions-path", instructions_path),
        ("--cursor-path", cursor_path),
        ("--instruction-id-path", instruction_id_path),
    ):
        if pointer is not None and not (pointer == "" or pointer.startswith("/")):
            raise UsageError(f"{name} {pointer!r} is not a JSON Pointer: write it like /instructions")


def _check_policies(
    delivery_wait: float | None, session_ttl: float | None, session_cap: int | None, request_limit: int | None
) -> None:
    """The waits and policies the user states, within what the cases can wait for and call."""
    if delivery_wait is not None and not delivery_wait > 0:
        raise UsageError(f"--delivery-wait {delivery_wait} must be a positive number of seconds")
    if session_ttl is not None and not 0 < session_ttl <= MAX_TTL:
        raise UsageError(
            f"--mcp-session-ttl {session_ttl:g} must be a positive number of seconds, at most {MAX_TTL:g}"
        )
    # A cap of one session still orders two twins (the newer one evicts the older); an allowance
    # of one heartbeat leaves a session no read after the call that made it.
    for name, count, least, most in (
        ("--mcp-session-cap", session_cap, 1, MAX_CAP),
        ("--mcp-request-limit", request_limit, 2, MAX_REQUESTS),
    ):
        if count is not None and not least <= count <= most:
            raise UsageError(
                f"{name} {count} must be a whole number from {least} to {most} (the suite makes that many calls)"
            )


def _instruct_words(instruct_cmd: str | None) -> list[str] | None:
    """--instruct-cmd split into words, its relative paths made absolute."""
    if instruct_cmd is None:
        return None
    try:
        words = shlex.split(instruct_cmd)
    except ValueError as exc:
        raise UsageError(f"--instruct-cmd cannot be split into words: {exc}") from None
    if not words or "{text}" not in instruct_cmd:
        raise UsageError("--instruct-cmd needs a command with {text} (and usually {sessionId}) in it")
    return absolutize_paths(words)
