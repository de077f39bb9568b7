"""MCP `session_heartbeat` among everything else the server offers: twin sequences over its surface.

Only a heartbeat reports a session's state or acknowledges its instructions. Every other call the
server takes (its other tools, a tool name it does not list, an invalid heartbeat, a retry,
another caller's heartbeat) must leave both alone. Twin sessions run the same instruction-queue
steps, and one of them also gets those calls; after each step the two must answer alike
(conformance/targets/mcp/twinseq.py says how, and how a divergence is confirmed before it is
blamed: the minimal sequence again with the roles swapped).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrated
from conformance.targets.mcp.target import McpTarget

# "Use the tool name below in params.name."
NAME = requirement("mcp-session-heartbeat-2025-06-18", "name")
SEQUENCES_ID = "heartbeat.surface.twin-sequences"
# The rule a finding names: the kind of the nudge blamed (tool:NAME is "tool").
RULES = ("rejected", "retry", "unlisted", "tool", "resources", "prompts", "other-caller")


@contextlib.asynccontextmanager
async def _caller_b(mcp: McpTarget) -> AsyncIterator[McpTarget | None]:
    if mcp.harness.config.transport != "http" or mcp.options.other_headers is None:
        yield None
        return
    async with mcp.other_caller() as other:
        yield other


@case(SEQUENCES_ID, level=Level.MUST, spec=NAME, needs=("heartbeat",), rules=RULES, slow=True)
async def twin_sequences(mcp: McpTarget, details: dict) -> None:
    """Twin sessions run the same queue steps; one also gets every other call the server offers
    (its other tools, an unlisted tool name, invalid calls, retries, caller B): the twins must answer
    alike."""
    import anyio.to_thread

    from conformance.core.profiles import PROFILES
    from conformance.replay.files import numbered_steps
    from conformance.targets.mcp.queue import calibrate_timing
    from conformance.targets.mcp.twinseq import NUDGES, run_twin_sequences, surface

    config = mcp.harness.config
    await mcp.require_made_up_sessions()  # twins are sessions the suite opens
    probe, unreadable = await calibrated(mcp)
    details["probe"] = probe.describe() if probe is not None else f"none: {unreadable}"
    settle = (await calibrate_timing(mcp)).settle if mcp.can_instruct else 0.0
    async with _caller_b(mcp) as other:
        details["surface"] = surface(mcp, other_caller=other is not None)
        run = await anyio.to_thread.run_sync(
            lambda: run_twin_sequences(
                mcp, PROFILES[config.profile], probe, settle, other, seed_value=config.seed
            )
        )
    details.update(profile=run.profile, seed=run.seed, examples=run.examples)
    if run.watched:  # the report's Coverage says how long the run watched
        details["watched"] = round(run.watched, 2)
    if run.swapped is not None and run.failure is None:
        details["unconfirmed"] = run.swapped
    if run.failure is None:
        return
    kind = (run.kind or "").partition(":")[0]
    details["steps"] = [s.to_json() for s in run.steps]
    raise Violation(
        f"{run.failure} (minimal sequence of {len(run.steps)} steps, seed {run.seed}; with the roles swapped: "
        f"{run.swapped})",
        expected="both twins answered alike: only a heartbeat reports a session's state or acknowledges its "
        f"instructions, and {NUDGES.get(kind, 'that call')} changes nothing",
        observed="\n".join(numbered_steps(run.steps, frames=False)),
        rule=kind if kind in RULES else None,
    )
