"""Broken (robustness): its router takes a session/status notification (no id) as the client saying
it stopped watching the session, and evicts the session from memory: answered nothing, as JSON-RPC
asks, but the session named is inactive from then on, while its twin, never named in a
notification, stays active.

Caught by transport.jsonrpc.status-notification (robustness: a failure only under --strict): the
notification must leave the session as it was (the RFD: session/status MUST NOT have side effects).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def front(self, router):
        handler = super().front(router)

        async def releasing(method, params, is_notification):
            if is_notification and method == "session/status":
                session_id = params.get("sessionId") if isinstance(params, dict) else None
                if isinstance(session_id, str) and session_id in self.loaded:
                    self.evict(session_id)
                return None
            return await handler(method, params, is_notification)

        return releasing


main(Agent)
