"""Conforming: two allowed paths at once. Status takes the RFD's MAY path (`inactive` for any
session not in memory, without a storage lookup), and session/close frees a session entirely
(close_forgets), so a closed session resumes with -32002, as the MAY sentence says a
later resume then does. No case may blame status for the resume that fails; the cases that need a
closed session kept are n/a."""

import _base
from close_forgets import Agent as CloseForgets

from conformance.reference.acp.agent import main


class Agent(CloseForgets):
    def status_of(self, session_id):
        return self.words["active"] if session_id in self.loaded else self.words["inactive"]


main(Agent)
