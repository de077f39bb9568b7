"""Conforming HTTP status service behind a front that cleans request paths, as Go's net/http
ServeMux does: a path with a dot segment ("." or "..", percent-encoded or not: RFC 3986 6.2.2.2
makes %2E a ".") is answered 301 to the path with the segment removed (RFC 3986 5.2.4), before any
route sees it. Defeats the assumption that the session id ".." reaches the status route
(http.types.odd-values, rule session-id): must pass.
"""

import asyncio
import posixpath
from urllib.parse import unquote

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import create_app, serve


def cleaning_paths(app):
    async def front(scope, receive, send):
        if scope["type"] == "http":
            raw = scope.get("raw_path", b"").decode("latin-1").split("?")[0]
            segments = [unquote(s) for s in raw.split("/")]
            if any(s in (".", "..") for s in segments):
                cleaned = posixpath.normpath("/".join(segments))
                headers = [(b"location", cleaned.encode()), (b"content-length", b"0")]
                await send({"type": "http.response.start", "status": 301, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return front


if __name__ == "__main__":
    host, _, port = sys.argv[sys.argv.index("--listen") + 1].rpartition(":")
    asyncio.run(serve(cleaning_paths(create_app()), host, int(port)))
