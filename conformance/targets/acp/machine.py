"""Hypothesis drives the sequence driver: a RuleBasedStateMachine over one agent.

Each example gets a fresh model and fresh sessions on the shared agent process; only the
methods the agent advertises are used. Hypothesis shrinks a failing sequence to a minimal one,
and the last run (the shrunk sequence, replayed once more by Hypothesis) is what the report
shows and the replay file holds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

import anyio.from_thread
from hypothesis import seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import Bundle, RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from conformance.core import progress
from conformance.core.outcomes import RunInterrupted
from conformance.core.profiles import (
    BudgetSpent,
    Profile,
    ShrinkBudgetSpent,
    hypothesis_dir,
    hypothesis_settings,
)
from conformance.targets.acp.sequences import RACES, REFINES, Driver, SequenceFailure, Step, Surface, discover
from conformance.targets.acp.target import AcpTarget

__all__ = ["Pace", "Replay", "SequenceRun", "reproduced_text", "run_sequences"]


MAX_SESSIONS = 3
MAX_UNKNOWN = 2
NOTHING_OFFERED = Surface()


@dataclass
class SequenceRun:
    profile: str
    seed: int
    examples: int
    failure: str | None
    steps: list[Step]
    dry_examples: int = 0  # examples that ran no steps because the time budget was spent
    rule: str | None = None  # the model's rule the failure broke (see sequences.RULES)
    steps_run: int = 0  # steps sent to the agent, the scenarios' included
    budget_spent: bool = False  # the time budget (waiting for the agent included) ended the run
    pace: Pace | None = None  # how the minimal sequence was replayed when it failed alone
    # (failed, tries): the minimal sequence replayed alone, counting only the replays that ran to
    # their end (those that failed the same way and those that ran clean)
    reproduced: tuple[int, int] = (0, 0)
    replays: tuple[Replay, ...] = ()  # how each replay alone ended, those cut short included
    # Why the failure is not status's doing (the same steps without their status calls fail the
    # same way: the agent's own timer or background write), or "" when it is.
    unjudged: str = ""

    @property
    def budget_note(self) -> str | None:
        """What the time budget cut, for the report (None when it cut nothing)."""
        if not self.budget_spent and not self.dry_examples:
            return None
        return (
            f"time budget spent (waiting for the agent included): {self.steps_run} steps ran in "
            f"{self.examples - self.dry_examples} examples"
            + (f"; the last {self.dry_examples} examples ran no steps" if self.dry_examples else "")
        )


class _Hooks:
    """What a machine asks of the run that drives it: a fresh driver per example, whether the next
    step or restart may run, and where a failure goes."""

    def __init__(
        self,
        target: AcpTarget,
        new_driver: Callable[[], Driver],
        on_failure: Callable[[SequenceFailure], None],
        may_restart: Callable[[], bool],
        may_step: Callable[[], bool],
        surface: Surface = NOTHING_OFFERED,
    ) -> None:
        self.target = target
        self.surface = surface
        self.new_driver = new_driver
        self.on_failure = on_failure
        self.may_restart = may_restart
        self.may_step = may_step
        self.can = target.advertises
        self.reopen = target.advertises("resume") or target.advertises("load")
        self.memory_cap = target.policy.memory_cap
        self.both_ways_back = target.advertises("resume") and target.advertises("load")
        self.second_connection = target.harness.current_url() is not None


class _SessionRules(RuleBasedStateMachine):
    """The rules whose drawn values depend on nothing but the sessions; ``build_machine`` adds the
    two that draw from the agent's methods and the profile's restart odds."""

    # Never-created ids share the bundle: every rule probes them too (status, resume, close…).
    sessions = Bundle("sessions")
    hooks: ClassVar[_Hooks]

    def __init__(self) -> None:
        super().__init__()
        self.driver = self.hooks.new_driver()
        self.restarts = 0
        self.pressed = False
        self.waited = False
        self.drawn = 0

    def _do(self, step: Step) -> None:
        self.drawn += 1  # the steps drawn, whether or not they run: what preconditions may read
        if self.hooks.target.harness.closing:
            raise RunInterrupted
        if self.driver.dry:
            return
        if not self.hooks.may_step():  # a slow agent's turns: the budget ends the example mid-way
            self.driver.dry = True
            return
        try:
            anyio.from_thread.run(self.driver.run, step)
        except SequenceFailure as failure:
            self.hooks.on_failure(failure)
            raise

    # Few sessions per example, so steps pile up on each: the bugs worth finding need several
    # lifecycle and status calls on the same session.
    @precondition(lambda self: self.driver.count("s") < MAX_SESSIONS)
    @rule(target=sessions)
    def new(self) -> str:
        ref = self.driver.next_ref("s")
        self._do(Step("new", ref))
        return ref

    @precondition(lambda self: self.driver.count("u") < MAX_UNKNOWN)
    @rule(target=sessions)
    def unknown(self) -> str:
        ref = self.driver.next_ref("u")
        self._do(Step("unknown", ref))
        return ref

    @rule(ref=sessions, meta=st.booleans())
    def status(self, ref: str, meta: bool) -> None:
        self._do(Step("status", ref, meta=meta))

    # Clients may call status often (a routing probe): a burst of calls on one session, each
    # recorded as its own step, so shrinking finds the fewest calls that still fail.
    @rule(ref=sessions, times=st.integers(2, 5))
    def status_repeatedly(self, ref: str, times: int) -> None:
        for _ in range(times):
            self._do(Step("status", ref))

    # Overlapping calls: status calls for one session in flight together (a routing layer
    # polls in parallel), and status calls on both sides of a lifecycle call on the session.
    @rule(ref=sessions, times=st.integers(2, 8))
    def status_burst(self, ref: str, times: int) -> None:
        self._do(Step("burst", ref, times=times))

    # A request allowance that status calls spend shows only past the allowance: many status calls
    # at once, then the twins' prompts compared.
    @rule(ref=sessions, times=st.sampled_from((16, 32)))
    def status_spend(self, ref: str, times: int) -> None:
        self._do(Step("burst", ref, times=times))

    # Memory pressure about the declared cap (--memory-cap): a few sessions past what the twins leave
    # room for. It costs as many session/new calls as the cap, so once per example, early.
    @precondition(lambda self: self.hooks.memory_cap is not None and not self.pressed and self.drawn < 8)
    @rule(_=sessions, extra=st.integers(-1, 1))
    def pressure(self, _: str, extra: int) -> None:
        self.pressed = True
        assert self.hooks.memory_cap is not None
        self._do(Step("pressure", times=max(self.hooks.memory_cap + extra, 1)))

    # Waits of growing length, up to the profile's hold: once per example, early, so the steps after
    # see what time did. Hypothesis favours the ends of the list: the shortest and the longest.
    @precondition(lambda self: not self.waited and self.drawn < 4)
    # Like a restart, only one ticket in eight waits: a wait spends the budget's seconds doing nothing.
    @rule(_=sessions, share=st.sampled_from((1, 3, 10, 30)), ticket=st.integers(0, 7))
    def wait(self, _: str, share: int, ticket: int) -> None:
        self.waited = True
        if ticket != 5:
            return
        config = self.hooks.target.harness.config
        # ci's budget is 20 s of steps: its waits stay under a second; the deeper profiles wait up
        # to the hold.
        longest = 1.0 if config.profile in ("ci", "smoke") else config.hold_seconds
        self._do(Step("wait", times=max(1, round(min(share / 10, longest) * 10))))

    @rule(ref=sessions)
    def prompt(self, ref: str) -> None:
        self._do(Step("prompt", ref))

    @rule(ref=sessions)
    def cancel(self, ref: str) -> None:
        self._do(Step("cancel", ref))

    @precondition(lambda self: self.hooks.can("close"))
    @rule(ref=sessions)
    def close(self, ref: str) -> None:
        self._do(Step("close", ref))

    @precondition(lambda self: self.hooks.reopen)
    @rule(ref=sessions)
    def reopen(self, ref: str) -> None:
        self._do(Step("reopen", ref))

    # A second connection (WebSocket, Streamable HTTP): B's status, then B's prompt, on each twin.
    @precondition(lambda self: self.hooks.second_connection)
    @rule(ref=sessions)
    def remote(self, ref: str) -> None:
        self._do(Step("remote", ref))

    # An agent that offers both ways back: the reopen step resumes, this one loads.
    @precondition(lambda self: self.hooks.both_ways_back)
    @rule(ref=sessions)
    def load(self, ref: str) -> None:
        self._do(Step("load", ref))

    # list and restart take a session they ignore: with none yet, only new and unknown can run,
    # so examples do not spend their steps listing nothing.
    @precondition(lambda self: self.hooks.can("list"))
    @rule(_=sessions)
    def list_sessions(self, _: str) -> None:
        self._do(Step("list"))


def build_machine(
    target: AcpTarget,
    new_driver: Callable[[], Driver],
    restarts: int,
    restart_odds: int,
    on_failure: Callable[[SequenceFailure], None] = lambda failure: None,
    may_restart: Callable[[], bool] = lambda: True,
    may_step: Callable[[], bool] = lambda: True,
    surface: Surface = NOTHING_OFFERED,
) -> type[RuleBasedStateMachine]:
    """``may_step()``: whether the next step may run (False: the time budget is spent, and the rest
    of the example runs dry); it may raise BudgetSpent or ShrinkBudgetSpent to end the run.
    Hypothesis orders rules by name, so where a rule is declared does not change what a seed draws."""
    hooks = _Hooks(target, new_driver, on_failure, may_restart, may_step, surface)
    races = [
        r
        for r in RACES
        if r == "prompt" or (r == "close" and hooks.can("close")) or (r == "reopen" and hooks.reopen)
    ]
    sessions = _SessionRules.sessions

    class StatusMachine(_SessionRules):
        @rule(ref=sessions, during=st.sampled_from(races), times=st.integers(1, 3))
        def status_race(self, ref: str, during: str, times: int) -> None:
            self._do(Step("race", ref, times=times, during=during))

        # A restart costs a process start (0.1-1.6 s), so most draws of this rule do nothing: only
        # one ticket in the middle of the range restarts (Hypothesis favours the ends of a range).
        # Shrinking lowers tickets (no restart) and deletes steps that do nothing, so it never
        # adds restarts, and keeps one only where the failure needs it.
        @precondition(lambda self: self.restarts < restarts)
        @rule(_=sessions, ticket=st.integers(0, restart_odds - 1))
        def restart(self, _: str, ticket: int) -> None:
            if ticket == restart_odds // 2 + 1:
                self.restarts += 1  # drawn, whether or not it runs: the rules' data stays the same
                if self.hooks.may_restart():
                    self._do(Step("restart"))
                else:
                    # Counted as _do counts a step: the preconditions that read it (pressure, wait)
                    # must hold alike whether the run's restarts are spent (an early example) or
                    # every replay restarts (a failure being shrunk), or Hypothesis finds the
                    # rules' data changed between a failure and its replay.
                    self.drawn += 1

        # The rest of the surface, as the agent offers it (sequences.Surface), each on both twins.
        # A rule exists only for what the agent offers: an agent that offers none draws as it
        # always did (Hypothesis draws among all rules, so a rule whose precondition never holds
        # would still move every seed). session/delete ends a pair for good, so it is not drawn
        # among the random steps, where it would cut most sequences short: the twin scenarios
        # delete after status calls instead.
        # Long prompts grow a session's history; thorough draws them (ci's scenarios have one grown
        # history; a real agent's long turn costs a model call's tokens). Campaigns draw as ci does,
        # so an example one found replays in a ci run given the same --db.
        if target.harness.config.profile == "thorough":

            @rule(ref=sessions, kilobytes=st.sampled_from(LONG_PROMPTS_KB))
            def prompt_long(self, ref: str, kilobytes: int) -> None:
                self._do(Step("prompt", ref, times=kilobytes))

        if surface.modes:

            @rule(ref=sessions, pick=st.integers(0, 7))
            def set_mode(self, ref: str, pick: int) -> None:
                self._do(Step("mode", ref, during=surface.modes[pick % len(surface.modes)]))

        if surface.configs:

            @rule(ref=sessions, pick=st.integers(0, 7))
            def set_config(self, ref: str, pick: int) -> None:
                self._do(Step("config", ref, during=surface.configs[pick % len(surface.configs)]))

        if surface.extensions:

            @rule(ref=sessions, pick=st.integers(0, 7))
            def extension(self, ref: str, pick: int) -> None:
                self._do(Step("ext", ref, during=surface.extensions[pick % len(surface.extensions)]))

        if surface.fork:

            @rule(ref=sessions)
            def fork(self, ref: str) -> None:
                self._do(Step("fork", ref))

        if surface.archive:

            @rule(ref=sessions)
            def archive(self, ref: str) -> None:
                self._do(Step("archive", ref))

            @rule(ref=sessions)
            def unarchive(self, ref: str) -> None:
                self._do(Step("unarchive", ref))

        if surface.title:

            @rule(ref=sessions)
            def set_title(self, ref: str) -> None:
                self._do(Step("title", ref))

    StatusMachine.hooks = hooks
    return StatusMachine


def twin_scenarios(
    memory_cap: int | None,
    second_connection: bool = False,
    surface: Surface = NOTHING_OFFERED,
    can: Callable[[str], bool] = lambda name: False,
) -> list[list[Step]]:
    """What only twins show, run first: a request allowance status calls spend (many status calls,
    then both twins prompted), and with a declared memory cap an eviction order status calls change
    (status calls about one twin, then as many sessions as leave one twin room, then both prompted).
    Then each part of the surface the agent offers, once on each side of a status call: a setting
    set, status, and the setting read back by a resume (or set after status); a delete after
    a burst of status calls; an extension method, status, and the list."""
    found = [[Step("new", "s0"), Step("burst", "s0", times=32), Step("prompt", "s0")]]
    reopen = "reopen" if can("resume") or can("load") else None
    for op, offered in (("mode", surface.modes), ("config", surface.configs)):
        if offered:
            # the last value offered: the first is most often the default, which nothing resets
            found.append([Step("new", "s0"), Step("status", "s0"), Step(op, "s0", during=offered[-1])])
            if reopen:
                found.append(
                    [
                        Step("new", "s0"),
                        Step(op, "s0", during=offered[-1]),
                        Step("status", "s0"),
                        Step(reopen, "s0"),
                    ]
                )
    if surface.delete:
        # status calls in flight together, then the delete: a lone call's side effect shows too;
        # and a session let go, asked about, deleted, asked again (status owes -32002 then)
        # (sixteen: calls written together overlap inside the agent even when it reads them slowly)
        found.append([Step("new", "s0"), Step("burst", "s0", times=16), Step("delete", "s0")])
        found.append(
            [
                Step("new", "s0"),
                Step("prompt", "s0"),
                Step("status", "s0"),
                Step("delete", "s0"),
                Step("status", "s0"),
            ]
        )
    for name in surface.extensions:
        found.append([Step("new", "s0"), Step("status", "s0"), Step("ext", "s0", during=name)])
        if can("list"):
            found.append(
                [Step("new", "s0"), Step("ext", "s0", during=name), Step("status", "s0"), Step("list")]
            )
    if surface.fork:  # the fork of a live session and of one let go, each asked about at once
        found.append([Step("new", "s0"), Step("prompt", "s0"), Step("status", "s0"), Step("fork", "s0")])
        if can("close"):
            found.append([Step("new", "s0"), Step("prompt", "s0"), Step("close", "s0"), Step("fork", "s0")])
    if surface.archive:
        # archived (closed as by session/close), asked about, unarchived (never loaded), asked
        # again, then resumed: an archived session is known and resumable once unarchived
        found.append(
            [
                Step("new", "s0"),
                Step("prompt", "s0"),
                Step("archive", "s0"),
                Step("status", "s0"),
                Step("unarchive", "s0"),
                Step("status", "s0"),
                *([Step(reopen, "s0"), Step("status", "s0")] if reopen else []),
            ]
        )
    if surface.title:  # retitled while let go (it need not be in memory), and while live
        if can("close"):
            found.append(
                [
                    Step("new", "s0"),
                    Step("close", "s0"),
                    Step("status", "s0"),
                    Step("title", "s0"),
                    Step("status", "s0"),
                ]
            )
        found.append(
            [
                Step("new", "s0"),
                Step("status", "s0"),
                Step("title", "s0"),
                *([Step("list")] if can("list") else []),
            ]
        )
    if second_connection:  # B asks, then prompts; B's prompt on the twin is the control
        found.append([Step("new", "s0"), Step("remote", "s0")])
    if memory_cap is not None:
        found.append(
            [
                Step("new", "s0"),
                *[Step("status", "s0") for _ in range(3)],
                Step("pressure", times=max(memory_cap - 1, 1)),
                Step("prompt", "s0"),
            ]
        )
    return found


# The long prompts of the grown-history scenario, in kilobytes: 40 KB of history in all, each
# prompt well under the 64 KiB line limit of common JSON-RPC readers even when echoed.
LONG_PROMPTS_KB = (4, 12, 24)


def scenarios(can: Callable[[str], bool], restartable: bool) -> list[list[Step]]:
    """The step combinations that matter, run before Hypothesis generates its own: a session put
    in each lifecycle state, asked for its status (plainly, with `_meta`, three times), then looked
    at through every other method. They do not depend on the seed, so a bug one of them shows is
    found by every run, whatever the budget leaves to chance."""
    reopen = can("resume") or can("load")
    prefixes = [["new"], ["new", "prompt"], ["new", "cancel"], ["new", "prompt", "cancel"], ["unknown"]]
    if can("close"):
        prefixes += [["new", "close"], ["new", "prompt", "close"]]
        if reopen:
            prefixes.append(["new", "prompt", "close", "reopen"])
    asks: list[list[Step]] = [
        [Step("status", "s0")],
        [Step("status", "s0", meta=True)],
        [Step("status", "s0") for _ in range(3)],
    ]
    probes: list[tuple[list[str], list[str]]] = [([], ["status"]), ([], ["prompt", "status"])]
    if can("list"):
        probes.append((["list"], ["list"]))
    if reopen:
        probes.append(([], ["reopen", "status"]))
    if can("resume") and can("load"):  # the reopen step resumes: a load, then status, too
        probes.append((["load"], ["status"]))
    if can("close"):
        probes.append(([], ["close", "status"]))
    # Overlapping calls, in each state once: a burst of status calls, then a lone one, the list
    # and a resume; status calls on both sides of a close, then a lone one.
    overlaps: list[list[str]] = [
        ["burst", "status", *(["list"] if can("list") else []), *(["reopen"] if reopen else [])]
    ]
    if can("close"):
        overlaps.append(["race-close", "status"])
    found: list[list[Step]] = []
    for prefix in prefixes:
        ref = "u0" if prefix == ["unknown"] else "s0"
        for ask in asks:
            for before, after in probes:
                steps = [_step(op, ref) for op in prefix + before]
                steps += [Step(s.op, ref, meta=s.meta) for s in ask]
                steps += [_step(op, ref) for op in after]
                found.append(steps)
        found += [[_step(op, ref) for op in prefix + overlap] for overlap in overlaps]
    # A session whose history grows large over ordinary turns, then let go and asked about: what
    # an agent keeps by size (compressed, chunked, moved to another store) shows only then.
    grown = [Step("new", "s0"), *[Step("prompt", "s0", times=kb) for kb in LONG_PROMPTS_KB]]
    if can("close"):
        grown += [Step("close", "s0"), Step("status", "s0")]
        grown += [_step("reopen", "s0"), Step("status", "s0")] if reopen else []
    else:
        grown.append(Step("status", "s0"))
    found.append(grown)
    if restartable:  # one only: a restart costs a process start
        found.append(
            [_step(op, "s0") for op in ("new", "prompt", "restart", "status")]
            + [
                Step("status", "s0", meta=True),
                *([_step("reopen", "s0"), _step("status", "s0")] if reopen else []),
            ]
        )
    return found


def _step(op: str, ref: str) -> Step:
    if op == "burst":
        return Step("burst", ref, times=4)
    if op.startswith("race-"):
        return Step("race", ref, times=2, during=op.removeprefix("race-"))
    return Step(op, None if op in ("list", "restart") else ref)


def run_sequences(
    target: AcpTarget, profile: Profile, *, seed_value: int | None, report_dir: Path | None
) -> SequenceRun:
    """Run the scenarios, then the state machine (call from a worker thread: steps run on the
    runtime's loop)."""
    chosen = seed_value if seed_value is not None else profile.fixed_seed
    if chosen is None:
        chosen = random.SystemRandom().randrange(2**32)
    search = _Search(target, profile, chosen)
    search.surface = anyio.from_thread.run(discover, target)
    found = _run_scenarios(search)
    if found is not None:
        return found
    return _run_machine(search, report_dir)


class _Search:
    """One run's counts, its time budgets and the shortest failure seen: what the scenarios and the
    state machine's hooks share, and what the run reports."""

    def __init__(self, target: AcpTarget, profile: Profile, chosen: int) -> None:
        self.target = target
        self.profile = profile
        self.seed = chosen
        self.examples = 0
        self.dry = 0
        self.steps_run = 0
        self.restarted = 0
        self.started = time.monotonic()
        self.last_driver: Driver | None = None
        self.surface = NOTHING_OFFERED  # what the agent offers beside the lifecycle (set before any step)
        # (when first seen, the steps, the failure) of the shortest failing example so far: what a
        # run whose shrinking took its budget reports.
        self.smallest: tuple[float, list[Step], SequenceFailure] | None = None

    def over_budget(self) -> bool:
        # The budget is wall time, the agent's answers and turns included: a sequence of slow
        # turns stops at it (one step over at most) and says how many steps it ran.
        return time.monotonic() - self.started > self.profile.budget

    def shrink_deadline(self) -> float | None:
        # The last pass replays the failure once per step it tries to remove: instant on a fast
        # agent, a turn each on a slow one. It gets the larger of the two budgets.
        if self.profile.shrink_budget is None:
            return None
        return time.monotonic() + max(self.profile.shrink_budget, self.profile.budget)

    def _check_shrink_budget(self) -> None:
        budget = self.profile.shrink_budget
        if self.smallest and budget is not None and time.monotonic() - self.smallest[0] > budget:
            raise ShrinkBudgetSpent

    def new_driver(self) -> Driver:
        self.examples += 1
        progress.example()
        # Past the budget, and with nothing found yet, examples run no steps: a very slow agent
        # ends the case in bounded time (the report says how many examples ran).
        if self.target.harness.closing:
            raise RunInterrupted
        over = self.over_budget() and not self.smallest
        if over and self.profile.stop_at_budget:
            raise BudgetSpent
        self._check_shrink_budget()
        self.dry += over
        self.last_driver = Driver(self.target, dry=over)
        return self.last_driver

    def on_failure(self, failure: SequenceFailure) -> None:
        assert self.last_driver is not None  # the machine made its driver before any step ran
        steps = list(self.last_driver.steps)
        if not self.smallest:
            self.smallest = (time.monotonic(), steps, failure)
        elif len(steps) < len(self.smallest[1]):
            self.smallest = (self.smallest[0], steps, failure)

    def may_step(self) -> bool:
        self._check_shrink_budget()
        if not self.smallest and self.over_budget():
            if self.profile.stop_at_budget:
                raise BudgetSpent
            return False
        self.steps_run += 1
        return True

    def may_restart(self) -> bool:
        # Once a failure is seen, every replay restarts where its example did: shrinking needs
        # the same steps to run.
        limit = self.profile.max_restarts
        if self.smallest or limit is None or self.restarted < limit:
            self.restarted += 1
            return True
        return False

    def failed(self, steps: list[Step], failure: SequenceFailure) -> SequenceRun:
        """The run's result: the failure shrunk to the fewest steps that still show it."""
        found = minimize(self.target, steps, failure, deadline=self.shrink_deadline())
        return SequenceRun(
            self.profile.name,
            self.seed,
            self.examples,
            str(found),
            found.steps,
            rule=found.rule,
            steps_run=self.steps_run,
            pace=found.pace,
            reproduced=found.reproduced,
            replays=found.replays,
            unjudged=found.unjudged,
        )

    def passed(self, *, budget_spent: bool) -> SequenceRun:
        return SequenceRun(
            self.profile.name,
            self.seed,
            self.examples,
            None,
            [],
            dry_examples=self.dry,
            steps_run=self.steps_run,
            budget_spent=budget_spent,
        )


def _run_scenarios(search: _Search) -> SequenceRun | None:
    """Replay each scenario as its own example: the run's result if one fails or the budget ends
    the run, else None (the state machine runs next)."""
    target, profile = search.target, search.profile
    restartable = target.harness.config.restartable
    for steps in [
        *twin_scenarios(
            target.policy.memory_cap,
            target.harness.current_url() is not None,
            search.surface,
            target.advertises,
        ),
        *scenarios(target.advertises, restartable and profile.restarts_per_example > 0),
    ]:
        if target.harness.closing:
            raise RunInterrupted
        if search.over_budget():
            if profile.stop_at_budget:
                break  # a campaign's round: its examples are the generated ones that follow
            return search.passed(budget_spent=True)
        search.examples += 1
        progress.example()
        failure, ran = replay_steps(target, steps, stop=search.over_budget)
        search.steps_run += len(ran)
        if failure is not None:
            return search.failed(ran, failure)
    return None


def _run_machine(search: _Search, report_dir: Path | None) -> SequenceRun:
    """Let Hypothesis generate and shrink sequences until one fails or the budget is spent."""
    target, profile = search.target, search.profile
    machine = build_machine(
        target,
        search.new_driver,
        # An agent the suite did not start (--agent-url) cannot be restarted: no restart steps.
        profile.restarts_per_example if target.harness.config.restartable else 0,
        profile.restart_odds,
        search.on_failure,
        search.may_restart,
        search.may_step,
        search.surface,
    )

    def factory() -> RuleBasedStateMachine:
        return machine()

    database_dir = hypothesis_dir(report_dir) if report_dir is not None else None
    config = hypothesis_settings(
        profile, profile.max_examples, database_dir, stateful_step_count=profile.steps
    )
    try:
        # Hypothesis calls the factory; its annotation names only a state machine class.
        run_state_machine_as_test(
            cast("type[RuleBasedStateMachine]", seed(search.seed)(factory)), settings=config
        )
    # Flaky: a failure Hypothesis saw did not fail again when it replayed it (a bug that depends on
    # timing or on what ran before); what was seen stands, and minimize() replays it once more.
    except (ShrinkBudgetSpent, Flaky):
        if not search.smallest:
            raise
        _, steps, exc = search.smallest
        return search.failed(steps, exc)
    except BudgetSpent:
        pass
    except SequenceFailure as exc:
        assert search.last_driver is not None  # the failing example's driver
        return search.failed(search.last_driver.steps, exc)
    return search.passed(budget_spent=search.over_budget())


@dataclass(frozen=True)
class Pace:
    """How a sequence is replayed: as fast as the agent answers; at the times its steps ran when
    Hypothesis found it (``offsets``, seconds from the first step); or with the agent left alone
    ``wait`` seconds before the last step (a state that changes a moment later in the background,
    set off by a step before, or by an earlier example Hypothesis ran)."""

    offsets: tuple[float, ...] | None = None
    wait: float = 0.0

    def describe(self) -> str:
        if self.offsets is not None:
            return "at the times its steps ran when it was found"
        if self.wait:
            return f"with the agent left alone {self.wait:g} s before the last step"
        return "as fast as the agent answers"

    def to_json(self) -> dict[str, Any]:
        return {"offsets": list(self.offsets) if self.offsets is not None else None, "wait": self.wait}

    @classmethod
    def from_json(cls, data: Any) -> Pace:
        if not isinstance(data, dict):
            return cls()
        offsets = data.get("offsets")
        return cls(
            tuple(float(o) for o in offsets) if isinstance(offsets, list) else None,
            float(data.get("wait") or 0.0),
        )

    def without(self, start: int, stop: int) -> Pace:
        """The pace of the sequence with steps ``start:stop`` removed (the others keep their times)."""
        if self.offsets is None:
            return self
        return Pace(self.offsets[:start] + self.offsets[stop:], self.wait)

    def cut(self, length: int) -> Pace:
        return self if self.offsets is None else Pace(self.offsets[:length], self.wait)


# Replays of the minimal sequence alone that measure how it reproduces (the report's "reproduced
# alone k of n", from which `replay` and `reproduce` take how many tries a FIXED needs).
REPRODUCE_TRIES = 3
# Replays at one pace that must all fail before shrinking replays at it.
PACE_TRIES = 2
# Waits before the last step tried, shortest first, once the sequence failed with the agent left
# alone --hold seconds there: the shortest that still fails is the one shrinking replays with.
WAITS = (0.25, 0.5, 1.0, 2.0)


def step_offsets(steps: list[Step]) -> tuple[float, ...]:
    """When each step ran, in seconds from the first, read off the first frame it sent (a step
    that sent nothing, a never-created id, takes the time of the step before)."""
    times: list[float] = []
    last = 0.0
    for step in steps:
        sent = [t for t in (f.get("t") for f in step.frames) if isinstance(t, int | float)]
        if sent:
            last = float(sent[0])
        times.append(last)
    first = next((t for t, step in zip(times, steps, strict=True) if step.frames), 0.0)
    return tuple(max(0.0, t - first) for t in times)


@dataclass(frozen=True)
class Replay:
    """How one replay alone of a failure's steps ended: "failed" (the same rule broken again),
    "clean" (every step ran, nothing broken), "other" (another of the model's rules broken, or a
    prerequisite failed: ``failure``), or "cut" (it ended before its last step: ``why``). Only the
    first two ran to their end: a replay cut short says nothing of whether the failure comes again."""

    ending: str
    ran: int
    of: int
    pace: str
    failure: SequenceFailure | None = None
    why: str = ""

    @property
    def to_its_end(self) -> bool:
        return self.ending in ("failed", "clean")

    def describe(self) -> str:
        where = f"{self.pace}, {self.ran} of {self.of} steps"
        if self.ending == "other" and self.failure is not None:
            return f"broke another rule ({self.failure.rule}; {where}): {self.failure}"
        if self.ending == "cut":
            return f"ended early ({where}): {self.why}"
        return f"{'failed the same way' if self.ending == 'failed' else 'ran clean'} ({where})"

    def to_json(self) -> dict[str, Any]:
        return {
            "ending": self.ending,
            "ran": self.ran,
            "of": self.of,
            "pace": self.pace,
            **({"rule": self.failure.rule, "failure": str(self.failure)} if self.failure is not None else {}),
            **({"why": self.why} if self.why else {}),
        }


def counted_replays(replays: Sequence[Replay]) -> tuple[int, int]:
    """(failed, tries) over the replays that ran to their end."""
    ended = [r for r in replays if r.to_its_end]
    return sum(r.ending == "failed" for r in ended), len(ended)


@dataclass
class Found:
    """A failure and the steps that show it, the pace they failed at replayed alone, and how often
    they did: (failed, tries) over the replays that ran to their end; (0, n) when they never
    failed alone. ``replays``: how each replay alone ended, those cut short included."""

    message: str
    rule: str | None
    steps: list[Step]
    pace: Pace | None = None
    reproduced: tuple[int, int] = (0, 0)
    unjudged: str = ""
    replays: tuple[Replay, ...] = ()

    def __str__(self) -> str:
        return self.message


def replay_steps(
    target: AcpTarget,
    steps: list[Step],
    *,
    stop: Callable[[], bool] | None = None,
    pace: Pace | None = None,
) -> tuple[SequenceFailure | None, list[Step]]:
    """Run steps on a fresh driver (from a worker thread), at ``pace`` (as fast as the agent
    answers without one): the failure, if any, and the steps run (fewer than given once ``stop()``
    says so: a time budget spent)."""
    failure, ran, _ = _replayed(target, steps, stop, pace)
    return failure, ran


def _replayed(
    target: AcpTarget, steps: list[Step], stop: Callable[[], bool] | None, pace: Pace | None
) -> tuple[SequenceFailure | None, list[Step], str]:
    """replay_steps, and why the replay ended before its last step where it did ("" otherwise)."""
    driver = Driver(target)
    fresh = [Step.from_json(s.to_json()) for s in steps]
    try:
        if pace is None or (pace.offsets is None and not pace.wait):
            anyio.from_thread.run(driver.run_all, fresh, stop)
        else:
            anyio.from_thread.run(_run_paced, driver, fresh, stop, pace)
    except SequenceFailure as exc:
        return exc, driver.steps, ""
    except ValueError as exc:  # a step lost the step that created its session
        return None, driver.steps, str(exc)
    cut = "" if len(driver.steps) >= len(steps) else "stopped before its last step (the time budget)"
    return None, driver.steps, cut


def replayed_alone(
    target: AcpTarget, steps: list[Step], seen: SequenceFailure, pace: Pace
) -> tuple[Replay, list[Step]]:
    """One replay alone of ``steps`` at ``pace``, how it ended against the failure ``seen``, and the
    steps it ran."""
    failure, ran, why = _replayed(target, steps, None, pace)
    if failure is not None:
        ending = "failed" if same_failure(failure.rule, seen.rule) else "other"
    else:
        ending = "cut" if why or len(ran) < len(steps) else "clean"
        why = why or ("" if ending == "clean" else "it ended before its last step")
    return Replay(ending, len(ran), len(steps), pace.describe(), failure, why if ending == "cut" else ""), ran


async def _run_paced(driver: Driver, steps: list[Step], stop: Callable[[], bool] | None, pace: Pace) -> None:
    start = anyio.current_time()
    for n, step in enumerate(steps):
        if stop is not None and stop():
            return
        if pace.offsets is not None and n < len(pace.offsets):
            await anyio.sleep(max(0.0, start + pace.offsets[n] - anyio.current_time()))
        if pace.wait and n == len(steps) - 1:
            await anyio.sleep(pace.wait)
        await driver.run_all([step])


def same_failure(rule: str | None, other: str | None) -> bool:
    """Whether two failures are one, for shrinking: the same rule, or a rule and the one that
    refines it (sequences.REFINES: a status that loaded a session is also one that says it is active
    after the client let it go; a shorter sequence may show the finer one)."""
    return REFINES.get(rule or "", rule) == REFINES.get(other or "", other)


def _fails(
    target: AcpTarget,
    steps: list[Step],
    seen: SequenceFailure,
    pace: Pace,
    tries: int,
    *,
    quick: bool = False,
    replays: list[Replay] | None = None,
) -> tuple[int, SequenceFailure | None, list[Step]]:
    """How many of ``tries`` replays at ``pace`` fail the same way, and the last that did
    (``quick``: none more once the first did not fail, as a pace that must fail every time).
    ``replays``: where each replay's ending is added."""
    failed, last, ran_last = 0, None, steps
    for _ in range(tries):
        replay, ran = replayed_alone(target, steps, seen, pace)
        if replays is not None:
            replays.append(replay)
        if replay.ending == "failed" and replay.failure is not None:
            failed, last, ran_last = failed + 1, replay.failure, ran
        elif quick and not failed:
            break
    return failed, last, ran_last


def _reproducing_pace(
    target: AcpTarget, steps: list[Step], seen: SequenceFailure, replays: list[Replay]
) -> tuple[Pace, SequenceFailure, list[Step]] | None:
    """The first pace at which the steps fail alone (the same rule) in PACE_TRIES replays of
    PACE_TRIES: as fast as the agent answers, then at the times they ran when found, then with
    the agent left alone --hold seconds before the last step (and then the shortest of WAITS that
    still does). A pace that failed once only is kept in reserve: one failure can be a leftover of
    the examples before (a timer they set off on the shared agent). None when no replay failed.
    ``replays``: where each replay's ending is added."""
    hold = target.harness.config.hold_seconds
    reserve: tuple[Pace, SequenceFailure, list[Step]] | None = None
    for pace in (Pace(), Pace(step_offsets(steps)), Pace(wait=hold)):
        failed, failure, ran = _fails(target, steps, seen, pace, PACE_TRIES, quick=True, replays=replays)
        if failure is None:
            continue
        if failed < PACE_TRIES:
            reserve = reserve or (pace.cut(len(ran)), failure, ran)
            continue
        if pace.wait:
            for wait in (w for w in WAITS if w < hold):
                shorter, failure_shorter, ran_shorter = _fails(
                    target, steps, seen, Pace(wait=wait), PACE_TRIES
                )
                if shorter == PACE_TRIES and failure_shorter is not None:
                    return Pace(wait=wait), failure_shorter, ran_shorter
        return pace.cut(len(ran)), failure, ran
    return reserve


STATUS_ONLY = ("status", "burst")  # the steps that do nothing but ask status


def _fails_without_status(target: AcpTarget, steps: list[Step], seen: SequenceFailure, pace: Pace) -> str:
    """The control of a failure that needs time: the same steps at the same pace without the ones
    that only ask status. Where it fails the same way too, what changed is the agent's own doing
    (an autosave timer, a write after a turn), and the model's reading of it as status's is wrong:
    the reason, else ""."""
    keep = [n for n, step in enumerate(steps) if step.op not in STATUS_ONLY]
    if len(keep) == len(steps) or not keep or keep[-1] != len(steps) - 1:
        return ""
    control = [steps[n] for n in keep]
    offsets = None if pace.offsets is None else tuple(pace.offsets[n] for n in keep if n < len(pace.offsets))
    failed, _, _ = _fails(target, control, seen, Pace(offsets, pace.wait), PACE_TRIES)
    if not failed:
        return ""
    return (
        f"the same steps without their status calls, {pace.describe()}, failed the same way too ({failed} of "
        f"{PACE_TRIES} replays): the agent changes this on its own in time, so what the sequences saw cannot be "
        "laid on status"
    )


def minimize(
    target: AcpTarget, steps: list[Step], seen: SequenceFailure, *, deadline: float | None = None
) -> Found:
    """Remove steps while the same rule stays broken, halves first, then smaller runs of steps,
    then one at a time, until no step of the result can be removed (or, past ``deadline``, the
    shortest found by then: each replay waits for the agent, its turns included). A failure that
    depends on time (a write the agent makes in the background) is replayed at the pace that made
    it fail alone (:func:`_reproducing_pace`), every candidate alike. Hypothesis shrinks well but
    not always to a 1-minimal sequence; this last pass replays the candidates on the agent. Then
    the result is replayed REPRODUCE_TRIES times, which says how it reproduces alone; the last
    failing replay gives the frames the report shows."""
    current = [Step.from_json(s.to_json()) for s in steps]
    paced: list[Replay] = []
    found = _reproducing_pace(target, current, seen, paced)
    if found is None:  # not reproducible on its own: report what Hypothesis saw
        _, tries = counted_replays(paced)
        early = len(paced) - tries
        return Found(
            f"not reproducible when replayed alone (0 of {tries}: as fast as the agent answers, at the times its steps "
            "ran, with the agent left alone --hold seconds before the last step; only in the full run"
            + (f"; {early} more replays ended early, not counted" if early else "")
            + "); the steps Hypothesis ran: "
            + str(seen),
            seen.rule,
            steps,
            None,
            (0, tries),
            replays=tuple(paced),
        )
    pace, failure, ran = found
    current = current[: len(ran)]
    pace = pace.cut(len(current))
    if pace.wait or pace.offsets is not None:
        own = _fails_without_status(target, current, failure, pace)
        if own:
            return Found(str(failure), failure.rule, current, pace, (PACE_TRIES, PACE_TRIES), own)
    chunk = max(1, len(current) // 2)
    while deadline is None or time.monotonic() < deadline:
        changed = False
        i = 0
        while i < len(current) and (deadline is None or time.monotonic() < deadline):
            candidate = current[:i] + current[i + chunk :]
            if not candidate:
                i += chunk
                continue
            tried = pace.without(i, i + chunk)
            got, ran_candidate = replay_steps(target, candidate, pace=tried)
            # shrink the failure, not into another (a rule may become the one that refines it)
            if got is not None and same_failure(got.rule, failure.rule):
                current, pace, changed = candidate[: len(ran_candidate)], tried.cut(len(ran_candidate)), True
            else:
                i += chunk
        if chunk == 1 and not changed:
            break
        chunk = max(1, chunk // 2)
    # Past the deadline too: the minimal sequence is short, and how it reproduces is what a later
    # `replay` needs to know before it may say FIXED.
    last, shown, paces = None, current, pace.describe()
    replays: list[Replay] = []
    for _ in range(REPRODUCE_TRIES):
        replay, ran = replayed_alone(target, current, failure, pace)
        replays.append(replay)
        if replay.ending == "failed":
            last, shown = replay.failure, ran
    if last is None and not pace.wait:
        # Shrunk at a pace that failed by luck: the agent left alone before the last step may
        # still show it (a write it makes in the background).
        waited = Pace(wait=target.harness.config.hold_seconds)
        again: list[Replay] = []
        _, last, ran_waited = _fails(target, current, failure, waited, REPRODUCE_TRIES, replays=again)
        if last is not None:
            pace, shown, replays = waited, ran_waited, again
        else:
            replays += again
            paces += f", then {waited.describe()}"
    failed, tries = counted_replays(replays)
    if last is None:
        early = len(replays) - tries
        return Found(
            f"the minimal sequence stopped failing when replayed alone (0 of {tries} replays that ran to their end, "
            f"{paces}"
            + (f"; {early} more ended early, not counted" if early else "")
            + "; flaky): "
            + str(failure),
            failure.rule,
            current,
            pace,
            (0, tries),
            replays=tuple(replays),
        )
    return Found(str(last), last.rule, shown, pace, (failed, tries), replays=tuple(replays))


def reproduced_text(found: tuple[int, int], pace: Pace | None, early: int = 0) -> str:
    """How the minimal sequence reproduced alone, in words, for the report and the replay file
    (``early``: the replays that ended before their end, which the count leaves out)."""
    failed, tries = found
    cut = f"; {early} more {'replay' if early == 1 else 'replays'} ended early, not counted" if early else ""
    if not failed:
        if not tries and early:
            return f"no replay alone ran to its end ({early} ended early)"
        return f"0 of {tries}: only in the full run{cut}"
    return f"reproduced alone {failed} of {tries}" + (f", {pace.describe()}" if pace else "") + cut
