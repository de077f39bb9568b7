"""Broken: status opens an inactive session's record before it answers `inactive` (a record it
cannot open is not resumable), through the maintenance routine the agent also runs on old
sessions, which applies the history retention limit (the last 12 messages, 6 turns) and writes
the trimmed record back. A status call about a longer session deletes its oldest turns: the next
session/load replays fewer of them. Breaks "session/status MUST NOT have side effects. It must
not load, resume, create, close, or change the session". Sessions of at most 6 turns, and sessions
in memory, hide it; updatedAt and the session/list entry stay as they were.

Caught by status.no-side-effects.history-unchanged (its session has 10 turns).
"""

import json

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found

HISTORY_KEEP = 12  # messages kept by retention: 6 user turns and 6 agent replies


class Agent(ReferenceAgent):
    def vacuum(self, session_id):
        """Maintenance: open the record, apply retention, write it back if it changed."""
        session = json.loads((self.state_dir / f"{session_id}.json").read_text(encoding="utf-8"))
        if len(session["history"]) > HISTORY_KEEP:
            session["history"] = session["history"][-HISTORY_KEEP:]
            self.save(session)  # same updatedAt and title: only the history is shorter
        return session

    def status_of(self, session_id):
        if self.fits(session_id) and session_id not in self.loaded and session_id in self.known:
            try:
                self.vacuum(session_id)
            except (OSError, ValueError):
                raise not_found(session_id) from None
        return super().status_of(session_id)


main(Agent)
