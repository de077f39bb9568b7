"""Model-based sequences for `session_heartbeat`'s instruction queue, driven by Hypothesis.

A sequence is data (:class:`QueueStep`): the operator enqueues instructions, the agent sends
heartbeats that acknowledge some of what it has seen, follows a cursor one page, drains every
page, or sends two heartbeats at once (one acknowledging, one following the cursor). After each
step the driver checks the server against a model of the queue: every item delivered is one
enqueued for this session; nothing acknowledged in an earlier call comes again, nor in the answer
to the call that acknowledges it; a page repeats no item; and a drain (first page, then every cursor; every sequence ends
with one) yields every instruction never delivered yet, once: a pending instruction is
delivered, a delivered one may come again until acknowledged (a MAY: at once, later or never),
never after. Calls in flight together may run in either order, so the model allows every
interleaving: each answer may show what the other call acknowledges, and what an acknowledging
call acknowledged holds once it is answered (a call refused while the other runs acknowledged
nothing). An enqueue accepted is not proof the instruction is pending yet: the driver learns
how long the server takes to show one (on a session of its own) and waits that long after each
enqueue, and a drain that misses one keeps asking for up to --delivery-wait before calling it lost.
Hypothesis shrinks a failing sequence; the driver then removes steps one at a time while the
failure stays, so the report shows a sequence none of whose steps can go.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import Any

import anyio
import anyio.from_thread
from hypothesis import example, given, seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from conformance.core import progress
from conformance.core.outcomes import MissingInput, NotTestable, RunInterrupted
from conformance.core.profiles import BudgetSpent, Profile, hypothesis_settings
from conformance.targets.mcp.target import (
    AllowanceSpent,
    Instruction,
    McpTarget,
    ToolReply,
    carries,
    new_session_id,
    unfollowed_message,
)

__all__ = ["RULES", "QueueFailure", "QueueRun", "QueueStep", "replay_queue", "run_queue_sequences"]


class QueueFailure(AssertionError):
    """The server broke the queue's promise; the message names the step, ``rule`` which of the
    model's rules (each maps to the spec sentence it checks)."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


# The model's rules: each failure names one, and the revision maps
# "heartbeat.instructions.model-based#rule" to the sentence the rule checks.
RULES = {
    "valid-call": "a valid heartbeat is answered with a result, not an error",
    "lost": "a full drain yields every instruction never delivered yet (within --delivery-wait of its enqueue; "
    "a delivered, unacknowledged one may be absent: redelivery is a MAY)",
    "foreign": "only instructions enqueued for this session are delivered",
    "acked-again": "an instruction acknowledged in an earlier call never comes again",
    "acked-in-answer": "the answer to the call that acknowledges an instruction does not list it",
    "page-duplicate": "one drain's pages (and one page) repeat no instruction",
    "cursor-skip": "following the cursor while acknowledging each page skips no instruction never delivered yet",
}


class ShrinkBudgetSpent(QueueFailure):
    """Hypothesis has shrunk long enough: every further example "fails" at once without running, so
    its shrinker ends in a few calls; the shortest real failure seen is what the case reports."""

    def __init__(self) -> None:
        super().__init__("shrink budget spent", "")


class Inconclusive(BudgetSpent):
    """An example could not be judged (the server's results do not show what the model needs):
    Hypothesis lets this through at once, and the case reports why, not a failure."""


@dataclass
class QueueTiming:
    """How long the server takes to show an enqueued instruction, learnt once per run."""

    lag: float  # seconds after the operator hook returned (0: on the first heartbeat after it)
    wait: float  # --delivery-wait
    confirmed: bool = False  # a loss was confirmed with the whole wait: shrinking confirms briefly

    @property
    def settle(self) -> float:
        return 0.0 if self.lag == 0 else min(self.wait, 2 * self.lag + 0.05)

    @property
    def window(self) -> float:
        return self.wait if not self.confirmed else min(self.wait, max(0.25, 4 * self.lag))


async def calibrate_timing(target: McpTarget) -> QueueTiming:
    lag, delivery = await target.delivery_lag()
    if lag is None:
        await delivery.explain_missing(target)
        raise QueueFailure(
            f"an instruction enqueued for a fresh session did not arrive within {target.delivery_wait:g} s",
            "lost",
        )
    return QueueTiming(lag, target.delivery_wait)


@dataclass
class QueueStep:
    op: str  # enqueue | heartbeat | ack-all | page | drain | drain-ack | overlap
    count: int = 0  # enqueue: how many instructions; heartbeat, overlap: how many seen ones to acknowledge
    answer: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueueStep:
        return cls(op=data["op"], count=int(data.get("count", 0)))

    def label(self) -> str:
        if self.op == "enqueue":
            return f"enqueue({self.count})"
        if self.op == "heartbeat":
            return f"heartbeat(ack {self.count})"
        if self.op == "overlap":
            return f"overlap(ack {self.count} | page)"
        return self.op


# What each enqueued text carries after its unique head, in turn: nothing, then the characters
# markup, quoting and format layers treat as syntax (an HTML sanitiser escapes & < > " ', a shell
# or JSON layer backslash sequences, printf and str.format % and {}). Every text is compared with
# what is delivered as given, so a text changed on its way is an instruction nobody enqueued.
TEXT_TAILS = ("", " <b>merge</b> & ship", ' don\'t say "now" `x`', " a\\tb \\u0041 50% %s {x} {}")


class QueueDriver:
    def __init__(self, target: McpTarget, timing: QueueTiming) -> None:
        self.t = target
        self.timing = timing
        self.sid = new_session_id()
        self.texts: list[str] = []  # enqueued, in order
        self.enqueued_at: dict[str, float] = {}  # text -> when its hook returned
        self.ids: dict[str, str] = {}  # text -> id, as delivered
        self.acked: set[str] = set()  # ids acknowledged in a completed call
        self.seen: list[str] = []  # ids delivered and not yet acknowledged, in delivery order
        self.cursor: str | None = None
        self.steps: list[QueueStep] = []
        self._n = 0

    async def run(self, step: QueueStep) -> None:
        self.steps.append(step)
        mark = self.t.harness.transcript.mark()
        before = self.model_state()
        try:
            await getattr(self, f"_op_{step.op.replace('-', '_')}")(step)
            progress.transition("mcp", before, step.op, self.model_state())
        finally:
            step.frames = [e.to_json() for e in self.t.harness.transcript.since(mark)]

    def model_state(self) -> str:
        """The queue's state as the model sees it, for the campaign's coverage: instructions
        never delivered, delivered and not acknowledged, a page cursor held."""
        parts = [
            name
            for name, there in (
                ("undelivered", len(self.texts) > len(self.ids)),
                ("unacked", bool(self.seen)),
                ("paging", self.cursor is not None),
            )
            if there
        ]
        return "+".join(parts) or "empty"

    async def run_all(self, steps: list[QueueStep]) -> None:
        await self.t.ok_heartbeat(self.sid, status="active")  # the session exists before any instruction
        for step in steps:
            await self.run(step)
        if not steps or steps[-1].op != "drain":  # every sequence ends by checking the whole queue
            await self.run(QueueStep("drain"))

    def fail(self, step: QueueStep, message: str, rule: str) -> None:
        assert rule in RULES, rule
        raise QueueFailure(f"step {len(self.steps)} {step.label()}: {message}", rule)

    # -- operations ----------------------------------------------------------------------------

    async def _op_enqueue(self, step: QueueStep) -> None:
        for _ in range(step.count):
            self._n += 1
            text = (
                f"conformance queue {self._n} {uuid.uuid4().hex[:8]}{TEXT_TAILS[self._n % len(TEXT_TAILS)]}"
            )
            await self.t.instruct(self.sid, text)
            self.texts.append(text)
            self.enqueued_at[text] = time.monotonic()
        if self.timing.settle:  # as long as one took to show, twice over, before it counts as pending
            await anyio.sleep(self.timing.settle)
        step.answer = f"{len(self.undelivered())} never delivered"

    async def _op_heartbeat(self, step: QueueStep) -> None:
        acks = self.seen[: step.count]
        reply = await self._call(step, acknowledgedInstructionIds=acks)
        self.acked.update(acks)
        self.seen = [i for i in self.seen if i not in acks]
        self.cursor = self.t.cursor(reply)

    async def _op_ack_all(self, step: QueueStep) -> None:
        step.count = len(self.seen)
        await self._op_heartbeat(step)

    async def _op_overlap(self, step: QueueStep) -> None:
        """Two heartbeats at once: one acknowledges the first ``count`` instructions seen, the other
        follows the cursor held (or asks plainly). Either may run first: each answer is checked
        against what calls answered before this step acknowledged."""
        acks = self.seen[: step.count]
        calls = [
            {"acknowledgedInstructionIds": acks},
            {"instructionCursor": self.cursor} if self.cursor else {},
        ]
        replies: list[Any] = [None, None]

        async def send(n: int) -> None:
            replies[n] = await self.t.heartbeat(self.sid, **calls[n])

        async with anyio.create_task_group() as tg:
            tg.start_soon(send, 0)
            tg.start_soon(send, 1)
        answered = []
        for n, reply in enumerate(replies):
            if reply.succeeded:  # one refused while the other ran ("busy") did nothing
                items = self.t.instructions(reply)
                self.check_items(step, items, calls[n].get("acknowledgedInstructionIds", []))
                answered.append(len(items))
        if replies[0].succeeded:
            self.acked.update(acks)
            self.seen = [i for i in self.seen if i not in acks]
        self.cursor = None  # which page the other call continued is the server's order
        step.answer = f"{len(answered)} answered: " + ", ".join(f"{n} instruction(s)" for n in answered)

    async def _op_page(self, step: QueueStep) -> None:
        if self.cursor is None:
            step.answer = "no cursor: nothing to follow"
            return
        reply = await self._call(step, instructionCursor=self.cursor)
        self.cursor = self.t.cursor(reply)

    async def _drain_pages(self, step: QueueStep) -> tuple[list[Instruction], list[ToolReply]]:
        replies = [await self._call(step)]
        delivered = list(self.t.instructions(replies[0]))
        cursor = self.t.cursor(replies[0])
        while cursor is not None and len(replies) < 50:
            replies.append(await self._call(step, instructionCursor=cursor))
            delivered += self.t.instructions(replies[-1])
            cursor = self.t.cursor(replies[-1])
        self.cursor = None
        # Each delivered item carries an enqueued text: _call's check_items failed any other as foreign.
        texts = [t for t in map(self.text_of, delivered) if t is not None]
        doubled = sorted({t for t in texts if texts.count(t) > 1})
        if doubled:
            self.fail(
                step,
                f"{len(doubled)} instruction(s) delivered twice across the pages of one drain",
                "page-duplicate",
            )
        return delivered, replies

    async def _op_drain(self, step: QueueStep) -> None:
        delivered, replies = await self._drain_pages(step)
        step.answer = f"{len(delivered)} instruction(s) over {len(replies)} page(s)"
        missing = self.undelivered()
        if not missing:
            return
        # Not shown yet is not lost: ask again until the wait after its enqueue is over. Under a
        # stated allowance, once, at the end of the wait: each drain spends heartbeats.
        deadline = max(self.enqueued_at[t] for t in missing) + self.timing.window
        pause = 0.02 if self.t.options.request_limit is None else self.timing.window
        while missing and time.monotonic() < deadline:
            await anyio.sleep(max(0.0, min(pause, deadline - time.monotonic())))
            pause = min(pause * 2, 0.5)
            replies += (await self._drain_pages(step))[1]
            missing = self.undelivered()
        if not missing:
            step.answer += "; the rest came later"
            return
        hiding = await self.t.cursor_hiding(self.sid, replies, missing)
        if hiding is not None:
            raise MissingInput(unfollowed_message(hiding, len(missing)))
        waited = self.timing.window
        again = (
            " (a loss already seen after the whole wait: shrinking waits less)"
            if self.timing.confirmed
            else ""
        )
        self.timing.confirmed = True
        self.fail(
            step,
            f"{len(missing)} instruction(s) never delivered, missing from a full drain and from every drain in the "
            f"{waited:g} s after they were enqueued{again}: {missing[:3]}",
            "lost",
        )

    async def _op_drain_ack(self, step: QueueStep) -> None:
        """The agent's natural loop: each page's instructions acknowledged in the call that asks for
        the next page (with its cursor)."""
        pending = self.undelivered()
        reply = await self._call(step)
        page = list(self.t.instructions(reply))
        delivered, cursor, pages, replies = list(page), self.t.cursor(reply), 1, [reply]
        while cursor is not None and pages < 50:
            acks = [i.id for i in page]
            reply = await self._call(step, instructionCursor=cursor, acknowledgedInstructionIds=acks)
            self.acked.update(acks)
            self.seen = [i for i in self.seen if i not in acks]
            page = list(self.t.instructions(reply))
            delivered += page
            replies.append(reply)
            cursor, pages = self.t.cursor(reply), pages + 1
        self.cursor = None
        texts = {self.text_of(i) for i in delivered}
        skipped = [t for t in pending if t not in texts]
        if skipped:
            hiding = await self.t.cursor_hiding(self.sid, replies, skipped)
            if hiding is not None:
                raise MissingInput(unfollowed_message(hiding, len(skipped)))
            self.fail(
                step,
                f"{len(skipped)} instruction(s) never delivered before did not come while following the cursor "
                f"and acknowledging each page: {skipped[:3]}",
                "cursor-skip",
            )
        step.answer = f"{len(delivered)} instruction(s) over {pages} page(s), each page acknowledged"

    async def _call(self, step: QueueStep, **fields: Any) -> ToolReply:
        reply = await self.t.heartbeat(self.sid, **fields)
        if not reply.succeeded:
            self.fail(step, f"a valid heartbeat was answered with {reply.describe()}", "valid-call")
        items = self.t.instructions(reply)
        self.check_items(step, items, fields.get("acknowledgedInstructionIds", []))
        if not step.answer:
            step.answer = f"{len(items)} instruction(s)" + (", a cursor" if self.t.cursor(reply) else "")
        return reply

    def check_items(self, step: QueueStep, items: list[Instruction], acking: Collection[str] = ()) -> None:
        """An answer's items against the model; ``acking``: the ids this very call acknowledges."""
        page_ids = [i.id for i in items]
        if len(set(page_ids)) != len(page_ids):
            self.fail(step, f"one page repeats an instruction: {page_ids}", "page-duplicate")
        for item in items:
            text, iid = self.text_of(item), item.id
            if text not in self.texts:
                self.fail(
                    step,
                    f"an instruction nobody enqueued for this session was delivered (no text enqueued, as given, is in "
                    f"it): {item}",
                    "foreign",
                )
            if iid in self.acked or self.ids.get(str(text), iid) in self.acked:
                self.fail(
                    step, f"instruction {iid} ({text!r}) came again after it was acknowledged", "acked-again"
                )
            if iid in acking or self.ids.get(str(text), iid) in acking:
                self.fail(
                    step,
                    f"instruction {iid} ({text!r}) came in the answer to the very call that acknowledged it",
                    "acked-in-answer",
                )
            self.ids[str(text)] = iid
            if iid not in self.seen:
                self.seen.append(iid)

    def text_of(self, item: Instruction) -> str | None:
        """The enqueued text an item carries (in whatever field), or None."""
        return next((t for t in self.texts if carries(item, t)), None)

    def undelivered(self) -> list[str]:
        """Enqueued and never delivered: the instructions the server must still deliver."""
        return [t for t in self.texts if t not in self.ids]


STEPS = st.one_of(
    st.builds(QueueStep, op=st.just("enqueue"), count=st.integers(1, 3)),
    st.builds(QueueStep, op=st.just("heartbeat"), count=st.integers(0, 3)),
    st.builds(QueueStep, op=st.just("ack-all")),
    st.builds(QueueStep, op=st.just("page")),
    st.builds(QueueStep, op=st.just("drain")),
    st.builds(QueueStep, op=st.just("drain-ack")),
    st.builds(QueueStep, op=st.just("overlap"), count=st.integers(1, 3)),
)

# Step combinations behind which queue bugs hide, run first in every run (Hypothesis's explicit
# phase): generation reaches them only now and then within the ci profile's budget. Everything
# acknowledged, then a new instruction (a queue that forgets a session once it is empty); each
# page acknowledged while its cursor is followed (a cursor that is an offset into what is pending).
STEERED: tuple[list[QueueStep], ...] = (
    [QueueStep("enqueue", 1), QueueStep("drain"), QueueStep("ack-all"), QueueStep("enqueue", 1)],
    [QueueStep("enqueue", 3), QueueStep("drain-ack")],
)


@dataclass
class QueueRun:
    profile: str
    seed: int
    examples: int
    failure: str | None
    steps: list[QueueStep]
    rule: str | None = None  # the model's rule the failure broke (see RULES)


def run_queue_sequences(target: McpTarget, profile: Profile, *, seed_value: int | None) -> QueueRun:
    """Run Hypothesis over step lists (call from a worker thread: steps run on the runtime's loop)."""
    chosen = seed_value if seed_value is not None else profile.fixed_seed
    if chosen is None:
        chosen = random.SystemRandom().randrange(2**32)
    # Each enqueue may start an operator command: fewer, shorter examples than the ACP sequences.
    examples, started = [0], time.monotonic()
    last: dict[str, Any] = {}
    shrink_budget = profile.budget / 2
    config = hypothesis_settings(profile, max(10, profile.max_examples // 6), None)
    try:
        timing = anyio.from_thread.run(calibrate_timing, target)
    except QueueFailure as failure:
        return QueueRun(profile.name, chosen, 0, str(failure), [], failure.rule)

    def sequence(steps: list[QueueStep]) -> None:
        if target.harness.closing:
            raise RunInterrupted
        examples[0] += 1
        progress.example()
        if "failed" in last and time.monotonic() - last["failed"] > shrink_budget:
            raise ShrinkBudgetSpent  # keep the shortest failure so far; minimize() finishes the job
        if time.monotonic() - started > profile.budget and "failed" not in last:
            if profile.stop_at_budget:
                raise BudgetSpent
            return  # the time budget is spent: remaining examples run nothing
        driver = QueueDriver(target, timing)
        try:
            anyio.from_thread.run(driver.run_all, [QueueStep.from_json(s.to_json()) for s in steps])
        except AllowanceSpent as spent:  # judged only up to the step the session's allowance ended at
            last.setdefault("spent", []).append(spent)
        except QueueFailure:  # a real one: ShrinkBudgetSpent is raised before the driver runs
            last.setdefault("failed", time.monotonic())
            if "best" not in last or len(driver.steps) <= len(last["best"]):
                last["best"] = driver.steps
            raise
        except (MissingInput, NotTestable) as unjudged:
            last.setdefault("unjudged", unjudged)
            raise Inconclusive from None

    test = given(st.lists(STEPS, min_size=1, max_size=max(4, profile.steps // 3)))(sequence)
    for steps in STEERED:
        test = example(steps)(test)
    try:
        seed(chosen)(config(test))()
    except BudgetSpent:  # Inconclusive too
        pass
    # Flaky: the shrink budget ran out while Hypothesis replayed the failure (ShrinkBudgetSpent is
    # another failure to it); what was found stands, and minimize() replays it once more.
    except (QueueFailure, Flaky):
        if "best" not in last:
            raise
    if "best" in last:
        failure, steps = minimize(target, last["best"], timing)
        return QueueRun(profile.name, chosen, examples[0], str(failure), steps, failure.rule)
    if "unjudged" in last:
        raise last["unjudged"]
    if "spent" in last:  # a sequence cut short may have been on its way to a failure
        raise AllowanceSpent(
            f"{len(last['spent'])} of {examples[0]} sequences needed more heartbeats for their session than the "
            f"allowance; the first: {last['spent'][0].message}"
        )
    return QueueRun(profile.name, chosen, examples[0], None, [])


def replay_queue(target: McpTarget, steps: list[QueueStep]) -> tuple[str | None, list[QueueStep]]:
    """Run steps on a fresh session (from a worker thread): the failure, if any, and the steps run."""
    try:
        timing = anyio.from_thread.run(calibrate_timing, target)
    except QueueFailure as failure:
        return str(failure), []
    failure, ran = run_once(target, steps, timing)
    return (str(failure) if failure is not None else None), ran


def run_once(
    target: McpTarget, steps: list[QueueStep], timing: QueueTiming
) -> tuple[QueueFailure | None, list[QueueStep]]:
    driver = QueueDriver(target, timing)
    try:
        anyio.from_thread.run(driver.run_all, [QueueStep.from_json(s.to_json()) for s in steps])
    except QueueFailure as exc:
        return exc, driver.steps
    except (MissingInput, NotTestable):  # unjudged: not this failure
        return None, driver.steps
    return None, driver.steps


def minimize(
    target: McpTarget, steps: list[QueueStep], timing: QueueTiming
) -> tuple[QueueFailure, list[QueueStep]]:
    """Remove steps one at a time while the failure stays; the steps of the last failing run."""
    failure, ran = run_once(target, steps, timing)
    if failure is None:  # did not fail again: keep what Hypothesis found
        return QueueFailure(
            "the failure did not reproduce when replayed (the server is not deterministic)", ""
        ), steps
    current, i = _failing_prefix(steps, ran), 0
    while i < len(current):
        trial = current[:i] + current[i + 1 :]
        again, trial_ran = run_once(target, trial, timing)
        if again is not None:
            failure, ran, current = again, trial_ran, _failing_prefix(trial, trial_ran)
        else:
            i += 1
    return failure, ran


def _failing_prefix(steps: list[QueueStep], ran: list[QueueStep]) -> list[QueueStep]:
    # The steps up to the failing one; all of them when it was the closing drain run_all adds.
    return steps[: len(ran)] if len(ran) <= len(steps) else steps
