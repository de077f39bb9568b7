"""A scripted OpenAI-compatible chat-completions server for driving an agent service's model.

Standard library only (asyncio). It listens on 127.0.0.1 on a free port; point the service's
OpenAI-compatible credential at `base_url` (it ends in `/v1`). What it answers is chosen by a
marker in the user text of the current turn (the user messages after the last assistant one):

- no marker: a short text reply;
- `[slow]` or `[slow:N]`: a text reply streamed over N seconds (default `slow_seconds`), or
  sent whole after N seconds when the request does not stream, which keeps the agent's run, and
  so the session, `running` meanwhile;
- `[permission]`: a call of a tool the service asks the user about (`Write` by default);
- `[external]` or `[external:Name]`: a call of a tool executed outside the service
  (`AskUser` by default: AgentScope's only built-in tool with `is_external_tool = True`);
- `[parallel]`: both in one reply (parallel tool calls), the permission one first;
  `[parallel:external-first]` the same two in the other order;
- `[fail]`: HTTP 400, which the OpenAI client does not retry.

A request whose last message is a tool result gets a short text reply (the tool ran, the turn
ends), and a request forcing a function through `tool_choice` (AgentScope's structured output,
e.g. its session-title call) gets a call of that function with a `title` argument.
Both streamed (`"stream": true`, server-sent events) and plain JSON answers are supported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

__all__ = ["FakeChatModel", "run_in_thread"]

_MARKER = re.compile(r"\[(slow|permission|external|parallel|fail)(?::([^\]\s]+))?\]")
_ASK_USER_INPUT = {
    "questions": [
        {
            "question": "Which option should the conformance probe take?",
            "header": "Probe",
            "options": [
                {"label": "First", "description": "The first option."},
                {"label": "Second", "description": "The second option."},
            ],
        },
    ],
}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class FakeChatModel:
    """The server; `async with FakeChatModel() as fake:` starts and stops it."""

    def __init__(
        self, *, slow_seconds: float = 5.0, permission_path: str = "/tmp/conformance-probe.txt"
    ) -> None:
        self.slow_seconds = slow_seconds
        self.permission_path = permission_path
        # Each request body, plus the script it got, when it came (`at`), when its answer ended
        # (`done`, None while it is in flight) and whether it was sent whole (`complete`): a case
        # can tell the run was still waiting on its model while it probed the status, and whether
        # the run read its answer to the end.
        self.requests: list[dict[str, Any]] = []
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    async def __aenter__(self) -> FakeChatModel:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- choosing the answer ---------------------------------------------------------------

    def choose(self, body: dict[str, Any]) -> tuple[str, str | None]:
        """(script, argument) for a request body."""
        messages = body.get("messages") or []
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "function":
            return "forced", choice.get("function", {}).get("name")
        if messages and messages[-1].get("role") == "tool":
            return "after_tool", None
        turn: list[str] = []
        for message in reversed(messages):
            if message.get("role") == "assistant":
                break
            if message.get("role") == "user":
                turn.append(_text_of(message.get("content")))
        match = _MARKER.search(" ".join(reversed(turn)))
        return (match.group(1), match.group(2)) if match else ("text", None)

    def _tool_call(self, script: str, arg: str | None, tools: list[str]) -> tuple[str, dict[str, Any]]:
        if script == "forced":
            return arg or "generate_structured_output", {"title": "Conformance probe"}
        if script == "external":
            name = arg or "AskUser"
            return name, (_ASK_USER_INPUT if name == "AskUser" else {})
        name = arg or ("Write" if "Write" in tools or not tools else "Bash")
        if name == "Write":
            return name, {"file_path": self.permission_path, "content": "probe\n"}
        return name, {"command": f"rm -f {self.permission_path}"}

    # -- HTTP ------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
                await self._send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
                return
            body = json.loads(raw or b"{}")
            script, arg = self.choose(body)
            tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
            entry = {
                "body": body,
                "script": script,
                "arg": arg,
                "at": time.time(),
                "done": None,
                "complete": False,
            }
            self.requests.append(entry)
            try:
                if script == "fail":
                    await self._send(
                        writer, 400, {"error": {"message": "scripted failure", "type": "invalid_request"}}
                    )
                    return
                await self._answer(writer, body, script, arg, tools)
                # Sent whole: a streamed answer whose reader went away (an interrupted run that
                # closed its request) ends in a ConnectionError before this line.
                entry["complete"] = True
            finally:
                entry["done"] = time.time()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError, ValueError):
            pass
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _send(self, writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        writer.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    async def _answer(
        self,
        writer: asyncio.StreamWriter,
        body: dict[str, Any],
        script: str,
        arg: str | None,
        tools: list[str],
    ) -> None:
        model, rid, created = body.get("model", "fake"), f"chatcmpl-{uuid.uuid4().hex[:12]}", int(time.time())
        if script in ("text", "slow", "after_tool"):
            calls = []
        elif script == "parallel":
            calls = [self._tool_call("permission", None, tools), self._tool_call("external", None, tools)]
            if arg == "external-first":
                calls.reverse()
        else:
            calls = [self._tool_call(script, arg, tools)]
        text = {"after_tool": "Done.", "slow": "This reply was streamed slowly."}.get(script, "OK.")
        message = _assistant_message(calls, text)
        finish = "tool_calls" if calls else "stop"
        seconds = (float(arg) if arg else self.slow_seconds) if script == "slow" else 0.0
        if not body.get("stream"):
            await asyncio.sleep(seconds)  # a service that does not stream waits as long
            choice = {"index": 0, "message": message, "finish_reason": finish}
            payload = {
                "id": rid,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [choice],
                "usage": _USAGE,
            }
            await self._send(writer, 200, payload)
            return
        chunk = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}
        await _stream(writer, chunk, message, seconds, finish)


_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _assistant_message(calls: list[tuple[str, dict[str, Any]]], text: str) -> dict[str, Any]:
    """The assistant's message: a call of each tool ``calls`` names (with its input), else ``text``."""
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else text}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for name, arguments in calls
        ]
    return message


async def _stream(
    writer: asyncio.StreamWriter, chunk: dict[str, Any], message: dict[str, Any], seconds: float, finish: str
) -> None:
    """The message as server-sent chunks (``chunk``: what every chunk carries): each tool call in
    one chunk of its own (its ``index`` telling parallel calls apart), a text word by word, with
    dots spread over ``seconds``."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")

    async def event(choices: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> None:
        writer.write(f"data: {json.dumps({**chunk, 'choices': choices, **(extra or {})})}\n\n".encode())
        await writer.drain()

    if "tool_calls" in message:
        for index, call in enumerate(message["tool_calls"]):
            delta = {"role": "assistant", "tool_calls": [dict(call, index=index)]}
            await event([{"index": 0, "delta": delta, "finish_reason": None}])
    else:
        pieces = [w + " " for w in message["content"].split(" ")]
        ticks = int(seconds / 0.25)
        pieces = pieces[:1] + ["."] * ticks + pieces[1:]  # the dots are the slow part
        for piece in pieces:
            await event(
                [{"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": None}]
            )
            if piece == ".":
                await asyncio.sleep(seconds / ticks)
    await event([{"index": 0, "delta": {}, "finish_reason": finish}])
    await event([], {"usage": _USAGE})
    writer.write(b"data: [DONE]\n\n")
    await writer.drain()


@contextlib.contextmanager
def run_in_thread(**kwargs: Any) -> Iterator[FakeChatModel]:
    """The server on its own event loop in a daemon thread, for synchronous tests."""
    loop = asyncio.new_event_loop()
    fake = FakeChatModel(**kwargs)
    thread = threading.Thread(target=loop.run_forever, name="fake-chat-model", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(fake.start(), loop).result(10)
        yield fake
    finally:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
