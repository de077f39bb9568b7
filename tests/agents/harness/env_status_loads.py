"""The reference agent with a bug that shows only when its environment asks for it, as a user's
agent behind a feature flag (or one that needs an API key to do anything) has: with AGENT_BUG=load,
or AGENT_BUG_TOKEN (a name that looks like a secret) starting with "load", status of an inactive
session loads it. Run without the variable it conforms, so a replay that drops the run's --env
would say FIXED."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        flagged = os.environ.get("AGENT_BUG") == "load" or os.environ.get("AGENT_BUG_TOKEN", "").startswith(
            "load"
        )
        if flagged and answer == "inactive":
            self.loaded[session_id] = self.read(session_id)
        return answer


main(Agent)
