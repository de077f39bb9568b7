"""Broken HTTP status service: sessions are kept in a store across restarts, with the set of
sessions that were active (a run going) when the service stopped; at start-up it recovers them by
interrupting their turn. A status probe marks the session active, as a resume does, so a watched
session waiting for permission has its tool call interrupted by the next restart while an unwatched
one still waits. Caught by http.twins.restart (rule probed).
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.active = set()

    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        if answer.status_code == 200:
            self.active.add(session_id)
        return answer

    def write_store(self, path):
        super().write_store(path)
        with open(f"{path}.active", "w", encoding="utf-8") as out:
            json.dump(sorted(self.active | set(self.runs)), out)

    def read_store(self, path):
        super().read_store(path)
        if os.path.exists(f"{path}.active"):
            with open(f"{path}.active", encoding="utf-8") as source:
                for sid in json.load(source):
                    session = self.sessions.get(sid)
                    if session is not None:
                        self.finish_reply(session, "interrupted")


if __name__ == "__main__":  # the store in the working directory, which a restart keeps
    main(Service, [*sys.argv[1:], "--store", "sessions.json"])
