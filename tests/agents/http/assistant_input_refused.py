"""Conforming HTTP status service: POST /chat/ refuses a client-sent assistant-role message (400),
which no sentence of the status spec forbids. http.state.parked-only-by-tool-calls, which needs
such a message, must say not testable, never fail it.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.models import BadInput
from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def user_message(self, msg):
        if isinstance(msg, dict) and msg.get("role") not in (None, "user"):
            raise BadInput("only user messages are accepted as input")
        return super().user_message(msg)


if __name__ == "__main__":
    main(Service)
