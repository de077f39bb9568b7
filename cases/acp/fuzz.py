"""Generated input: session/status requests of every shape ACP allows, and malformed frames.

`fuzz.status.params` is the status method's own robustness and decides the certificate: any
well-formed session/status request (any id ACP's RequestId allows, any params) gets a result or an
error, never a crash. The frame fuzzers send what no ACP client sends (not an object, batches, ids
past 2^53, invalid UTF-8, oversized lines): robustness findings, shown but not deciding the verdict
unless --strict, each naming the layer that broke where the evidence tells (an SDK's reader).
"""

import json
from typing import Any

from conformance.cases._fuzzing import fuzz
from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.fuzzing import FuzzFailure
from conformance.core.layers import GUARD_HINT, id_layer
from conformance.core.outcomes import AgentExited
from conformance.core.registry import Level, case
from conformance.targets.acp.fuzzing import LiveSession, settle
from conformance.targets.acp.strategies import (
    EXPLICIT_FRAMES,
    EXPLICIT_STATUS_PARAMS,
    FrameInput,
    ParamsInput,
    malformed_frames,
    status_params,
)
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

PARAMS_CASE, SURVIVES_CASE, ERROR_CODES_CASE = (
    "fuzz.status.params",
    "fuzz.frames.survives",
    "fuzz.frames.error-codes",
)
PARAMS_RULES = ("invalid-params", "unknown-id", "live-active", "well-formed", "same-id", "survives")


async def _fuzz(acp: AcpTarget, details: dict, case_id: str, strategy, check, examples, decode) -> None:
    """The shared fuzz runner, with what ACP adds: the agent's info, and what a crash in an SDK's
    reader means (GUARD_HINT)."""
    await fuzz(
        acp,
        details,
        case_id,
        strategy,
        check,
        examples,
        decode=decode,
        agent_info=acp.agent_info,
        hint=GUARD_HINT,
    )


def _status_of(reply) -> object:
    return reply.result.get("status") if reply.ok and isinstance(reply.result, dict) else None


async def _ask(acp: AcpTarget, inp: ParamsInput, params: object) -> Reply:
    """Send one session/status request with the drawn id; the reply, whatever id it came back by."""
    line = json.dumps(
        {"jsonrpc": "2.0", "id": inp.request_id, "method": "session/status", "params": params},
        ensure_ascii=False,
        allow_nan=False,  # a well-formed request: JSON has no NaN or Infinity
    ).encode("utf-8")  # the strategy draws no lone surrogate: a well-formed request is UTF-8
    raw = await acp.peer.exchange_raw(
        line, inp.request_id, wait=True, timeout=acp.harness.config.timeout, method="session/status"
    )
    frame = raw.frame if raw.frame is not None else raw.stray
    if raw.frame is None and raw.stray is not None:
        got = raw.stray.get("id")
        raise FuzzFailure(
            f"the response to session/status with id {json.dumps(inp.request_id)} carries id {json.dumps(got)}; "
            "JSON-RPC: the Server MUST reply with the same value",
            rule="same-id",
        )
    assert frame is not None
    error = frame.get("error")
    return Reply(0, "session/status", frame.get("result"), error if isinstance(error, dict) else None)


@case(PARAMS_CASE, level=Level.MUST, spec=spec.REQUEST_SCHEMA, rules=PARAMS_RULES, slow=True)
async def fuzz_status_params(acp: AcpTarget, details: dict) -> None:
    """Generated requests (any id ACP allows; valid, invalid, huge, unicode params, deep _meta) get
    the right answer, by the request's id; the agent lives."""
    live = LiveSession(acp)

    async def check(inp: ParamsInput) -> None:
        sid = await live.ensure()
        params = live.fill(inp.params)
        try:
            reply = await _ask(acp, inp, params)
        except AgentExited as exc:
            raise _died(live, f"on session/status with params {inp.describe()}", exc) from None
        _judge_params_reply(inp, params, sid, reply)
        try:
            after = await acp.status(sid)
        except AgentExited as exc:
            raise _died(live, f"after session/status with params {inp.describe()}", exc) from None
        if not after.ok or revisions.canonical(_status_of(after)) != "active":
            raise FuzzFailure(
                f"after params {inp.describe()}, the live session is no longer active: {after.describe()}",
                rule="survives",
            )

    await _fuzz(
        acp, details, PARAMS_CASE, status_params(), check, EXPLICIT_STATUS_PARAMS, ParamsInput.from_json
    )


def _died(live: LiveSession, when: str, exc: AgentExited) -> FuzzFailure:
    return FuzzFailure(
        f"the agent died {when}: {str(exc).splitlines()[0]}",
        rule="survives",
        died=True,
        layer=live.crash_layer(),
    )


def _judge_params_reply(inp: ParamsInput, params: Any, sid: str, reply: Reply) -> None:
    """The answer the drawn params call for: -32602 for invalid ones, a status (or -32002 for an
    unknown id) for valid ones, either where the schema leaves it open."""
    if inp.expect == "invalid" and (reply.ok or reply.code != -32602):
        raise FuzzFailure(
            f"params {inp.describe()} got {reply.describe()}, expected error -32602",
            rule="invalid-params",
        )
    if inp.expect == "status":
        if reply.ok:
            _judge_status_result(inp, params, sid, reply)
        elif params.get("sessionId") == sid:  # a well-formed request refused: the schema allows it
            raise FuzzFailure(
                f"params {inp.describe()} (a live session) got {reply.describe()}", rule="well-formed"
            )
        elif reply.code != -32002:
            raise FuzzFailure(f"valid params {inp.describe()} got {reply.describe()}", rule="unknown-id")
    if inp.expect == "either" and not reply.ok and reply.code != -32602:
        raise FuzzFailure(
            f"params {inp.describe()} got {reply.describe()}, expected a status or -32602",
            rule="invalid-params",
        )


def _judge_status_result(inp: ParamsInput, params: dict, sid: str, reply: Reply) -> None:
    """A result for valid params: a string status, active for the live session, and inactive for a
    never-created id only where the revision allows it."""
    status = reply.result.get("status") if isinstance(reply.result, dict) else None
    if not isinstance(status, str):
        raise FuzzFailure(
            f"params {inp.describe()} got a result without a string status: {reply.describe()}",
            rule="unknown-id",
        )
    if params.get("sessionId") == sid and revisions.canonical(status) != "active":
        raise FuzzFailure(
            f"params {inp.describe()} (a live session) got {status!r}, expected {revisions.word('active')!r}",
            rule="live-active",
        )
    if (
        params.get("sessionId") != sid
        and revisions.canonical(status) == "inactive"
        and not revisions.current().may_inactive_for_unknown
    ):
        raise FuzzFailure(
            f"params {inp.describe()} (a never-created id) got {status!r}: this revision has no MAY "
            "path, a session the Agent does not know gets -32002",
            rule="unknown-id",
        )


async def _send_frame(acp: AcpTarget, live: LiveSession, inp: FrameInput):
    sid = await live.ensure()
    line = inp.line.replace(b"$live", sid.encode())
    peer = acp.peer
    problems_before = len(peer.problems)
    if inp.response == "required":
        raw = await peer.exchange_raw(line, inp.response_id, wait=True, timeout=acp.harness.config.timeout)
        if raw.frame is None and raw.stray is not None:
            got = raw.stray.get("id")
            why = id_layer(inp.response_id, got)
            raise FuzzFailure(
                f"the response to {inp.describe()} carries id {got!r}, not the request's "
                f"{inp.response_id!r} (JSON-RPC: the id MUST be the same as the request's)"
                + (f"; {why}" if why else "")
            )
        return raw.frame, peer.problems[problems_before:], True
    pending = peer.expect(inp.response_id) if inp.response == "error" else None
    alternatives = [peer.expect(alt) for alt in inp.alt_ids]
    try:
        await peer.send_raw(line)
        sentinel = await acp.status(sid)
        await settle()
    finally:
        if pending is not None:
            peer.unexpect(inp.response_id)
        for alt in inp.alt_ids:
            peer.unexpect(alt)
    if pending is None or pending.frame is None:
        pending = next((a for a in alternatives if a.frame is not None), pending)
    alive = sentinel.ok and revisions.canonical(_status_of(sentinel)) == "active"
    return (pending.frame if pending else None), peer.problems[problems_before:], alive


@case(SURVIVES_CASE, level=Level.ROBUSTNESS, spec=spec.ONE_RESPONSE, needs=("status", "frames"), slow=True)
async def fuzz_frames_survive(acp: AcpTarget, details: dict) -> None:
    """After frames no ACP client sends (not JSON, not an object, batches, odd ids, 3 MB lines), the
    agent answers each request once, by its id, and keeps its sessions."""
    live = LiveSession(acp)

    async def check(inp: FrameInput) -> None:
        try:
            frame, problems, alive = await _send_frame(acp, live, inp)
        except AgentExited as exc:
            raise FuzzFailure(
                f"the agent died after {inp.describe()}: {str(exc).splitlines()[0]}",
                died=True,
                layer=live.crash_layer(),
            ) from None
        if inp.response == "required" and frame is None:
            raise FuzzFailure(f"no response carrying id {inp.response_id!r} to {inp.describe()}")
        broken_messages = [p for p in problems if not p.noise]
        if broken_messages:
            raise FuzzFailure(f"after {inp.describe()}: {broken_messages[0].problem}")
        if not alive:
            raise FuzzFailure(f"after {inp.describe()}, the live session no longer answers as active")

    await _fuzz(acp, details, SURVIVES_CASE, malformed_frames(), check, EXPLICIT_FRAMES, FrameInput.from_json)


@case(ERROR_CODES_CASE, level=Level.ROBUSTNESS, spec=spec.ERROR_CODES, needs=("status", "frames"), slow=True)
async def fuzz_frames_error_codes(acp: AcpTarget, details: dict) -> None:
    """Malformed frames get -32700 (not JSON) or -32600 (not a valid request), with id null if unreadable."""
    live = LiveSession(acp)

    async def check(inp: FrameInput) -> None:
        if inp.response != "error":
            return
        try:
            frame, _, _ = await _send_frame(acp, live, inp)
        except AgentExited:
            return  # fuzz.frames.survives reports crashes
        code = (
            (frame or {}).get("error", {}).get("code")
            if isinstance((frame or {}).get("error"), dict)
            else None
        )
        if frame is None or code != inp.code:
            got = "no response" if frame is None else f"code {code}"
            if frame is not None and inp.kind == "bad-utf8" and frame.get("id") is not None:
                got += f" by id {frame.get('id')!r} (the agent decoded the invalid UTF-8 leniently and read a request)"
            raise FuzzFailure(
                f"{inp.describe()} got {got}, expected error {inp.code} with id {inp.response_id!r}"
            )

    await _fuzz(
        acp, details, ERROR_CODES_CASE, malformed_frames(), check, EXPLICIT_FRAMES, FrameInput.from_json
    )
