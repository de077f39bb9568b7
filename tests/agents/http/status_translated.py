"""Broken HTTP status service: the status word is translated for the user's language (German
under Accept-Language: de, French under fr), as a service does that renders the same enum for its
own web page. The status is a protocol value, one of the four; a client sending its browser's
language reads "untätig". Caught by http.protocol.language.
The suite at 856482f certified it (exit 0): it never sent Accept-Language.
"""

import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, create_app, serve
from fastapi.responses import JSONResponse

WORDS = {
    "de": {"idle": "untätig", "running": "läuft", "awaiting_permission": "wartet_auf_erlaubnis"},
    "fr": {"idle": "inactif", "running": "en_cours", "awaiting_permission": "attend_permission"},
}
LANGUAGE = contextvars.ContextVar("language", default="")


class Service(ReferenceService):
    def status_body(self, session, session_id, status):
        words = WORDS.get(LANGUAGE.get(), {})
        return JSONResponse({"session_id": session_id, "status": words.get(status, status)})


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
