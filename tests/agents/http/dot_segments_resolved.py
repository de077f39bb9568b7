"""Broken HTTP status service behind a front that decodes the whole path, %2F included, and
resolves its dot segments before routing (RFC 3986 5.2.4 applied to the decoded path): the id
`x/../<id>`, one percent-encoded path segment, reaches the session `<id>`. Caught by
http.boundary.encodings (rule dot-segments).
"""

import asyncio
import pathlib
import posixpath
import sys
from urllib.parse import unquote

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import create_app, serve


def resolving(app):
    async def front(scope, receive, send):
        if scope["type"] == "http":
            raw = scope.get("raw_path", b"").decode("latin-1").split("?")[0]
            path = posixpath.normpath(unquote(raw))
            if raw.endswith("/") and path != "/":
                path += "/"
            scope = dict(scope, path=path, raw_path=path.encode())
        await app(scope, receive, send)

    return front


if __name__ == "__main__":
    host, _, port = sys.argv[sys.argv.index("--listen") + 1].rpartition(":")
    asyncio.run(serve(resolving(create_app()), host, int(port)))
