"""Outcomes and verdicts, mapped in one place.

A case function signals what it found by returning (pass) or raising one of the typed
results below. :func:`classify` turns that into an :class:`Outcome` using the case's level;
:func:`verdict` turns all outcomes of a run into the verdict and the process exit code.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.registry import Level

__all__ = [
    "AgentExited",
    "CaseResult",
    "HarnessError",
    "Info",
    "MissingInput",
    "NoTurn",
    "NotApplicable",
    "NotTestable",
    "Outcome",
    "Problem",
    "Problems",
    "Unanswered",
    "Unimplemented",
    "Unprepared",
    "Verdict",
    "Violation",
    "broken",
    "classify",
    "decides_errors",
    "shorten",
    "unanswered",
    "verdict",
]


class Outcome(enum.Enum):
    PASS = "pass"
    FAIL = "fail"  # a MUST (or a MAY's boundary) broken, or a prerequisite the agent advertised
    WARN = "warn"  # a SHOULD broken; fail under --strict
    INFO = "info"  # a MAY path taken
    UNIMPLEMENTED = "unimplemented"  # the capability the case needs is not advertised
    NOT_APPLICABLE = "n/a"  # the behaviour the case checks cannot arise with this agent
    NOT_TESTABLE = "not-testable"  # the case needs an input the user did not give
    ERROR = "error"  # the harness or the agent crashed


# How each outcome reads in pytest's terminal line: (category, letter, word).
TERMINAL = {
    Outcome.PASS: ("passed", ".", "PASS"),
    Outcome.FAIL: ("failed", "F", "FAIL"),
    Outcome.WARN: ("warn", "W", "WARN"),
    Outcome.INFO: ("info", "I", "INFO"),
    Outcome.UNIMPLEMENTED: ("unimplemented", "U", "UNIMPLEMENTED"),
    Outcome.NOT_APPLICABLE: ("n/a", "-", "N/A"),
    Outcome.NOT_TESTABLE: ("not testable", "T", "NOT TESTABLE"),
    Outcome.ERROR: ("error", "E", "ERROR"),
}


class CaseSignal(Exception):
    """Base of everything a case raises on purpose.

    ``rule`` names the check inside the case that found it (one of the case's declared rules),
    so the report quotes the sentence that rule checks, not the case's first one.
    """

    def __init__(
        self,
        message: str,
        *,
        expected: Any = None,
        observed: Any = None,
        rule: str | None = None,
        spec_key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.observed = observed
        self.rule = rule
        self.spec_key = spec_key


class Violation(CaseSignal):
    """The agent broke the requirement the case checks."""


class NotTestable(CaseSignal):
    """A prerequisite the agent advertised did not work, so the requirement could not be checked.

    This is a failure, not a skip: the agent claimed what it could not do. Its message says what
    the agent did; the report never words it "not testable", which a reader takes for "not judged".
    """


class Info(CaseSignal):
    """The agent took a path the spec allows with MAY."""


class NotApplicable(CaseSignal):
    """The behaviour checked cannot arise with this agent (e.g. a MAY path it does not take)."""


class Unimplemented(CaseSignal):
    """The capability the case needs is not advertised."""


class MissingInput(CaseSignal):
    """The case needs an input the user did not pass (a second credential, an operator hook)."""


class Unprepared(CaseSignal):
    """The case could not make its preconditions (a session: session/new failed) before it asked
    anything of the method under test: not testable, never a failure of the agent. A status spec
    says nothing of how session/new behaves, so nothing here is evidence against its status method."""


class HarnessError(CaseSignal):
    """The suite itself could not run the case."""


# The two clocks: a request answers in milliseconds, a turn (a prompt and the model's work it
# sets off) in seconds to minutes. Each is named by the option that sets it.
CLOCKS = {"request": "--timeout", "turn": "--turn-timeout"}


class Unanswered(BaseException):
    """A request of the case got no response in time: the case ends here, at once.

    ``clock``: "request" (--timeout) or "turn" (--turn-timeout: a prompt's answer, or what its
    turn sets off: a v2 idle state_update). A BaseException on purpose: Hypothesis (fuzzing,
    sequences) and cases that catch Exception must not turn it into an example to shrink or a
    failure to retry, since every later request would wait out the timeout again. The runtime
    turns it into the case's outcome (:func:`unanswered`).
    """

    def __init__(
        self,
        method: str,
        request_id: Any,
        limit: float,
        *,
        why: str = "",
        params: Any = None,
        clock: str = "request",
    ) -> None:
        self.method = method
        self.request_id = request_id
        self.limit = limit
        self.clock = clock
        self.why = why or f"no response within {limit:g} s ({self.option})"
        self.params = params
        super().__init__(self.describe())

    @property
    def option(self) -> str:
        """The option that sets the clock that ran out."""
        return CLOCKS[self.clock]

    def describe(self) -> str:
        shown = ""
        if self.params is not None:
            text = self.params if isinstance(self.params, str) else _compact(self.params)
            shown = f", params {shorten(text, 160)}"
        return f"{self.method} (id {self.request_id!r}{shown}) got no answer: {self.why}"


Problem = tuple[str | None, str]  # (the case's rule that found it, or None, what was wrong)


class Problems:
    """The problems a case has shown, by rule, kept whatever a later step of it runs into.

    ``violation`` makes the case's Violation of them (its message, expected, observed, rule);
    ``rules``, where given, orders them by rule (a case whose message lists one rule's problems
    before another's), else they keep the order they were shown in."""

    def __init__(self, violation: Callable[[list[Problem]], Violation], *, rules: Sequence[str] = ()) -> None:
        self._violation = violation
        self._rules = tuple(rules)
        self._shown: list[Problem] = []
        self._made: list[Violation] = []  # the Violations it made: one raised inside kept is not new

    @classmethod
    def listed(
        cls, expected: str, *, lead: str = "", limit: int | None = None, rules: Sequence[str] = ()
    ) -> Problems:
        """Problems whose Violation is the usual one: ``lead``, then the problems shown (the first
        ``limit``) joined by "; ", all of them observed, the rule the first one's."""

        def violation(shown: list[Problem]) -> Violation:
            return Violation(
                lead + "; ".join(p for _, p in shown[:limit]),
                expected=expected,
                observed=[p for _, p in shown],
                rule=shown[0][0],
            )

        return cls(violation, rules=rules)

    def add(self, rule: str | None, problem: str) -> None:
        self._shown.append((rule, problem))

    def extend(self, problems: Iterable[Problem]) -> None:
        self._shown.extend(problems)

    @property
    def shown(self) -> list[Problem]:
        if not self._rules:
            return list(self._shown)
        return sorted(
            self._shown, key=lambda p: self._rules.index(p[0]) if p[0] in self._rules else len(self._rules)
        )

    def __bool__(self) -> bool:
        return bool(self._shown)

    def violation(self) -> Violation:
        """The case's Violation of the problems shown."""
        made = self._violation(self.shown)
        self._made.append(made)
        return made

    def judge(self) -> None:
        """The case's Violation of the problems shown, if any."""
        if self._shown:
            raise self.violation()

    @contextlib.contextmanager
    def kept(self, details: dict[str, Any]) -> Iterator[None]:
        """Later steps of the case: a signal one raises (a request unanswered, a prerequisite
        that failed, an input or a path that made the rest moot) still ends the case at once, but
        with the Violation of the problems already shown, the signal said in ``details``; with
        none shown, it ends the case as it is. A Violation raised inside is one more problem: it
        joins those shown (its rule, its message; its expected and observed in ``details``) and
        the case ends with the Violation of them all; with none shown, it passes as it is."""
        try:
            yield
        except BaseException as caught:
            exc = _ending(caught)
            if exc is None or not self._shown or any(exc is made for made in self._made):
                raise
            if isinstance(exc, Violation):
                raise self._joined(exc, details) from exc
            details["ended the case"] = shorten(f"{type(exc).__name__}: {_said(exc)}", 400)
            raise self.violation() from exc

    def _joined(self, found: Violation, details: dict[str, Any]) -> Violation:
        """The Violation of the problems shown and ``found``, raised by a later step."""
        self.add(found.rule, found.message)
        details.setdefault("found later", []).append(
            {
                "rule": found.rule,
                "message": found.message,
                "expected": found.expected,
                "observed": found.observed,
            }
        )
        joined = self.violation()
        listed = isinstance(joined.observed, list) and found.message in joined.observed
        if found.message not in joined.message and not listed:
            # A case whose Violation says its first problem in words of its own, not the list:
            # the later one is said after it, never dropped.
            joined.message = f"{joined.message}; then {found.message}"
            joined.args = (joined.message,)
        return joined


def _said(exc: BaseException) -> str:
    if isinstance(exc, Unanswered):
        return exc.describe()
    return exc.message if isinstance(exc, CaseSignal | NoTurn) else str(exc)


def _ending(caught: BaseException) -> BaseException | None:
    """What ended a later step of a case: the signal, the turn not sent, the agent's exit, or the
    first of them a task group raised; None for anything else (an interruption, a cancellation, a
    harness error), which goes on as it is."""
    endings = (CaseSignal, Unanswered, NoTurn, AgentExited)
    if isinstance(caught, BaseExceptionGroup):
        if caught.subgroup(lambda e: not isinstance(e, (BaseExceptionGroup, *endings))) is not None:
            return None
        return _ending(caught.exceptions[0])
    return caught if isinstance(caught, endings) else None


class NoTurn(BaseException):
    """The suite did not send a prompt the case needed: the run's prompt budget is spent
    (--max-prompts), or turns went unanswered in several cases in a row. The case ends here and
    is not testable, however far it got. A BaseException for the reason :class:`Unanswered` is
    one: nothing inside a case (nor Hypothesis) may take it for a finding."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.message = message
        self.short = short  # the reason in a few words, for a step of a sequence


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a visible ellipsis (for quoting what an agent
    sent inside the suite's own messages: the quote is cut, never the suite's words around it)."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _compact(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


class AgentExited(Exception):
    """The agent process exited while the suite was waiting for it; ``method``: the request that
    was waiting for an answer then, if one was."""

    def __init__(self, code: int | None, stderr_tail: str, method: str | None = None) -> None:
        self.code = code
        self.stderr_tail = stderr_tail
        self.method = method
        super().__init__(
            f"agent exited with code {code}" + (f"; stderr tail:\n{stderr_tail}" if stderr_tail else "")
        )

    def during(self, method: str) -> AgentExited:
        return AgentExited(self.code, self.stderr_tail, method)


@dataclass
class CaseResult:
    outcome: Outcome
    message: str
    expected: Any = None
    observed: Any = None
    rule: str | None = None  # the case's rule that found it (see CaseSignal)
    # A finding of the harness's own, about any case: "reply" (a request went unanswered) or
    # "envelope" (a broken message); each revision names the sentence such a finding breaks.
    spec_key: str | None = None
    # Not testable because the agent itself did not make what the case needs before it asked
    # status (a session): not its failure, but no certificate may rest on a run where a MUST case
    # was left untested that way (see :func:`verdict`).
    unprepared: bool = False


# How a failure the agent caused by making its own check impossible begins (NotTestable).
BROKE_PREREQUISITE = "the agent made this check impossible"


def broken(level: Level, *, strict: bool = False) -> Outcome:
    """The outcome of a broken requirement at this level: a MUST (or a MAY's bounds) fails; a
    SHOULD and a robustness finding warn, and fail only under --strict."""
    if level in (Level.SHOULD, Level.ROBUSTNESS) and not strict:
        return Outcome.WARN
    return Outcome.FAIL


def classify(exc: BaseException | None, level: Level, *, strict: bool = False) -> CaseResult:
    """Map what a case raised (or ``None`` for a clean return) to its outcome."""
    if exc is None:
        return CaseResult(Outcome.PASS, "")
    if isinstance(exc, CaseSignal):
        kind: Outcome
        message = exc.message
        if isinstance(exc, Violation):
            kind = broken(level, strict=strict)
        elif isinstance(exc, NotTestable):  # a prerequisite broken: as the case's own finding
            kind, message = broken(level, strict=strict), f"{BROKE_PREREQUISITE}: {exc.message}"
        elif isinstance(exc, Info):
            kind = Outcome.INFO
        elif isinstance(exc, NotApplicable):
            kind = Outcome.NOT_APPLICABLE
        elif isinstance(exc, Unimplemented):
            kind = Outcome.UNIMPLEMENTED
        elif isinstance(exc, MissingInput | Unprepared):
            kind, message = Outcome.NOT_TESTABLE, f"not testable: {exc.message}"
        else:
            kind = Outcome.ERROR
        result = CaseResult(kind, message, exc.expected, exc.observed, exc.rule, exc.spec_key)
        result.unprepared = isinstance(exc, Unprepared)
        return result
    if isinstance(exc, NoTurn):
        return CaseResult(Outcome.NOT_TESTABLE, exc.message)
    if isinstance(exc, AgentExited):
        return CaseResult(Outcome.ERROR, str(exc))
    if isinstance(exc, TimeoutError):
        return CaseResult(Outcome.ERROR, f"timed out: {exc}")
    if type(exc).__name__.startswith("Flaky"):  # Hypothesis: a failure that did not replay
        inner = getattr(exc, "exceptions", None)  # FlakyFailure groups the failure it first saw
        source = inner[0] if inner else exc
        first = str(source).strip().splitlines()[0][:300] if str(source).strip() else ""
        return CaseResult(
            Outcome.ERROR,
            "the agent's behaviour was not reproducible: an input failed once and behaved differently when "
            f"replayed (it died, restarted, or answered differently); first failure: {type(source).__name__}: {first}",
        )
    return CaseResult(Outcome.ERROR, f"harness error: {type(exc).__name__}: {exc}")


def unanswered(
    exc: Unanswered, level: Level, *, on_status: bool, status_asked: bool, strict: bool = False
) -> CaseResult:
    """A request of the case that got no (readable) answer, by what it was.

    - The status method (``on_status``), or a raw frame: JSON-RPC's "the Server MUST reply" broken
      for the very method under test (a robustness finding in a robustness case).
    - A turn (its prompt's answer, or what the turn sets off) past --turn-timeout: an unreachable
      model, or a turn slower than the clock allows. Not testable, naming the option: the status
      specs say nothing of how long a turn takes.
    - Another request (session/new, load, list…) before the case asked any status: the case could
      not make its preconditions; not testable, naming --timeout.
    - Another request once status was asked in the case: the agent stopped answering after a
      status call, which the case did not test (an error).
    """
    if on_status or exc.method == "a raw frame":
        kind = Level.ROBUSTNESS if level is Level.ROBUSTNESS else Level.MUST
        return CaseResult(
            broken(kind, strict=strict),
            f"{exc.describe()}; the case ended here",
            expected="a response carrying the request's id",
            observed=exc.why,
            spec_key="reply",
        )
    if exc.clock == "turn":
        return CaseResult(
            Outcome.NOT_TESTABLE,
            f"not testable: the turn did not end: {exc.describe()}; the case ended here. An unreachable model, or a "
            f"turn slower than {exc.option} {exc.limit:g} allows: pass a larger {exc.option} to let it finish",
        )
    if not status_asked:
        return CaseResult(
            Outcome.NOT_TESTABLE,
            f"not testable: the case could not make its preconditions: {exc.describe()}; the case ended here "
            f"before it asked anything of the status method. A slower agent needs a larger {exc.option}",
            unprepared=True,
        )
    return CaseResult(
        Outcome.ERROR,
        f"the agent did not answer: {exc.describe()}; the case ended here (after a status request; a slower "
        f"agent needs a larger {exc.option})",
    )


class RunInterrupted(KeyboardInterrupt):
    """Raised in worker threads when the run is closing; Hypothesis re-raises it at once."""


class Verdict(enum.Enum):
    """A run's certificate: its label, its exit code, and its sentence, in which ``{system}`` is
    what the target calls its system (agent, server, service) and ``{advertised}`` where its status
    method is advertised, as the target says (see :meth:`explain`)."""

    CONFORMANT = ("conformant", 0, "the {system} conforms: no MUST requirement is broken")
    NON_CONFORMANT = ("non-conformant", 1, "the {system} breaks at least one MUST requirement")
    ERROR = ("error", 2, "the suite could not finish: a case errored (harness or {system} crash)")
    UNIMPLEMENTED = ("unimplemented", 3, "the {system} does not advertise {advertised}")
    # A certificate rests on evidence: not testable is never a pass.
    UNTESTED = (
        "untested",
        2,
        "no MUST requirement could be tested: every MUST case was not testable (see Coverage for what to pass)",
    )
    INCOMPLETE = ("incomplete", 2, "the run was interrupted before every selected case ran")

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def exit_code(self) -> int:
        return self.value[1]

    def explain(self, system: str, advertised: str) -> str:
        """The verdict's sentence, in the words of the target: ``system``, what it calls its system
        under test; ``advertised``, where its status method is advertised."""
        return self.value[2].format(system=system, advertised=advertised)


def decides_errors(level: Level, *, strict: bool = False) -> bool:
    """Whether an error in a case of this level decides the verdict: in a MUST or MAY case (and
    under --strict in every case). A SHOULD or robustness case that errored is shown, but does not
    outrank the verdict the MUST cases give."""
    return strict or level in (Level.MUST, Level.MAY)


def verdict(
    outcomes: Iterable[tuple[Outcome, Level]],
    *,
    status_advertised: bool,
    strict: bool = False,
    unprepared: bool = False,
) -> Verdict:
    """The certificate from the cases' outcomes. It is decided by the status specs' own
    requirements: robustness findings (the JSON-RPC layer on frames the protocol never carries)
    take part only under --strict. An agent that does not advertise the status method is
    unimplemented from its handshake alone, whatever its cases met afterwards. ``unprepared``: a
    MUST case was not testable because the agent did not make what it needs (a session): no
    failure of the agent, and no certificate either (untested)."""
    outcomes = list(outcomes)
    if not status_advertised:
        return Verdict.UNIMPLEMENTED
    seen = {o for o, level in outcomes if level.decides_certificate or strict}
    if Outcome.FAIL in seen:
        return Verdict.NON_CONFORMANT
    if any(o is Outcome.ERROR and decides_errors(level, strict=strict) for o, level in outcomes):
        return Verdict.ERROR
    must = [o for o, level in outcomes if level is Level.MUST and o is not Outcome.NOT_APPLICABLE]
    if unprepared or (must and all(o is Outcome.NOT_TESTABLE for o in must)):
        return Verdict.UNTESTED
    return Verdict.CONFORMANT
