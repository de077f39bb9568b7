"""Conforming HTTP status service: the status route compares session ids exactly (as the spec's
plain string parameter has it), while every other route (messages, delete, chat; none of them in
the spec) trims surrounding whitespace off the id first. Defeats the assumption that a 404 on
status for "<id> " is contradicted by the messages answering 200 for it
(http.identity.session-id-variants, http.fuzz.session-id-forms): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def owned(self, user_id, agent_id, session_id):
        return super().owned(user_id, agent_id, session_id.strip())


if __name__ == "__main__":
    main(Service)
