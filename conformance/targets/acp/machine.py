"""Hypothesis drives the sequence driver: a RuleBasedStateMachine over one agent.

Each example gets a fresh model and fresh sessions on the shared agent process; only the
methods the agent advertises are used. Hypothesis shrinks a failing sequence to a minimal one,
and the last run (the shrunk sequence, replayed once more by Hypothesis) is what the report
shows and the replay file holds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, cast

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
from conformance.targets.acp.sequences import RACES, REFINES, Driver, SequenceFailure, Step
from conformance.targets.acp.target import AcpTarget

__all__ = ["SequenceRun", "run_sequences"]


MAX_SESSIONS = 3
MAX_UNKNOWN = 2


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
    ) -> None:
        self.target = target
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
) -> type[RuleBasedStateMachine]:
    """``may_step()``: whether the next step may run (False: the time budget is spent, and the rest
    of the example runs dry); it may raise BudgetSpent or ShrinkBudgetSpent to end the run.
    Hypothesis orders rules by name, so where a rule is declared does not change what a seed draws."""
    hooks = _Hooks(target, new_driver, on_failure, may_restart, may_step)
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

    StatusMachine.hooks = hooks
    return StatusMachine


def twin_scenarios(memory_cap: int | None, second_connection: bool = False) -> list[list[Step]]:
    """What only twins show, run first: a request allowance status calls spend (many status calls,
    then both twins prompted), and with a declared memory cap an eviction order status calls change
    (status calls about one twin, then as many sessions as leave one twin room, then both prompted)."""
    found = [[Step("new", "s0"), Step("burst", "s0", times=32), Step("prompt", "s0")]]
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
        *twin_scenarios(target.policy.memory_cap, target.harness.current_url() is not None),
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


@dataclass
class Found:
    """A failure and the steps that show it."""

    message: str
    rule: str | None
    steps: list[Step]

    def __str__(self) -> str:
        return self.message


def replay_steps(
    target: AcpTarget, steps: list[Step], *, stop: Callable[[], bool] | None = None
) -> tuple[SequenceFailure | None, list[Step]]:
    """Run steps on a fresh driver (from a worker thread): the failure, if any, and the steps run
    (fewer than given once ``stop()`` says so: a time budget spent)."""
    driver = Driver(target)
    fresh = [Step.from_json(s.to_json()) for s in steps]
    try:
        anyio.from_thread.run(driver.run_all, fresh, stop)
    except SequenceFailure as exc:
        return exc, driver.steps
    except ValueError:
        return None, driver.steps  # a step lost the step that created its session
    return None, driver.steps


def same_failure(rule: str | None, other: str | None) -> bool:
    """Whether two failures are one, for shrinking: the same rule, or a rule and the one that
    refines it (sequences.REFINES: a status that loaded a session is also one that says it is active
    after the client let it go; a shorter sequence may show the finer one)."""
    return REFINES.get(rule or "", rule) == REFINES.get(other or "", other)


def minimize(
    target: AcpTarget, steps: list[Step], seen: SequenceFailure, *, deadline: float | None = None
) -> Found:
    """Remove steps one at a time while the same rule stays broken: no step of the result can be
    removed (or, past ``deadline``, the shortest found by then: each replay waits for the agent,
    its turns included). Hypothesis shrinks well but not always to a 1-minimal sequence; this last
    pass replays the candidates on the agent, and its final replay gives the frames the report
    shows."""
    current = [Step.from_json(s.to_json()) for s in steps]
    failure, ran = replay_steps(target, current)
    if failure is None:  # not reproducible on its own: report what Hypothesis saw
        return Found(
            "not reproducible when replayed alone (flaky or order-dependent); the steps Hypothesis ran: "
            + str(seen),
            seen.rule,
            steps,
        )
    current = current[: len(ran)]
    changed = True
    while changed and (deadline is None or time.monotonic() < deadline):
        changed = False
        for i in range(len(current)):
            if deadline is not None and time.monotonic() >= deadline:
                break
            candidate = current[:i] + current[i + 1 :]
            if not candidate:
                continue
            got, ran_candidate = replay_steps(target, candidate)
            # shrink the failure, not into another (a rule may become the one that refines it)
            if got is not None and same_failure(got.rule, failure.rule):
                current, changed = candidate[: len(ran_candidate)], True
                break
    last, ran = replay_steps(target, current)
    if last is None:
        return Found(
            "the minimal sequence stopped failing on its last replay (flaky): " + str(failure),
            failure.rule,
            ran,
        )
    return Found(str(last), last.rule, ran)
