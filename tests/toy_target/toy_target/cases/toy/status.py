"""toy/status: an open session is `open`; an unknown one is error -32002."""

from __future__ import annotations

import uuid
from pathlib import Path

from conformance.core import revisions
from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.replay.files import write_replay
from toy_target.driver import REVISION, ToyTarget

OPEN = revisions.requirement(REVISION, "open")
UNKNOWN = revisions.requirement(REVISION, "unknown")


@case("toy.status.open-after-open", level=Level.MUST, spec=OPEN)
async def open_after_open(toy: ToyTarget, details: dict) -> None:
    """A session just opened is `open`."""
    reply = await toy.status(await toy.new_session())
    state = reply.result.get("state") if reply.ok and isinstance(reply.result, dict) else None
    if state != "open":
        raise Violation(
            "a session just opened is not open", expected='{"state": "open"}', observed=reply.describe()
        )


@case("toy.status.unknown-is-error", level=Level.MUST, spec=UNKNOWN)
async def unknown_is_error(toy: ToyTarget, details: dict) -> None:
    """A session never opened is error -32002; a failure is written as a replay file."""
    config = toy.harness.config
    given = config.replay_input or {}
    sid = str(given.get("id") or f"toy-never-opened-{uuid.uuid4().hex[:8]}")
    details["input"] = {"id": sid}
    reply = await toy.status(sid)
    if reply.code == -32002:
        return
    failure = f"toy/status of a session never opened answered {reply.describe()}"
    if config.report_dir is not None and config.replay_input is None:
        details["replay_file"] = str(
            write_replay(
                Path(config.report_dir) / "replays",
                case_id="toy.status.unknown-is-error",
                command=config.command,
                cwd=config.cwd,
                agent_info=toy.hello,
                spec_revision=REVISION,
                seed=config.seed or 0,
                profile=config.profile,
                failure=failure,
                steps=[],
                target="toy",
                fuzz_input={"id": sid},
                config=config,
            )
        )
    raise Violation(failure, expected="error -32002", observed=reply.describe())
