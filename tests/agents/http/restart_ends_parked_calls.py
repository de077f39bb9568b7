"""Broken HTTP status service: at start-up, a recovery step for "runs do not outlive the process"
closes every assistant reply the store left open, the way an interrupt closes it: its waiting tool
calls finished with an "Interrupted." result. A run the old process left half-written is open, and
so is a reply parked on a permission request or an external executor, which no run holds: after a
restart or a deploy every parked session reads idle, and the user's answer is refused. Breaks "the
durable tool-call parking state (from the persisted AgentState.context)": nothing answered those
calls. Caught by http.twins.restart (rule durable). The suite of c9de112 certified it (blind round
21's http_restart_compact did the same): it let a restart end a parked call that showed a result.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def read_store(self, path):
        super().read_store(path)
        for session in self.sessions.values():
            if self.pending_calls(session):
                self.finish_reply(session, "interrupted")


if __name__ == "__main__":  # the store in the working directory, which a restart keeps
    main(Service, [*sys.argv[1:], "--store", "sessions.json"])
