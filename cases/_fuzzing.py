"""The fuzz cases' common part, for every target: run a check on drawn inputs, name the shrunk
input that broke it, write its replay file; and, replaying one (`replay FILE`), check that input
alone. Each input class has describe(), to_json() and from_json()."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import anyio.to_thread
from hypothesis import strategies as st

from conformance.core import revisions
from conformance.core.fuzzing import FuzzFailure, run_fuzz
from conformance.core.outcomes import Violation
from conformance.core.profiles import PROFILES, hypothesis_dir
from conformance.replay.files import write_replay

__all__ = ["fuzz"]


async def fuzz(
    target: Any,
    details: dict,
    case_id: str,
    strategy: st.SearchStrategy[Any],
    check: Callable[[Any], Coroutine[Any, Any, None]],
    examples: Sequence[Any] = (),
    *,
    decode: Callable[[dict[str, Any]], Any],
    agent_info: Any = None,
    hint: str = "",
) -> None:
    """Run ``check`` on drawn inputs (``examples`` first); a FuzzFailure becomes the case's
    Violation, naming the shrunk input, its seed and its replay file. ``hint`` follows the layer a
    crash was found in (what the implementer can do about it)."""
    config = target.harness.config
    if config.replay_input is not None:
        await _check_recorded(decode(config.replay_input), check, details)
        return
    profile = PROFILES[config.profile]
    report_dir = Path(config.report_dir) if config.report_dir else None
    database = hypothesis_dir(report_dir) if report_dir else None
    used_seed, failing, failure = await anyio.to_thread.run_sync(
        lambda: run_fuzz(target, strategy, check, profile, config.seed, database, examples)
    )
    details.update(profile=profile.name, seed=used_seed)
    if failure is None:
        return
    details["input"] = failing.describe()
    if report_dir is not None:
        details["replay_file"] = str(
            _write_fuzz_replay(target, report_dir, case_id, agent_info, used_seed, failing, failure)
        )
    where = f"; the crash is {failure.layer}. {hint}" if failure.layer else ""
    raise Violation(
        f"{failure} (shrunk input, seed {used_seed}){where}",
        observed=failing.describe(),
        rule=failure.rule,
    )


async def _check_recorded(
    replayed: Any, check: Callable[[Any], Coroutine[Any, Any, None]], details: dict
) -> None:
    """`replay FILE`: the recorded input alone, checked once."""
    details["input"] = replayed.describe()
    try:
        await check(replayed)
    except FuzzFailure as failure:
        raise Violation(
            f"{failure} (the recorded input)", observed=replayed.describe(), rule=failure.rule
        ) from None


def _write_fuzz_replay(
    target: Any,
    report_dir: Path,
    case_id: str,
    agent_info: Any,
    used_seed: int,
    failing: Any,
    failure: FuzzFailure,
) -> Path:
    config = target.harness.config
    profile = PROFILES[config.profile]
    return write_replay(
        report_dir / "replays",
        case_id=case_id,
        command=config.command,
        cwd=config.cwd,
        agent_info=agent_info,
        spec_revision=revisions.current().name,
        seed=used_seed,
        profile=profile.name,
        failure=str(failure),
        steps=[],
        target=target.name,
        extra_agent=target.replay_record(config),
        fuzz_input=failing.to_json(),
        config=config,
    )
