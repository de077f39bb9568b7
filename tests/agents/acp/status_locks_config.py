"""Sequence-only (run with --surface): status takes the session's settings lock to read a
consistent view and never releases it on its read-only path, so a later
`session/set_config_option` is refused as if another change were in progress.

Broken: status MUST NOT have side effects. Caught by sequence.status.model-based#twins-differ: after
status about one twin, the same config option set on both succeeds only on the twin nobody asked
about.
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.settings_locked: set[str] = set()

    def status_of(self, session_id):
        if session_id in self.loaded:
            self.settings_locked.add(session_id)
        return super().status_of(session_id)

    async def set_config_option(self, params):
        if isinstance(params, dict) and params.get("sessionId") in self.settings_locked:
            raise RequestError.internal_error({"reason": "a settings change is in progress"})
        return await super().set_config_option(params)


main(Agent)
