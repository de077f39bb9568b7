"""Model-based sequences: Hypothesis-generated lifecycle and status calls against the session model."""

from pathlib import Path

import anyio.to_thread
from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import MissingInput, NotTestable, Violation
from conformance.core.profiles import PROFILES
from conformance.core.registry import Level, case
from conformance.replay.files import numbered_steps, write_replay
from conformance.targets.acp.machine import SequenceRun, reproduced_text, run_sequences
from conformance.targets.acp.sequences import RULES
from conformance.targets.acp.target import AcpTarget

CASE_ID = "sequence.status.model-based"


@case(CASE_ID, level=Level.MUST, spec=spec.NO_SIDE_EFFECTS, rules=tuple(RULES), slow=True)
async def model_based_sequences(acp: AcpTarget, details: dict) -> None:
    """Random sequences of lifecycle and status calls never contradict the session model."""
    config = acp.harness.config
    await acp.new_session()  # a session can be had at all (an agent needing authentication says so)
    report_dir = Path(config.report_dir) if config.report_dir else None
    run = await anyio.to_thread.run_sync(
        lambda: run_sequences(acp, PROFILES[config.profile], seed_value=config.seed, report_dir=report_dir)
    )
    details.update(profile=run.profile, seed=run.seed, examples=run.examples, steps_run=run.steps_run)
    if run.budget_note:
        details["budget_note"] = run.budget_note
    if run.failure is None:
        return
    steps = [s.to_json() for s in run.steps]
    details["steps"] = steps
    details["sequence"] = numbered_steps(run.steps)
    failed, tries = run.reproduced
    early = [r for r in run.replays if not r.to_its_end]
    reproduced = {
        "failed": failed,
        "tries": tries,
        "text": reproduced_text(run.reproduced, run.pace, len(early)),
    }
    details["reproduced"] = reproduced
    if run.replays:
        details["replays"] = [r.to_json() for r in run.replays]
    if run.pace is not None and run.pace.wait:
        last = next(n for n, line in enumerate(details["sequence"]) if line.startswith(f"{len(run.steps)}. "))
        details["sequence"].insert(last, f"   (the agent left alone {run.pace.wait:g} s here)")
    if report_dir is not None:
        path = write_replay(
            report_dir / "replays",
            case_id=CASE_ID,
            command=config.command,
            cwd=config.cwd,
            agent_info=acp.agent_info,
            spec_revision=revisions.current().name,
            seed=run.seed,
            profile=run.profile,
            failure=run.failure,
            steps=steps,
            target=acp.name,
            config=config,
            reproduced=reproduced,
            pace=run.pace.to_json() if run.pace is not None else None,
        )
        details["replay_file"] = str(path)
    if run.unjudged:
        raise MissingInput(
            f"the sequence that failed ({run.failure}) is not status's doing: {run.unjudged}; the sequences cannot "
            "judge this agent's list entries over time (the twin cases compare them against sessions status was "
            "not asked about)",
            observed="\n".join(numbered_steps(run.steps, frames=False)),
        )
    if run.rule == "twins-differ" and not failed and run.pace is None:
        # A difference between twins is an inference (the twins' own variation can part them
        # too), unlike an answer the model forbids, which is wrong whenever it is seen: one that
        # never came again alone is not laid on status. A replay that broke another rule on the
        # way is such an answer, whatever became of the twins.
        _other_finding(run, details)
        cut = (
            f" {len(early)} of the {len(run.replays)} replays alone ended early and are not counted: "
            + "; ".join(r.describe() for r in early[:3])
            + "."
            if early
            else ""
        )
        raise MissingInput(
            f"inconclusive: twins parted in the full run, and the sequence was {run.failure}.{cut} A difference "
            "between twins that does not come again is not laid on status; run the case again (-k) to look again",
            observed="\n".join(numbered_steps(run.steps, frames=False)),
        )
    if run.rule == "prerequisite":
        raise NotTestable(f"{run.failure} (seed {run.seed})", observed="\n".join(details["sequence"]))
    raise Violation(
        f"{run.failure} (minimal sequence of {len(run.steps)} steps, seed {run.seed}; {reproduced['text']})",
        expected=f"every answer allowed by the session model; the rule broken: {RULES.get(run.rule or '', run.rule)}",
        # the steps and answers; their frames are the case's transcript, not repeated here
        observed="\n".join(numbered_steps(run.steps, frames=False)),
        rule=run.rule if run.rule in RULES else None,
        spec_key="envelope" if run.rule == "envelope" else None,
    )


def _other_finding(run: SequenceRun, details: dict) -> None:
    """A replay alone of the twins' sequence that broke another of the model's rules (or failed a
    prerequisite the agent advertised): that finding, judged as the run's own would be."""
    other = [r for r in run.replays if r.ending == "other" and r.failure is not None]
    other.sort(
        key=lambda r: r.failure is None or r.failure.rule not in RULES
    )  # a rule first, then a prerequisite
    if not other or other[0].failure is None:
        return
    replay, failure = other[0], other[0].failure
    details["found in a replay"] = replay.to_json()
    steps = "\n".join(numbered_steps(run.steps, frames=False))
    said = (
        f"replayed alone ({replay.pace}), the sequence in which twins parted broke another rule: {failure} (seed "
        f"{run.seed}; the twins' difference itself did not come again in the replays that ran to their end)"
    )
    if failure.rule not in RULES:
        raise NotTestable(said, observed=steps)
    raise Violation(
        said,
        expected=f"every answer allowed by the session model; the rule broken: {RULES[failure.rule]}",
        observed=steps,
        rule=failure.rule,
        spec_key="envelope" if failure.rule == "envelope" else None,
    )
