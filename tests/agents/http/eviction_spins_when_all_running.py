"""Broken HTTP status service: its least-recently-used cap (--memory-cap) lists the loaded sessions no
run holds, then evicts from that list until the loaded sessions fit; when every loaded session has a
run going the list is empty, and the loop never ends. The whole service stops answering, its status
route included, once a session is used while more runs go than the cap.

Caught by http.state.runs-past-memory-cap (with --http-memory-cap N, N + 1 runs held at once and
one more session used). The old suite (265e177) certified it: its memory pressure never ran more
runs at once than the cap.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def evict_over_cap(self) -> None:
        if self.memory_cap is None:
            return
        idle = [sid for sid in self.loaded if not self.lease_held(sid)]
        while len(self.loaded) > self.memory_cap:
            if idle:
                self.evict(idle.pop(0))


if __name__ == "__main__":
    main(Service)
