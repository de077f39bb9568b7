"""Broken HTTP status service: an interrupt releases the run lease and marks the reply
interrupted at once, and leaves a stop flag the worker reads only between model calls; the
worker goes on reading its model's stream to the end. Meanwhile the session reads idle with a
worker at work (and a new run could start beside it). Caught by http.failure.interrupt (rule
worker).
The suite at 856482f certified it (exit 0): it interrupted runs only to clean up, never watching the status after.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def interrupt(self, session):
        task = self.runs.get(session.id)
        if task is not None and not task.done():
            self.leases.pop(session.id, None)  # the worker is told to stop; it stops after its model call
            self.finish_reply(session, "interrupted")
            self.touch(session)
            return
        await super().interrupt(session)


if __name__ == "__main__":
    main(Service)
