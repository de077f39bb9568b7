"""What the suite's client declares in `initialize`, and how it then answers the agent.

``bare``: no file system, no terminal (the run's main connection: the suite touches no file and
runs no command). ``minimal``: only what the schema requires of `initialize` (v1: the protocol
version; v2: the version and the client's info), its optional fields left out as a client may.
``editor``: file reads and writes offered, as editors declare them; the agent's `fs/read_text_file`
and `fs/write_text_file` requests are served from files kept in memory for the connection (what the
agent wrote through it), never from the disk: a path the agent did not write is a missing file
(-32002, as editors answer one). Terminals are never offered (the suite runs no command). ACP v2
has no file-system capability: there the editor is the bare client.
"""

from __future__ import annotations

import collections
from typing import Any

from conformance.transport.peer import default_client_answer

BARE = "bare"
EDITOR = "editor"
MINIMAL = "minimal"
# Bounds on what an agent may store in the editor's memory (hostile data).
MAX_FILES = 64
MAX_FILE_CHARS = 256_000
MAX_PATH = 4096
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602


def initialize_params(profile: str, protocol: int, version: int, info: dict[str, Any]) -> dict[str, Any]:
    """The `initialize` params a client of ``profile`` sends in ACP ``protocol`` (1 or 2)."""
    if protocol == 2:  # v2 names no file access: the profiles differ only in what is left out
        return {"protocolVersion": 2, "info": info} | ({} if profile == MINIMAL else {"capabilities": {}})
    if profile == MINIMAL:
        return {"protocolVersion": version}
    files = profile == EDITOR
    capabilities = {"fs": {"readTextFile": files, "writeTextFile": files}, "terminal": False}
    return {"protocolVersion": version, "clientCapabilities": capabilities, "clientInfo": info}


class EditorFiles:
    """The editor profile's answers: files in memory, by absolute path, and what the agent asked."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.requests: collections.Counter[str] = collections.Counter()

    def answer(self, method: str, params: Any) -> tuple[Any, dict[str, Any] | None]:
        if method not in ("fs/read_text_file", "fs/write_text_file"):
            return default_client_answer(method, params)
        self.requests[method] += 1
        path = params.get("path") if isinstance(params, dict) else None
        if not isinstance(path, str) or not path or len(path) > MAX_PATH:
            return None, {"code": INVALID_PARAMS, "message": "Invalid params", "data": {"field": "path"}}
        if method == "fs/write_text_file":
            content = params.get("content")
            if not isinstance(content, str):
                return None, {
                    "code": INVALID_PARAMS,
                    "message": "Invalid params",
                    "data": {"field": "content"},
                }
            if path not in self.files and len(self.files) >= MAX_FILES:
                return None, {
                    "code": -32603,
                    "message": "Internal error",
                    "data": {"reason": "too many files"},
                }
            self.files[path] = content[:MAX_FILE_CHARS]
            return {}, None
        text = self.files.get(path)
        if text is None:
            return None, {"code": RESOURCE_NOT_FOUND, "message": "Resource not found", "data": {"path": path}}
        return {"content": _lines(text, params.get("line"), params.get("limit"))}, None

    def describe(self) -> str:
        asked = ", ".join(f"{n} {m}" for m, n in sorted(self.requests.items())) or "no file request"
        return f"{asked}; {len(self.files)} file(s) written"


def _lines(text: str, line: Any, limit: Any) -> str:
    """The part of ``text`` a read asks for: from 1-based ``line``, at most ``limit`` lines."""
    if not isinstance(line, int) and not isinstance(limit, int):
        return text
    rows = text.splitlines(keepends=True)
    start = max(line - 1, 0) if isinstance(line, int) else 0
    end = start + limit if isinstance(limit, int) and limit >= 0 else len(rows)
    return "".join(rows[start:end])
