"""MCP's two protocol eras, chosen and spoken as the official SDK (mcp 2.3) chooses and speaks them.

- The handshake era (2024-11-05 … 2025-11-25): ``initialize``, then ``notifications/initialized``;
  over Streamable HTTP a protocol session (``Mcp-Session-Id``) and ``MCP-Protocol-Version`` on
  every request after the handshake.
- The stateless era (2026-07-28, SEP-2575): no ``initialize``, no protocol session, no ``ping``.
  ``server/discover`` says what the server offers (capabilities, ``supportedVersions``, and its
  identity in ``_meta["io.modelcontextprotocol/serverInfo"]``); every request carries the
  envelope under ``params._meta`` (protocol version, client info, client capabilities) and,
  over HTTP, the headers ``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name`` (and
  ``Mcp-Param-*`` where a tool's schema asks for them).

``--mcp-protocol auto`` does what the SDK's ``Client(mode="auto")`` does (mcp/client/_probe.py):
``server/discover`` at 2026-07-28 first, ``initialize`` as the fallback for any answer that is
not a modern server's; and the other way round, an ``initialize`` refused with -32022 naming a
modern version sends one more ``server/discover``. The session_heartbeat tool's contract does not
depend on the era: its ``sessionId`` argument is already a state handle (SEP-2567).

Everything a server says here is hostile data: lists and strings are bounded before they reach
a report. The SDK is not imported: this module is loaded by every run, whatever its target.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.core.outcomes import HarnessError, Unanswered

__all__ = [
    "AUTO",
    "BOTH",
    "CHOICES",
    "CLIENT_INFO",
    "HANDSHAKE_VERSIONS",
    "MODERN",
    "MODERN_VERSIONS",
    "SERVER_INFO_KEY",
    "SPEC_WIRE",
    "Era",
    "envelope",
    "identity",
    "is_enveloped",
    "negotiate",
    "stamp",
]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
MODERN = MODERN_VERSIONS[-1]
SPEC_WIRE = "2025-06-18"  # the revision the tool's spec is headed with: what initialize asks for
AUTO, BOTH = "auto", "both"
CHOICES = (AUTO, SPEC_WIRE, MODERN, BOTH)
CLIENT_INFO = {"name": "session-status-conformance", "version": "0.1.0"}
# The reserved `_meta` keys (mcp_types/_types.py).
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
UNSUPPORTED_PROTOCOL_VERSION = -32022
OPTION = "--mcp-protocol"
# Bounds on what a server says of itself before it reaches a report.
MAX_VERSIONS = 16
MAX_TEXT = 200
MAX_JSON = 4000


@dataclass
class Era:
    """The wire revision a connection speaks, and what the server said while it was chosen."""

    version: str  # the wire revision: "2026-07-28", or the one initialize negotiated
    chosen: str  # how it was chosen, in words (the option, or what auto saw)
    supported: list[str] = field(default_factory=list)  # what the server said it speaks
    server_info: dict[str, Any] | None = None  # bounded; None: the server did not say
    capabilities: Any = None  # bounded
    result: dict[str, Any] = field(default_factory=dict)  # the deciding answer, as sent (for the cases)

    @property
    def modern(self) -> bool:
        return self.version in MODERN_VERSIONS

    @property
    def handshake(self) -> str:
        return "server/discover" if self.modern else "initialize"

    def to_json(self) -> dict[str, Any]:
        """The report's ``wire`` object: the protocol revision spoken, apart from the tool's spec."""
        return {
            "protocol": "mcp",
            "revision": self.version,
            "era": "stateless (2026)" if self.modern else "handshake (2025)",
            "handshake": self.handshake,
            "chosen": self.chosen,
            "serverSupports": self.supported,
        }


def envelope(version: str) -> dict[str, Any]:
    """The per-request `_meta` keys of the stateless era."""
    return {
        PROTOCOL_VERSION_KEY: version,
        CLIENT_INFO_KEY: dict(CLIENT_INFO),
        CLIENT_CAPABILITIES_KEY: {},
    }


def stamp(params: Any, version: str) -> dict[str, Any]:
    """``params`` with the envelope under ``_meta``, merged with any ``_meta`` a case set (the
    case's own keys win: a case that sends another envelope means to)."""
    stamped = dict(params) if isinstance(params, dict) else {}
    own = stamped.get("_meta")
    stamped["_meta"] = {**envelope(version), **(own if isinstance(own, dict) else {})}
    return stamped


def is_enveloped(params: Any) -> str | None:
    """The protocol version a request's envelope names, or None for a request of the handshake era."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def identity(result: Any) -> dict[str, Any] | None:
    """The server's identity a stateless-era result carries in ``_meta`` (bounded), or None."""
    meta = result.get("_meta") if isinstance(result, dict) else None
    info = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
    return _bounded_info(info)


def _bounded_info(info: Any) -> dict[str, Any] | None:
    if not isinstance(info, dict):
        return None
    kept = {
        k: v[:MAX_TEXT] for k, v in info.items() if k in ("name", "version", "title") and isinstance(v, str)
    }
    return kept or {"unreadable": _bounded_json(info)}


def _bounded_json(value: Any) -> Any:
    """``value`` if its JSON is short, else a note of its size (a report is no place for megabytes)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)[:MAX_TEXT]
    return value if len(text) <= MAX_JSON else f"(not shown: {len(text)} characters of JSON)"


def _versions(value: Any) -> list[str] | None:
    """A list of version strings as a server sent it (bounded), or None when it sent no list."""
    if not isinstance(value, list):
        return None
    return [v[:32] for v in value[:MAX_VERSIONS] if isinstance(v, str)]


def _supported_of(error: Any) -> list[str] | None:
    """``error.data.supported`` of a -32022 answer (bounded), or None when it names none."""
    data = error.get("data") if isinstance(error, dict) else None
    return _versions(data.get("supported")) if isinstance(data, dict) else None


def _eras_of(versions: list[str]) -> str:
    eras = []
    if any(v in HANDSHAKE_VERSIONS for v in versions):
        eras.append("the handshake era (initialize)")
    if any(v in MODERN_VERSIONS for v in versions):
        eras.append("the stateless era (server/discover)")
    return " and ".join(eras) if eras else "no revision the suite knows"


SUITE_SPEAKS = (
    f"MCP {HANDSHAKE_VERSIONS[0]} to {HANDSHAKE_VERSIONS[-1]} through initialize and MCP {MODERN} through "
    "server/discover"
)


def refusal(method: str, asked: str, reply: Any) -> str:
    """A handshake refused, in plain words: which eras each side speaks, and the option to pass."""
    answer = reply.describe(200)
    if reply.code == UNSUPPORTED_PROTOCOL_VERSION:
        supported = _supported_of(reply.error)
        if not supported:
            return (
                f"the server does not speak MCP {asked}: it refused {method} with -32022 (Unsupported protocol "
                f"version) without naming the revisions it speaks; the suite speaks {SUITE_SPEAKS}. Its answer: "
                f"{answer}"
            )
        if method == "initialize" and any(v in MODERN_VERSIONS for v in supported):
            advice = (
                f"pass {OPTION} {MODERN}, or {AUTO} (the default), which tries server/discover first as the "
                "official SDK's client does"
            )
        elif method == "server/discover" and any(v in HANDSHAKE_VERSIONS for v in supported):
            advice = f"pass {OPTION} {SPEC_WIRE}, or {AUTO} (the default), which falls back to initialize"
        else:
            advice = f"none of them is a revision the suite speaks ({SUITE_SPEAKS})"
        return (
            f"the server does not speak MCP {asked}: it refused {method} with -32022 (Unsupported protocol "
            f"version) and speaks {', '.join(supported)}, {_eras_of(supported)}. The suite speaks both eras: "
            f"{advice}. Its answer: {answer}"
        )
    if method == "server/discover":
        return (
            f"the server does not answer server/discover, the first request of MCP {MODERN} (the stateless "
            f"era): {answer}. If it speaks the handshake era, pass {OPTION} {SPEC_WIRE}, or {AUTO} (the "
            "default), which falls back to initialize"
        )
    return f"the server answered {method} with {answer}"


Send = Callable[[str, Any], Awaitable[Any]]  # (method, params) -> a Reply (ok, result, error, code, describe)


async def negotiate(
    preference: str,
    send: Send,
    notify: Callable[[str], Awaitable[None]],
    *,
    forgive: Callable[[Unanswered], None] | None = None,
) -> Era:
    """Choose the era as ``--mcp-protocol`` says and open it: the handshake (``initialize`` and
    ``notifications/initialized``) or ``server/discover``. Raises HarnessError, in plain words,
    when the server speaks no era the preference allows. ``forgive``: called when an ``auto``
    probe goes unanswered, before the fallback (the connection must accept more requests)."""
    if preference == SPEC_WIRE:
        return await _handshake(send, notify, f"chosen with {OPTION} {SPEC_WIRE}")
    if preference == MODERN:
        reply = await _discover(send, MODERN)
        era = _modern_era(reply, MODERN, f"chosen with {OPTION} {MODERN}")
        if era is None:
            raise HarnessError(refusal("server/discover", MODERN, reply))
        return era
    return await _auto(send, notify, forgive)


async def _auto(
    send: Send, notify: Callable[[str], Awaitable[None]], forgive: Callable[[Unanswered], None] | None
) -> Era:
    version = MODERN
    for attempt in range(2):
        try:
            reply = await _discover(send, version)
        except Unanswered as exc:
            if forgive is None:
                raise
            forgive(exc)  # no answer is no modern server: the handshake era, as the SDK falls back
            return await _handshake(
                send, notify, f"{AUTO}: server/discover got no answer ({exc.why})", auto=True
            )
        era = _modern_era(reply, version, f"{AUTO}: server/discover answered")
        if era is not None:
            return era
        why = _fallback_reason(reply)
        if not reply.ok and reply.code == UNSUPPORTED_PROTOCOL_VERSION:
            supported = _supported_of(reply.error)
            mutual = [v for v in MODERN_VERSIONS if v in (supported or ())]
            if mutual and attempt == 0 and mutual[-1] != version:
                version = mutual[-1]
                continue
            if supported is not None and not any(v in HANDSHAKE_VERSIONS for v in supported):
                raise HarnessError(refusal("server/discover", version, reply))
        try:
            return await _handshake(send, notify, f"{AUTO}: {why}", auto=True)
        except _RefusedModern as refused:
            if attempt != 0:
                raise HarnessError(refused.message) from None
            # -32022 naming a modern version: the server is modern after all (a probe answered
            # late locked the connection, as the SDK's _probe.py says); one more server/discover.
            version = refused.mutual
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


class _RefusedModern(HarnessError):
    def __init__(self, message: str, mutual: str) -> None:
        super().__init__(message)
        self.mutual = mutual


async def _discover(send: Send, version: str) -> Any:
    return await send("server/discover", {"_meta": envelope(version)})


def _modern_era(reply: Any, version: str, chosen: str) -> Era | None:
    """The stateless era from a server/discover answer, or None when it is no modern server's."""
    if not reply.ok or not isinstance(reply.result, dict):
        return None
    supported = _versions(reply.result.get("supportedVersions"))
    if supported is None or not isinstance(reply.result.get("capabilities"), dict):
        return None  # not a DiscoverResult: no evidence of a modern server
    mutual = [v for v in MODERN_VERSIONS if v in supported]
    if not mutual:
        return None  # lists only handshake-era revisions: a legacy advertisement (the SDK falls back)
    return Era(
        version=mutual[-1],
        chosen=f"{chosen}, supportedVersions {', '.join(supported)}",
        supported=supported,
        server_info=identity(reply.result),
        capabilities=_bounded_json(reply.result.get("capabilities")),
        result=reply.result,
    )


def _fallback_reason(reply: Any) -> str:
    if reply.ok:
        result = reply.result if isinstance(reply.result, dict) else {}
        listed = _versions(result.get("supportedVersions"))
        if listed is not None and isinstance(result.get("capabilities"), dict):
            return f"server/discover lists no stateless-era revision ({', '.join(listed) or 'none'})"
        return "server/discover answered with no DiscoverResult"
    return f"server/discover was refused ({reply.describe(120)})"


async def _handshake(
    send: Send, notify: Callable[[str], Awaitable[None]], chosen: str, *, auto: bool = False
) -> Era:
    """initialize and notifications/initialized. ``auto``: a -32022 naming a modern revision is
    _RefusedModern (the caller probes once more), not the end."""
    params = {"protocolVersion": SPEC_WIRE, "capabilities": {}, "clientInfo": dict(CLIENT_INFO)}
    reply = await send("initialize", params)
    if not reply.ok or not isinstance(reply.result, dict):
        message = refusal("initialize", SPEC_WIRE, reply)
        supported = _supported_of(reply.error) if not reply.ok else None
        mutual = [v for v in MODERN_VERSIONS if v in (supported or ())]
        if reply.code == UNSUPPORTED_PROTOCOL_VERSION and mutual and auto:
            raise _RefusedModern(message, mutual[-1])
        raise HarnessError(message)
    version = reply.result.get("protocolVersion")
    if version not in HANDSHAKE_VERSIONS:
        raise HarnessError(
            f"the server answered initialize with protocolVersion {str(version)[:40]!r}; the suite speaks "
            f"{', '.join(HANDSHAKE_VERSIONS)} through initialize (asked for {SPEC_WIRE})"
        )
    await notify("notifications/initialized")
    return Era(
        version=version,
        chosen=f"{chosen}; initialize answered {version}",
        supported=[version],
        server_info=_bounded_info(reply.result.get("serverInfo")),
        capabilities=_bounded_json(reply.result.get("capabilities")),
        result=reply.result,
    )
