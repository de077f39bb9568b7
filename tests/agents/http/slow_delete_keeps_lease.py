"""Broken HTTP status service, as deleted_run_keeps_lease (a session deleted while it runs reads
running until the run ends), on a slow store: a DELETE takes effect 4.5 s after it is answered,
longer than the run's 3 s model call. By the time the deleted session's status can be asked, the
lease has gone: the case cannot see the bug, and must say so (not testable), never pass it.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _later import later
from deleted_run_keeps_lease import Service as KeepsLease

from conformance.reference.http.service import main


class Service(KeepsLease):
    async def delete(self, user_id, agent_id, session_id):
        self.owned(user_id, agent_id, session_id)  # a 404 for a session that is not the caller's
        later(self, 4.5, lambda: KeepsLease.delete(self, user_id, agent_id, session_id))


if __name__ == "__main__":
    main(Service)
