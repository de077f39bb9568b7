"""Conforming HTTP status service: session ids compare case-insensitively on every route (status,
messages, chat, delete), so the upper-cased id is the same session everywhere. Defeats the
assumption that an id in another case is another session (http.identity.session-id-variants): must
pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def find(self, session_id):
        return next((s for k, s in self.sessions.items() if k.casefold() == session_id.casefold()), None)


if __name__ == "__main__":
    main(Service)
