"""Conforming HTTP status service: the detail of its 404 is
written in the user's language (German under Accept-Language: de), as the RFD's "Resource not
found" is only an example of a message; the status words stay the protocol's. Defeats the
assumption that an error body is the same under every language: must pass.
"""

import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, create_app, serve
from fastapi.responses import JSONResponse

LANGUAGE = contextvars.ContextVar("language", default="")


class Service(ReferenceService):
    def not_found(self, session_id):
        if LANGUAGE.get() == "de":
            return JSONResponse({"detail": f"Sitzung '{session_id}' nicht gefunden."}, status_code=404)
        return super().not_found(session_id)


def remembering_language(app):
    async def front(scope, receive, send):
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
            LANGUAGE.set(header.split(",")[0].split("-")[0].split(";")[0].strip().lower())
        await app(scope, receive, send)

    return front


if __name__ == "__main__":
    import asyncio

    host, _, port = sys.argv[sys.argv.index("--listen") + 1].rpartition(":")
    service = Service()
    service.configure()
    asyncio.run(serve(remembering_language(create_app(service)), host, int(port)))
