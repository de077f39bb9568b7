"""A status service without AgentScope's API (no /openapi.json, nothing to create sessions with):
one session, `s1` of agent `a1`, owned by `alice`, always idle. Standard library only.

The suite can only probe the session it is given (--agent-id a1 --session-id s1); the cases that
must drive a session into a state say so (not testable).
"""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

SESSIONS = {("alice", "a1", "s1"): "idle"}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "sessions" or parts[2] != "status":
            return self.reply(404, {"detail": "Not Found"})
        agent = parse_qs(url.query).get("agent_id", [None])[0]
        user = self.headers.get("x-user-id")
        missing = [["query", "agent_id"]] if agent is None else []
        missing += [["header", "x-user-id"]] if user is None else []
        if missing:
            detail = [
                {"type": "missing", "loc": loc, "msg": "Field required", "input": None} for loc in missing
            ]
            return self.reply(422, {"detail": detail})
        assert user is not None and agent is not None
        status = SESSIONS.get((user, agent, parts[1]))
        if status is None:
            return self.reply(404, {"detail": f"Session '{parts[1]}' not found."})
        return self.reply(200, {"session_id": parts[1], "status": status})

    def reply(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
