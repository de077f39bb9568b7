"""Malformed-input fuzzing of session/status params and of JSON-RPC frames."""

from pathlib import Path

import anyio.to_thread

from conformance import revisions
from conformance.acp import AcpTarget
from conformance.fuzzing import FuzzFailure, LiveSession, run_fuzz, settle
from conformance.machine import PROFILES, hypothesis_dir
from conformance.outcomes import AgentExited, Violation
from conformance.registry import Level, case
from conformance.strategies import FrameInput, ParamsInput, malformed_frames, status_params

from . import spec


def _status_of(reply) -> object:
    return reply.result.get("status") if reply.ok and isinstance(reply.result, dict) else None


async def _fuzz(acp: AcpTarget, details: dict, strategy, check) -> None:
    config = acp.runtime.config
    profile = PROFILES[config.profile]
    database = hypothesis_dir(Path(config.report_dir)) if config.report_dir else None
    used_seed, failing, failure = await anyio.to_thread.run_sync(
        lambda: run_fuzz(acp, strategy, check, profile, config.seed, database)
    )
    details.update(profile=profile.name, seed=used_seed)
    if failure is not None:
        details["input"] = failing.describe()
        raise Violation(f"{failure} (shrunk input, seed {used_seed})", observed=failing.describe())


@case("fuzz.status.params", level=Level.MUST, spec=spec.REQUEST_SCHEMA)
async def fuzz_status_params(acp: AcpTarget, details: dict) -> None:
    """Generated params (valid, invalid, huge, unicode, deep _meta) get the right answer; the agent lives."""
    live = LiveSession(acp)

    async def check(inp: ParamsInput) -> None:
        sid = await live.ensure()
        params = live.fill(inp.params)
        try:
            reply = await acp.call("session/status", params)
        except (AgentExited, TimeoutError) as exc:
            raise FuzzFailure(
                f"no answer to session/status with params {inp.describe()}: {str(exc).splitlines()[0]}"
            ) from None
        if inp.expect == "invalid" and (reply.ok or reply.code != -32602):
            raise FuzzFailure(f"params {inp.describe()} got {reply.describe()}, expected error -32602")
        if inp.expect == "status":
            if reply.ok:
                status = reply.result.get("status") if isinstance(reply.result, dict) else None
                if not isinstance(status, str):
                    raise FuzzFailure(
                        f"params {inp.describe()} got a result without a string status: {reply.describe()}"
                    )
                if params.get("sessionId") == sid and revisions.canonical(status) != "active":
                    raise FuzzFailure(
                        f"params {inp.describe()} (a live session) got {status!r}, "
                        f"expected {revisions.word('active')!r}"
                    )
            elif reply.code != -32002 or params.get("sessionId") == sid:
                raise FuzzFailure(f"valid params {inp.describe()} got {reply.describe()}")
        if inp.expect == "either" and not reply.ok and reply.code != -32602:
            raise FuzzFailure(f"params {inp.describe()} got {reply.describe()}, expected a status or -32602")
        after = await acp.status(sid)
        if not after.ok or revisions.canonical(_status_of(after)) != "active":
            raise FuzzFailure(
                f"after params {inp.describe()}, the live session is no longer active: {after.describe()}"
            )

    await _fuzz(acp, details, status_params(), check)


async def _send_frame(acp: AcpTarget, live: LiveSession, inp: FrameInput):
    sid = await live.ensure()
    line = inp.line.replace(b"$live", sid.encode())
    peer = acp.peer
    problems_before = len(peer.problems)
    if inp.response == "required":
        raw = await peer.exchange_raw(line, inp.response_id, wait=True, timeout=acp.runtime.config.timeout)
        if raw.frame is None and raw.stray is not None:
            raise FuzzFailure(
                f"the response to {inp.describe()} carries id {raw.stray.get('id')!r}, not the request's "
                f"{inp.response_id!r} (JSON-RPC: the id MUST be the same as the request's)"
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


@case("fuzz.frames.survives", level=Level.MUST, spec=spec.ONE_RESPONSE, needs=("status", "frames"))
async def fuzz_frames_survive(acp: AcpTarget, details: dict) -> None:
    """After malformed frames the agent answers each request once, by its id, and keeps its sessions."""
    live = LiveSession(acp)

    async def check(inp: FrameInput) -> None:
        try:
            frame, problems, alive = await _send_frame(acp, live, inp)
        except (AgentExited, TimeoutError) as exc:
            raise FuzzFailure(
                f"the agent died or hung after {inp.describe()}: {str(exc).splitlines()[0]}"
            ) from None
        if inp.response == "required" and frame is None:
            raise FuzzFailure(f"no response carrying id {inp.response_id!r} to {inp.describe()}")
        if problems:
            raise FuzzFailure(f"after {inp.describe()}: {problems[0].problem}")
        if not alive:
            raise FuzzFailure(f"after {inp.describe()}, the live session no longer answers as active")

    await _fuzz(acp, details, malformed_frames(), check)


@case("fuzz.frames.error-codes", level=Level.SHOULD, spec=spec.ERROR_CODES, needs=("status", "frames"))
async def fuzz_frames_error_codes(acp: AcpTarget, details: dict) -> None:
    """Malformed frames get -32700 (not JSON) or -32600 (not a valid request), with id null if unreadable."""
    live = LiveSession(acp)

    async def check(inp: FrameInput) -> None:
        if inp.response != "error":
            return
        try:
            frame, _, _ = await _send_frame(acp, live, inp)
        except (AgentExited, TimeoutError):
            return  # fuzz.frames.survives reports crashes and hangs
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

    await _fuzz(acp, details, malformed_frames(), check)
