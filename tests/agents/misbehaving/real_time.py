"""The reference agent at a real agent's time scales, each behaviour switched by a flag (real
agents are not installed here: no API keys, slow; these reproduce what they do).

  --turn-delay S      every turn thinks S seconds (a model call) before it acts: before its
                      permission request, its answer (v1) or its idle state_update (v2)
  --title-after S     S seconds after each turn, a title made by another model call
                      (session_info_update; the session/list entry changes too)
  --model hang|fail   the model is unreachable: every turn hangs, or fails with an internal error
  --model refuse      no model is configured: session/prompt is answered with an error at once
                      (v2 too, where an accepted prompt is answered before its turn)
  --new-delay S       session/new takes S seconds (claude-agent-acp: about 19 s offline)
  --mark-new FILE     writes FILE when session/new arrives (a test waits for it, not for a time)
  --no-status         does not advertise session/status, and answers it -32601
  --auth offer        offers an auth method (with a long description) it does not require
  --auth require      and session/new answers auth_required (-32000) until authenticate (codex-acp)
  --protocol 2        the v2 reference agent (the turn flags only)
"""

import _ref

import argparse
import asyncio
import sys
from pathlib import Path

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso
from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2

parser = argparse.ArgumentParser()
parser.add_argument("--turn-delay", type=float, default=0.0)
parser.add_argument("--title-after", type=float, default=0.0)
parser.add_argument("--model", choices=("hang", "fail", "refuse"), default=None)
parser.add_argument("--new-delay", type=float, default=0.0)
parser.add_argument("--mark-new", default=None)
parser.add_argument("--no-status", action="store_true")
parser.add_argument("--auth", choices=("offer", "require"), default=None)
parser.add_argument("--protocol", type=int, default=1)
args, rest = parser.parse_known_args()

NO_MODEL = "no model configured: set GEMINI_API_KEY"
AUTH_DESCRIPTION = (
    "Requires an API key in the environment. " + "Set it in your shell profile, then restart the agent. " * 8
)


async def think(cancelled: asyncio.Event | None = None) -> bool:
    """The model's work: False when the turn was cancelled meanwhile."""
    if args.model == "hang":
        await asyncio.Event().wait()
    if args.model == "fail":
        raise RequestError.internal_error({"reason": "model provider unreachable (connection refused)"})
    if cancelled is None:
        await asyncio.sleep(args.turn_delay)
        return True
    try:
        await asyncio.wait_for(cancelled.wait(), args.turn_delay)
        return False
    except TimeoutError:
        return True


class Agent(ReferenceAgent):
    authenticated = False

    def capabilities(self):
        caps = super().capabilities()
        if args.no_status:
            caps["sessionCapabilities"].pop("status", None)
        return caps

    def front(self, router):
        handler = super().front(router)

        async def front(method, params, is_notification):
            if args.no_status and method == "session/status":
                return await router(method, params, is_notification)  # the SDK's -32601
            return await handler(method, params, is_notification)

        return front

    async def initialize(self, *a, **kw):
        answer = await super().initialize(*a, **kw)
        if args.auth:
            answer["authMethods"] = [{"id": "api-key", "name": "API key", "description": AUTH_DESCRIPTION}]
        return answer

    async def authenticate(self, *a, **kw):
        Agent.authenticated = True
        return await super().authenticate(*a, **kw)

    async def new_session(self, *a, **kw):
        if args.auth == "require" and not Agent.authenticated:
            raise RequestError.auth_required({"description": AUTH_DESCRIPTION})
        if args.mark_new:
            Path(args.mark_new).write_text("session/new\n")
        await asyncio.sleep(args.new_delay)
        return await super().new_session(*a, **kw)

    async def work(self, session_id, text, cancelled):
        if not await think(cancelled):
            return False
        return await super().work(session_id, text, cancelled)

    async def prompt(self, session_id, prompt, **kwargs):
        if args.model == "refuse":
            raise RequestError.internal_error({"reason": NO_MODEL})
        answer = await super().prompt(session_id, prompt, **kwargs)
        if args.title_after:
            turns = len(self.loaded.get(session_id, {}).get("history", []))
            self.later(args.title_after, self.retitle(session_id, f"A conversation of {turns} messages"))
        return answer

    async def retitle(self, session_id, title):
        session = self.loaded.get(session_id)
        if session is None:
            return
        session.update(title=title, updatedAt=now_iso())
        self.save(session)
        await self.notify(session_id, {"sessionUpdate": "session_info_update", "title": title})

    def later(self, seconds, work):
        async def run():
            await asyncio.sleep(seconds)
            await work

        pending = self.__dict__.setdefault("_pending", set())
        task = asyncio.get_running_loop().create_task(run())
        pending.add(task)
        task.add_done_callback(pending.discard)


class AgentV2(ReferenceAgentV2):
    async def prompt(self, params):
        if args.model == "refuse":
            raise RequestError.internal_error({"reason": NO_MODEL})
        return await super().prompt(params)

    async def turn(self, session, text):
        await self.update(session["sessionId"], {"sessionUpdate": "state_update", "state": "running"})
        try:
            await think()
        except RequestError:  # v2 answered the prompt already: the turn ends with an error
            self.turns.pop(session["sessionId"], None)
            await self.finish(session["sessionId"], "refusal")
            return
        await super().turn(session, text)


if args.protocol == 2:
    main_v2(None, None, AgentV2)
else:
    sys.argv[1:] = rest
    main(Agent, argv=rest)
