"""Broken HTTP status service: a revalidation that matches (If-None-Match with the current ETag,
answered 304) is taken for the client's sign of life and saves the session back (its updated_at
moves, so the listing reorders). A plain GET changes nothing, so the old probes never showed it;
a client whose cache revalidates does. Caught by http.twins.sequence (rule probed): the probed
twin's updated_at moves while its twin's does not.
The suite at 856482f certified it (exit 0): it never revalidated a status.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        answer = super().revalidated(request, response)
        if answer.status_code == 304:
            session = self.find(json.loads(bytes(response.body))["session_id"])
            if session is not None:
                self.touch(session)
        return answer


if __name__ == "__main__":
    main(Service)
