"""One heartbeat script, run over both MCP eras and compared: the tool's contract does not depend
on the wire revision.

A server that speaks MCP 2025-06-18 (initialize) and 2026-07-28 (server/discover) is one tool
under two wires: the same calls must be accepted or refused alike, and must show the state they
write alike. Differential testing, as compiler fuzzers do it: the script runs on fresh sessions,
twice in the run's own era and once in the other. What differs between the two runs of one era
(a heartbeat id, a clock, a counter) is the server's own noise and is not compared; so is
anything the script did not write (a result may name its wire, or carry other fields). What
differs between the eras, outside that noise, in whether a call was accepted or in a value the
script wrote, is a finding.

The judgement is on data (:func:`observe`, :func:`noise`, :func:`differences`); :func:`run` does
the calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from conformance.targets.mcp.probe import ABSENT, leaves, same

if TYPE_CHECKING:
    from conformance.targets.mcp.target import McpTarget, ToolReply

__all__ = ["SCRIPT", "Observation", "Step", "differences", "noise", "observe", "run", "written"]

MAX_SHOWN = 80  # characters of a value in a finding


@dataclass(frozen=True)
class Step:
    what: str  # for people
    key: str  # which idempotency key of the run it uses ("k1" …)
    fields: dict[str, Any] = field(default_factory=dict)


# Values nothing else in a result is likely to equal, so a leaf equal to one shows what was written.
FIRST = {
    "status": "active",
    "progressPercent": 10.25,
    "currentStep": "conformance-era-alpha",
    "stepIndex": 7,
    "stepCount": 29,
}
SECOND = {
    "status": "blocked",
    "progressPercent": 55.5,
    "currentStep": "conformance-era-beta",
    "stepIndex": 8,
    "stepCount": 29,
}
SCRIPT = (
    Step("a first report", "k1", FIRST),
    Step("a second report, under a new key", "k2", SECOND),
    Step("a retry of the first report (its key and arguments)", "k1", FIRST),
    Step("the first report's key with other arguments", "k1", {"status": "waiting"}),
    Step("progressPercent 101 (invalid)", "k3", {"progressPercent": 101}),
    Step("a heartbeat with only the required fields", "k4"),
    Step(
        "an acknowledgement of an instruction never delivered",
        "k5",
        {"acknowledgedInstructionIds": ["conformance-never-delivered"]},
    ),
)


def written() -> list[Any]:
    """Every value the script writes: a result's leaf equal to one shows written state."""
    values: list[Any] = []
    for step in SCRIPT:
        for value in step.fields.values():
            if not isinstance(value, list) and not any(same(value, v) for v in values):
                values.append(value)
    return values


@dataclass(frozen=True)
class Observation:
    """What one step was answered: accepted or refused, and the leaves of its result's data that
    equal a value the script wrote (by JSON Pointer)."""

    accepted: bool
    shown: dict[str, Any]
    answer: str  # the answer in one line, for a finding


def observe(reply: ToolReply) -> Observation:
    values = written()
    shown = (
        {p: v for p, v in leaves(reply.data).items() if any(same(v, w) for w in values)}
        if reply.succeeded
        else {}
    )
    return Observation(reply.succeeded, shown, reply.describe()[:300])


async def run(mcp: McpTarget, session_id: str, tag: str) -> list[Observation]:
    """The script on a fresh session, its keys made unique by ``tag``."""
    observed = []
    for step in SCRIPT:
        reply = await mcp.heartbeat(session_id, idempotencyKey=f"idem-{tag}-{step.key}", **step.fields)
        observed.append(observe(reply))
    return observed


def noise(first: list[Observation], second: list[Observation]) -> tuple[set[int], set[tuple[int, str]]]:
    """What two runs in one era do not agree on: the steps accepted in one run only, and the
    pointers of a step whose value (or presence) differs."""
    steps = {n for n, (a, b) in enumerate(zip(first, second, strict=True)) if a.accepted != b.accepted}
    paths = set()
    for n, (a, b) in enumerate(zip(first, second, strict=True)):
        for path in set(a.shown) | set(b.shown):
            if path not in a.shown or path not in b.shown or not same(a.shown[path], b.shown[path]):
                paths.add((n, path))
    return steps, paths


def differences(
    ours: list[Observation],
    theirs: list[Observation],
    unsteady: tuple[set[int], set[tuple[int, str]]],
    *,
    our_era: str,
    their_era: str,
) -> list[str]:
    """The steps the two eras answer differently, outside the noise: one line per step."""
    steps, paths = unsteady
    found = []
    for n, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if n in steps:
            continue
        what = f"step {n + 1} ({SCRIPT[n].what})"
        if a.accepted != b.accepted:
            found.append(f"{what}: over {our_era} {a.answer}; over {their_era} {b.answer}")
            continue
        if not a.accepted:
            continue
        differ = [
            f"{path} {_shown(a.shown.get(path, ABSENT))} / {_shown(b.shown.get(path, ABSENT))}"
            for path in sorted(set(a.shown) | set(b.shown))
            if (n, path) not in paths
            and not (path in a.shown and path in b.shown and same(a.shown[path], b.shown[path]))
        ]
        if differ:
            found.append(
                f"{what}, over {our_era} / {their_era}: {', '.join(differ[:6])}{', …' if len(differ) > 6 else ''}"
            )
    return found


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"
