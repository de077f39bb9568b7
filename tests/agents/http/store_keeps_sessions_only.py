"""Conforming HTTP status service (run with --store FILE): its store keeps the sessions across a
restart, but not the agents and model credentials they were made with (configuration the spec
says nothing of).

Defeats the assumption that what the suite made before a restart is still there: after
http.twins.restart, the next session is made with a new agent and credential instead of failing
every case after it with `POST /sessions/ -> 404: Agent not found`. Must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def read_store(self, path):
        super().read_store(path)
        self.agents.clear()
        self.credentials.clear()


if __name__ == "__main__":
    main(Service)
