"""Broken (robustness): its router answers every session/status it reads, a notification (no id)
too, with a response whose id is null.

Caught by transport.jsonrpc.status-notification (robustness: a failure only under --strict):
JSON-RPC 2.0 4.1, the Server MUST NOT reply to a Notification.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def front(self, router):
        handler = super().front(router)

        async def answering(method, params, is_notification):
            if is_notification and method == "session/status":
                result = await self.session_status(params)
                assert self.conn is not None  # set before the first message is read
                await self.conn._transport.send({"jsonrpc": "2.0", "id": None, "result": result})
                return None
            return await handler(method, params, is_notification)

        return answering


main(Agent)
