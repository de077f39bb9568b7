"""Broken under acp-unstable-2026-11 (MUST): `saved` for never-created ids.

The RFD lets an agent answer `inactive` for any session it does not have in memory (MAY);
the SDK 2.4.0 schema has no such MAY: "A session the Agent does not know gets `-32002`".
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    words = {"active": "open", "inactive": "saved"}  # noqa: RUF012

    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            return "saved"
        return super().status_of(session_id)


main(Agent)
