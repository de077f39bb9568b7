"""Broken HTTP status service: sessions are kept in a store across restarts in a compact form in
which a tool call's state is a code; the codes were written before external executors existed, so
a call waiting for one (submitted) is stored as finished, without a result. In memory all is
right; after a restart a session waiting on an external executor reads idle and its result can no
longer be submitted. Breaks "AWAITING_EXTERNAL_RESULT: ... the persisted context tail has at least
one tool call dispatched to an external executor and awaiting its result". Caught by
http.twins.restart (rule durable); restarts of idle sessions or of sessions waiting for permission
(asking has a code) show nothing.
"""

import copy
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

STATE_CODES = {"pending": 0, "asking": 1, "finished": 2}
CODE_STATES = {code: state for state, code in STATE_CODES.items()}


def tool_calls(sessions):
    for session in sessions:
        for message in session.messages:
            for block in message.get("content") or []:
                if block.get("type") == "tool_call" and "state" in block:
                    yield block


class Service(ReferenceService):
    def write_store(self, path):
        live = self.sessions
        compact = {}
        for sid, session in live.items():
            stored = copy.copy(session)
            stored.messages = copy.deepcopy(session.messages)
            compact[sid] = stored
        for block in tool_calls(compact.values()):
            block["state"] = STATE_CODES.get(block["state"], STATE_CODES["finished"])
        self.sessions = compact
        try:
            super().write_store(path)
        finally:
            self.sessions = live

    def read_store(self, path):
        super().read_store(path)
        for block in tool_calls(self.sessions.values()):
            if isinstance(block["state"], int):
                block["state"] = CODE_STATES[block["state"]]


if __name__ == "__main__":  # the store in the working directory, which a restart keeps
    main(Service, [*sys.argv[1:], "--store", "sessions.json"])
