"""Broken (MUST): status of an unknown id writes it into the agent's persisted routing index, and the
agent's start-up "index repair" recreates a stub session for every indexed id without a file.

Breaks: "session/status MUST NOT have side effects. It must not load, resume, create, close, or
change the session".
Routing probes are frequent, so the agent remembers every id it was asked about in an on-disk
index (`routing-index.db`: id -> "seen"), to answer the next probe without a storage lookup. While it
runs, an unknown id still answers -32002 (the in-memory negative entry is honoured). But at the
next start the index is read back as the list of sessions, and an indexed id without a session
file is "repaired" with an empty session: after a restart, a never-created id that status was
asked about is `inactive`, listed by session/list, and resumes. Caught by
status.no-side-effects.twins-restart (a never-created id asked about, and its never-asked twin,
across a restart).
"""

import contextlib
import json

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.index_path = state_dir / "routing-index.db"
        try:
            seen = json.loads(self.index_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seen = {}
        self.seen = dict(seen)
        for session_id in seen:  # start-up repair: an indexed session without its file gets one
            if session_id not in self.known and self.fits(session_id) and "/" not in session_id:
                with contextlib.suppress(OSError, ValueError):
                    self.save(
                        {
                            "sessionId": session_id,
                            "cwd": str(state_dir.parent),
                            "title": None,
                            "updatedAt": now_iso(),
                            "history": [],
                        }
                    )

    def status_of(self, session_id):
        try:
            return super().status_of(session_id)
        except Exception:
            if session_id not in self.seen and len(session_id) < 200:
                self.seen[session_id] = "seen"
                with contextlib.suppress(OSError):
                    self.index_path.write_text(json.dumps(self.seen), encoding="utf-8")
            raise


main(Agent)
