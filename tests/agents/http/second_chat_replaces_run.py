"""Conforming HTTP status service: a chat on a session whose run is going interrupts that run,
drops the unfinished turn and runs the new message instead ("last message wins", no 409); input
that is no message is refused as before, the run left going. Defeats
the assumption that a second chat leaves the first run going (http.state.runs-past-memory-cap's
second chats, probed at once): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def chat(self, user_id, request):
        session = self.owned(user_id, request.agent_id, request.session_id)
        task = self.runs.get(session.id)
        messages = request.input if isinstance(request.input, list) else [request.input]
        new_message = all(isinstance(m, dict) and "content" in m for m in messages)
        if task is not None and not task.done() and new_message:  # other input is refused, as before
            await self.interrupt(session)  # the run ends and releases its lease
            while session.messages and session.messages[-1].get("role") == "assistant":
                session.messages.pop()  # the interrupted reply
            while session.messages and session.messages[-1].get("role") == "user":
                session.messages.pop()  # the message it answered, superseded
        return await super().chat(user_id, request)


if __name__ == "__main__":
    main(Service)
