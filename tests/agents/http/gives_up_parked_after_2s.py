"""Conforming HTTP status service: a permission request nobody answers within 2 s is given up (its
tool call finished as interrupted, in the messages too), so the session reads idle from then on.
Defeats the assumption that a parked state lasts the whole hold (http.later.states-hold): must
pass.
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

GIVE_UP_AFTER = 2.0


class Service(ReferenceService):
    async def run(self, session, token):
        await super().run(session, token)
        if super().parked_status(session) == "awaiting_permission":
            reply = self.last_reply(session)
            asyncio.get_running_loop().call_later(GIVE_UP_AFTER, self.give_up, session, reply)

    def give_up(self, session, reply):
        if self.last_reply(session) is reply and self.parked_status(session) == "awaiting_permission":
            self.finish_reply(session, "interrupted")
            self.touch(session)


if __name__ == "__main__":
    main(Service)
