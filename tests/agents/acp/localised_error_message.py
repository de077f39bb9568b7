"""Conforming: the -32002 error's message is in German ("Sitzung nicht gefunden"), with the right
code and `data.sessionId`. The specs' "Resource not found" is an example of the code's meaning, not
a required wording, so a localised agent passes, under --strict too."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            raise RequestError(-32002, "Sitzung nicht gefunden", {"sessionId": session_id})
        return super().status_of(session_id)


main(Agent)
