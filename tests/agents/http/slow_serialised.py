"""Conforming HTTP status service: one request is handled at a time (--max-concurrent 1, the others
wait their turn) and each status takes 20 ms more, as a service on one slow worker does. Defeats the
assumption that probes sent together are answered together (bursts, races, siblings, twins): must
pass.
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        await asyncio.sleep(0.02)
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--max-concurrent", "1"])
