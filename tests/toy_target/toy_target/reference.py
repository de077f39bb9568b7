"""The toy protocol's reference server (stdio). ``--forgetful``: the broken variant, which answers
``open`` for a session it never opened."""

from __future__ import annotations

import json
import sys
import uuid

UNKNOWN_SESSION = -32002


def answer(request: dict, sessions: set[str], forgetful: bool) -> dict:
    method, params = request.get("method"), request.get("params") or {}
    if method == "toy/hello":
        return {"result": {"name": "toy-reference", "version": "1.0", "capabilities": {"status": True}}}
    if method == "toy/open":
        sid = f"toy-{uuid.uuid4().hex[:12]}"
        sessions.add(sid)
        return {"result": {"id": sid}}
    if method == "toy/status":
        sid = params.get("id") if isinstance(params, dict) else None
        if not isinstance(sid, str):
            return {"error": {"code": -32602, "message": "id must be a string"}}
        if sid in sessions or forgetful:
            return {"result": {"state": "open"}}
        return {"error": {"code": UNKNOWN_SESSION, "message": "unknown session"}}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


def main() -> None:
    forgetful = "--forgetful" in sys.argv[1:]
    sessions: set[str] = set()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request:
            continue  # a notification: nothing to answer
        reply = {"jsonrpc": "2.0", "id": request["id"], **answer(request, sessions, forgetful)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
