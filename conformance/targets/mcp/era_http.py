"""MCP's Streamable HTTP headers in either era, and the reachability probe, for the SDK's client.

The SDK's ``streamable_http_client`` sends each message with the headers its metadata carries
(and keeps sending the last ``MCP-Protocol-Version`` it was given). :class:`EraHeaders` says,
message by message, which: a request carrying the stateless era's envelope gets
``MCP-Protocol-Version`` (the envelope's version), ``Mcp-Method``, ``Mcp-Name`` for the methods
that name something, and ``Mcp-Param-*`` for the arguments a tool's schema marks with
``x-mcp-header`` (learnt from the ``tools/list`` answers this connection relays); a message of
the handshake era, once ``initialize`` was answered, gets the negotiated ``MCP-Protocol-Version``.
The session id, the GET stream and the closing DELETE stay the SDK client's: it opens none of
them without an ``initialize`` answer carrying ``Mcp-Session-Id``, so the stateless era has none.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)

from conformance.core.outcomes import HarnessError
from conformance.targets.mcp.era import HANDSHAKE_VERSIONS, MODERN, envelope, is_enveloped
from conformance.transport.http_clients import tls_context

__all__ = ["EraHeaders", "probe"]

# Spelt as the SDK's client looks them up (HTTP header names are case-insensitive on the wire).
PROTOCOL_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER
METHOD_HEADER = MCP_METHOD_HEADER
NAME_HEADER = MCP_NAME_HEADER
MAX_PENDING = 1000  # request ids remembered until their answer (a server that never answers some)
MAX_TOOLS = 200  # tools whose Mcp-Param-* headers are learnt


class EraHeaders:
    """The headers each message of one connection goes with, learnt from what it sends and gets."""

    def __init__(self) -> None:
        self.negotiated: str | None = None  # the handshake era's version, once initialize answered
        self.param_headers: dict[str, dict[tuple[str, ...], str]] = {}  # tool -> x-mcp-header map
        self._asked: dict[str, str] = {}  # request id (as JSON) -> method, until answered

    def outgoing(self, frame: Any) -> dict[str, str] | None:
        """The headers for a message about to be sent (None: the client's defaults)."""
        if not isinstance(frame, dict):
            return None
        method, params = frame.get("method"), frame.get("params")
        if "id" in frame and isinstance(method, str):
            if len(self._asked) >= MAX_PENDING:
                self._asked.pop(next(iter(self._asked)))
            self._asked[_key(frame["id"])] = method
        version = is_enveloped(params)
        if method == "initialize":
            self.negotiated = None  # a new handshake: the SDK client sends it without the header
            return None
        if version is not None and isinstance(method, str) and isinstance(params, dict):  # as enveloped
            return self.stateless(method, params, version)
        if self.negotiated is not None:
            return {PROTOCOL_VERSION_HEADER: self.negotiated}
        return None

    def stateless(self, method: str, params: dict[str, Any], version: str) -> dict[str, str]:
        headers = {PROTOCOL_VERSION_HEADER: version, METHOD_HEADER: method}
        name_key = NAME_BEARING_METHODS.get(method)
        name = params.get(name_key) if name_key is not None else None
        if isinstance(name, str):
            headers[NAME_HEADER] = encode_header_value(name)
        arguments = params.get("arguments")
        header_map = self.param_headers.get(name) if isinstance(name, str) else None
        if method == "tools/call" and header_map and isinstance(arguments, dict):
            headers.update(mcp_param_headers(header_map, arguments))
        return headers

    def incoming(self, frame: Any) -> None:
        """Learn from an answer: the version initialize negotiated, the tools' x-mcp-header marks."""
        if not isinstance(frame, dict) or "id" not in frame or "method" in frame:
            return
        method = self._asked.pop(_key(frame["id"]), None)
        result = frame.get("result")
        if not isinstance(result, dict):
            return
        if method == "initialize" and result.get("protocolVersion") in HANDSHAKE_VERSIONS:
            self.negotiated = result["protocolVersion"]
        elif method == "tools/list" and isinstance(result.get("tools"), list):
            for tool in result["tools"][:MAX_TOOLS]:
                self._learn(tool)

    def _learn(self, tool: Any) -> None:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            return
        schema = tool.get("inputSchema")
        # A schema whose marks are invalid validates nothing: a conforming client sends none.
        if isinstance(schema, dict) and find_invalid_x_mcp_header(schema) is None:
            marks = x_mcp_header_map(schema)
            if marks:
                self.param_headers[tool["name"]] = marks
                return
        self.param_headers.pop(tool["name"], None)


def _key(request_id: Any) -> str:
    try:
        return json.dumps(request_id, sort_keys=True)
    except (TypeError, ValueError):
        return repr(request_id)


async def probe(url: str, headers: dict[str, str], timeout: float) -> None:
    """HarnessError unless something answers at ``url``: a POST of ``server/discover``, a request
    every MCP server answers without opening anything (a stateless-era server with its result, a
    handshake-era one with a refusal); any HTTP status will do, and only the status is read. Not a
    GET, which a server may hold open (the SDK's ``stateless_http`` servers do)."""
    body = {
        "jsonrpc": "2.0",
        "id": "conformance-reachability",
        "method": "server/discover",
        "params": {"_meta": envelope(MODERN)},
    }
    sent = {
        **headers,
        "Accept": "application/json, text/event-stream",
        PROTOCOL_VERSION_HEADER: MODERN,
        METHOD_HEADER: "server/discover",
    }
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, verify=tls_context()) as client,
            client.stream("POST", url, json=body, headers=sent),
        ):
            return
    except httpx.TimeoutException:
        raise HarnessError(f"cannot reach {url}: no answer in {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise HarnessError(f"cannot reach {url}: {str(exc) or type(exc).__name__}") from None
