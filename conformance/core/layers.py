"""Which layer of an agent a robustness finding comes from, where the evidence tells.

An agent built on an official SDK inherits the SDK's JSON-RPC reader. When a malformed frame
kills the agent, the traceback on stderr says whose code raised; when an id comes back changed,
the change itself says which JSON parser read it. Findings name the layer, so an implementer
knows whether to fix their status handler or to put a frame guard in front of the SDK.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["GUARD_HINT", "id_layer", "stderr_layer"]

GUARD_HINT = (
    "conformance/reference/acp/guard.py is a frame guard you can copy: it answers what the SDK cannot read "
    "with -32700/-32600 and passes every other line on"
)
# (pattern on a traceback's innermost frame, what to call that layer)
_READERS = (
    (
        re.compile(r"site-packages/acp/connection\.py|/acp/connection\.py"),
        "the ACP Python SDK's JSON-RPC reader",
    ),
    (re.compile(r"site-packages/acp/"), "the ACP Python SDK"),
    (re.compile(r"node_modules/@agentclientprotocol/sdk/"), "the ACP TypeScript SDK"),
    (re.compile(r"site-packages/mcp/"), "the MCP Python SDK"),
)
_PY_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)')
_JS_FRAME = re.compile(r"at (?:(\S+) )?\(?((?:/|file://)[^):]+)")


def stderr_layer(stderr: str) -> str | None:
    """'in the ACP Python SDK's JSON-RPC reader (acp/connection.py, _process_message), not in your
    status handler' when the agent's stderr (what it wrote since the fatal request) ends with a
    traceback whose innermost frame is an SDK's own code, else None. A traceback that output
    went on after (a logged, survived error) says nothing about the crash."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    if not lines or not re.match(r"^[\w.]+(Error|Exception)\b|^\S+: |^\s*at ", lines[-1]):
        return None
    frames = [(path, func) for path, func in _PY_FRAME.findall(stderr)]
    frames += [(path, func or "") for func, path in _JS_FRAME.findall(stderr)]
    if not frames:
        return None
    path, func = _innermost(stderr)
    for pattern, layer in _READERS:
        if pattern.search(path):
            where = "/".join(path.split("/")[-2:])
            return f"in {layer} ({where}{', ' + func if func else ''}), not in your status handler"
    return None


def _innermost(stderr: str) -> tuple[str, str]:
    """The innermost frame of the last traceback (Python: its last "File" line; Node: the first
    "at" line after the last error message)."""
    py = list(_PY_FRAME.finditer(stderr))
    js = list(_JS_FRAME.finditer(stderr))
    if py and (not js or py[-1].start() > js[-1].start()):
        return py[-1].group(1), py[-1].group(2)
    last_error = max(stderr.rfind("Error"), 0)
    after = [m for m in js if m.start() > last_error] or js
    return after[0].group(2), after[0].group(1) or ""


def id_layer(sent: Any, got: Any) -> str | None:
    """Why an id came back changed, when the change shows it: an integer past 2^53 returned as
    the nearest double is a parser that reads JSON numbers as IEEE-754 doubles."""
    numbers = (int, float)
    comparable = isinstance(sent, numbers) and isinstance(got, numbers) and not isinstance(sent, bool)
    if comparable and sent != got and float(sent) == float(got):
        return (
            f"{got} is the IEEE-754 double nearest to {sent}: the agent's JSON parser reads numbers as doubles "
            "(JavaScript's JSON.parse, as in @agentclientprotocol/sdk); ACP clients keep ids within ±(2^53−1)"
        )
    return None
