"""Broken HTTP status service: its store is written as an upsert (each session the service holds
is written over its stored record; a record the service no longer holds is left as it was, so
records of sessions evicted from memory are never lost), and nothing removes the record of a
deleted session: after a restart the session comes back and its status answers 200. Breaks "404
if the session does not exist". Caught by http.twins.restart (rule durable), which deletes a
session before the restart it makes; http.later.deleted, without a restart, sees it gone.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def write_store(self, path):
        super().write_store(path)
        try:
            kept = json.loads(pathlib.Path(f"{path}.upserted").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        stored = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        kept.update({record["id"]: record for record in stored["sessions"]})
        pathlib.Path(f"{path}.upserted").write_text(json.dumps(kept), encoding="utf-8")
        stored["sessions"] = list(kept.values())
        pathlib.Path(path).write_text(json.dumps(stored), encoding="utf-8")


if __name__ == "__main__":  # the store in the working directory, which a restart keeps
    main(Service, [*sys.argv[1:], "--store", "sessions.json"])
