"""Broken: a closed session whose history is large is unknown to status. Sessions are saved as
`<id>.json`; once a session's history passes 8 000 characters it is saved compressed as
`<id>.json.gz` instead. The status index of sessions not in memory is the set of `*.json` files,
refreshed at each save and each close, so a large session, once closed, reads -32002, though
session/list lists it and session/resume and session/load start it (they read either file).
Small sessions are the reference's. Certified by the suite before (blind 10): its sessions'
histories stayed a few hundred characters.

Sentence: "inactive: The Agent knows the session and can resume it, but it is not in memory." and
"Unknown: the Agent does not know this session. This is returned as a -32002 error." Caught by
the sequence's grown-history scenario (three long prompts, close, status, resume).
"""

import gzip
import json
import os

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found

LARGE = 8000  # characters of history past which a session is saved compressed


class Agent(ReferenceAgent):
    def big(self, session):
        return sum(len(text) for _, text in session["history"]) > LARGE

    def save(self, session):
        if not self.big(session):
            super().save(session)
            return
        self.index(session)
        path = self.state_dir / f"{session['sessionId']}.json.gz"
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(gzip.compress(json.dumps(session).encode()))
        os.replace(tmp, path)
        (self.state_dir / f"{session['sessionId']}.json").unlink(missing_ok=True)
        self.reindex()

    def reindex(self):
        on_disk = {p.name.removesuffix(".json") for p in self.state_dir.glob("*.json")}
        self.known = {sid for sid in self.known if sid in on_disk or sid in self.loaded}

    async def close_session(self, session_id, **kwargs):
        result = await super().close_session(session_id, **kwargs)
        self.reindex()
        return result

    def read(self, session_id):
        if session_id in self.loaded:
            return self.loaded[session_id]
        gz = self.state_dir / f"{session_id}.json.gz"
        if session_id in self.listing and self.fits(session_id) and gz.is_file():
            self.known.add(session_id)
            return json.loads(gzip.decompress(gz.read_bytes()))
        if session_id not in self.known:
            raise not_found(session_id)
        return super().read(session_id)


if __name__ == "__main__":
    main(Agent)
