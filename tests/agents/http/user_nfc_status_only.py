"""Broken HTTP status service: the status route normalises the caller's id to NFC before it
checks the owner, the other routes compare it as sent, so a caller whose id is the owner's in NFD
reads a session its messages say it does not own. Caught by http.boundary.encodings (rule
normalisation).
"""

import pathlib
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


def nfc(header_value):
    """The header's UTF-8 text in NFC, as the latin-1 string the server hands routes."""
    text = header_value.encode("latin-1").decode("utf-8", "replace")
    return unicodedata.normalize("NFC", text).encode("utf-8").decode("latin-1")


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        return await super().session_status(nfc(user_id), agent_id, session_id)


if __name__ == "__main__":
    main(Service)
