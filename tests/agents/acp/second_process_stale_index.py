"""Broken (MUST): two editors open on one project run the agent's command in the same working
directory, so two processes share its store. Status looks sessions up in an index built when the
process started (and kept on create), while session/load and session/resume read the session's
file straight from disk. A session the other process made after this one started is loadable and
resumable here, yet status answers -32002 for it, until this process restarts. Blind 12,
certified before: the suite ran one agent process at a time.

Sentence: "inactive: The Agent knows the session and can resume it, but it is not in memory."
and "Unknown: the Agent does not know this session. This is returned as a -32002 error." Caught
by status.inactive.after-restart#other-process.
"""

import json

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found


class Agent(ReferenceAgent):
    def read(self, session_id):
        if session_id in self.loaded:
            return self.loaded[session_id]
        path = self.state_dir / f"{session_id}.json"
        if not self.persist or not self.fits(session_id) or "/" in session_id or not path.is_file():
            raise not_found(session_id)
        session = json.loads(path.read_text(encoding="utf-8"))
        if session_id not in self.known:  # opened here: listed too; the status index stays as built
            self.listing[session_id] = {k: session[k] for k in ("sessionId", "cwd", "updatedAt")}
        return session

    def existing(self, params):
        return self.read(self.status_params(params))


if __name__ == "__main__":
    main(Agent)
