"""Broken: status of a session with a turn in progress reloads its record, and the turn fails.

Status refreshes the in-memory record of a busy session from storage (a turn may have saved it
meanwhile); the turn, which checks at its end that the record it started with is still the one
in memory, then fails with an internal error instead of ending. The same turn without status
calls ends, so the failure is status's doing, not a turn that cannot be observed. Caught by
status.active.during-turn (rule turn-untouched).
"""

import json

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        if session_id in self.turns:
            path = self.state_dir / f"{session_id}.json"
            self.loaded[session_id] = json.loads(path.read_text(encoding="utf-8"))
        return await super().session_status(params)

    async def prompt(self, session_id, prompt, **kwargs):
        record = self.loaded.get(session_id)
        answer = await super().prompt(session_id, prompt, **kwargs)
        if record is not None and self.loaded.get(session_id) is not record:
            raise RequestError.internal_error({"reason": "the session record changed during the turn"})
        return answer


main(Agent)
