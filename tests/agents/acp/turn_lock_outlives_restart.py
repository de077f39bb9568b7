"""Broken: a turn holds a lock file (`<id>.lock` beside the session's file) from its start to its end,
so that a second process serving the same sessions keeps off them, and status reads a locked session
as in memory somewhere: `active`. A restart that cuts a turn short never removes the lock, so after
it (a stop that cancels the turn, or a crash) the session reads `active` for good, though no process
holds it. Between turns, and after a restart between turns, it is the reference. Certified by the
suite before: it restarted the agent only between turns.

Sentence: "inactive: The Agent knows the session and can resume it, but it is not in memory." Caught
by status.inactive.after-restart#mid-turn.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def lock(self, session_id):
        return self.state_dir / f"{session_id}.lock"

    async def prompt(self, session_id, prompt, **kwargs):
        if session_id in self.loaded:
            self.lock(session_id).write_text("locked", encoding="utf-8")
        answer = await super().prompt(session_id, prompt, **kwargs)
        self.lock(session_id).unlink(missing_ok=True)  # only where the turn ends: not if it is cut short
        return answer

    def status_of(self, session_id):
        if session_id in self.known and self.lock(session_id).is_file():
            return self.words["active"]
        return super().status_of(session_id)


if __name__ == "__main__":
    main(Agent)
