"""Broken HTTP status service: the status route folds the session id to NFKC (the other routes
compare exactly), so the id in fullwidth letters reads the session's status while its messages are
404. The scripted forms (case, prefix, a trailing space) are their own NFKC forms, so only the
generated forms catch it: http.fuzz.session-id-forms.
"""

import pathlib
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        return await super().session_status(user_id, agent_id, unicodedata.normalize("NFKC", session_id))


if __name__ == "__main__":
    main(Service)
