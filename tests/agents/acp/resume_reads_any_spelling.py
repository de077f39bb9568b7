"""Broken, MUST: status looks ids up in its index, but resume and load read the session's file by
whatever id they are given, so `./sess_…` (a spelling status calls unknown, -32002) resumes the
session: status says the agent does not know an id the agent then serves."""

import json

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found


class Agent(ReferenceAgent):
    def read(self, session_id):
        if session_id in self.loaded:
            return self.loaded[session_id]
        path = self.state_dir / f"{session_id}.json"
        if not path.is_file():
            raise not_found(session_id)
        return json.loads(path.read_text(encoding="utf-8"))


main(Agent)
