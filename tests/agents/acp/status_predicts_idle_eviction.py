"""Broken (MUST), with --idle-evict-after S: status works out eviction from the idle clock instead
of looking at memory, and forgets that a session with a turn in progress is never evicted: a turn
longer than S reads inactive while it runs in memory.

Breaks "inactive: The Agent knows the session and can resume it, but it is not in memory". The
agent's sweep evicts sessions nobody used for S seconds, never one in a turn; status, wanting to
agree with what a resume will find, answers inactive once S seconds have passed since the
session's last use, and a turn's last use is its prompt. A turn waiting on the user longer than S
reads inactive; sessions left alone read inactive as they should, and so does a status during a
short turn. Caught by status.inactive.after-idle-eviction (rule turn-in-memory: a turn held
beside its calibration).
"""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        after = self.policy.idle_evict_after
        used = self.memory.last_used.get(session_id)
        if after is not None and used is not None and time.monotonic() - used >= after:
            return self.words["inactive"]  # expired: the sweep is about to take it
        return super().status_of(session_id)


main(Agent)
