"""Conforming: a turn that asks permission offers allow and reject options and honours the answer:
`cancelled` (the client cancelled the turn) ends it `cancelled`, a selected option goes on to
`end_turn`. The suite must answer with an option where it can: with `cancelled`, every turn ends
`cancelled`, and a status call that cancels the turn would look the same."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
]


class Agent(ReferenceAgent):
    async def work(self, session_id, text, cancelled):
        if "[permission]" not in text:
            return await super().work(session_id, text, cancelled)
        assert self.conn is not None
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


if __name__ == "__main__":
    main(Agent)
