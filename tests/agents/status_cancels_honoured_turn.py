"""Broken (MUST): status cancels the turn in progress, in an agent that honours the user's answer
to its permission request (permission_answer_honoured_conforming). Answered `cancelled`, the
control turn would end `cancelled` as well and hide it; answered with the reject option, the
control turn ends `end_turn` and this one `cancelled`."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
]


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.set()
        return super().status_of(session_id)

    async def work(self, session_id, text, cancelled):
        if "[permission]" not in text:
            return await super().work(session_id, text, cancelled)
        ask = asyncio.ensure_future(
            self.conn.send_request(
                "session/request_permission",
                {
                    "sessionId": session_id,
                    "toolCall": {"toolCallId": "call_1", "title": "write a file"},
                    "options": OPTIONS,
                },
            )
        )
        stop = asyncio.ensure_future(cancelled.wait())
        await asyncio.wait({ask, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if cancelled.is_set():
            ask.cancel()
            return False
        outcome = (ask.result() or {}).get("outcome") or {}
        return outcome.get("outcome") != "cancelled"


main(Agent)
