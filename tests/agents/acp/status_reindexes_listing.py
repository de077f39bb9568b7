"""Sequence-only (run with --surface): status refreshes the session's session/list entry from its
stored record, so a title the extension method `_session/rename` set (kept in memory until the
session's next save) vanishes from the list.

Broken: status MUST NOT have side effects. Caught by sequence.status.model-based#twins-differ: both
twins renamed, status asked about one, and session/list shows the title of the twin nobody asked
about only.
"""

import _base

import json

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        path = self.state_dir / f"{session_id}.json"
        if path.exists():
            self.index(json.loads(path.read_text(encoding="utf-8")))
        return answer


main(Agent)
