"""Differential twins: what status did to a session, read off what became of its twin.

"session/status MUST NOT have side effects. It must not load, resume, create, close, or change the
session" covers every change, including the ones that show only later: a status that counts as
"use" shows only once memory runs out (the agent evicts another session than it would have), one
that resets an idle timer only once the idle delay passes, one that spends a request allowance only
at a later prompt. No single answer shows such a change. A *difference* does: twin sessions are
treated alike (created one right after the other, the same prompts) except that status is asked
about one of them, one call at a time and in bursts of calls sent together; then both meet the same
pressure (memory, time, use, a restart) and their fates are compared. The judgement is here, on
data (tests/unit/test_twins.py); the rounds that produce the data are in rounds.py.

Twins cannot be treated exactly alike: one is created first. So fates are compared by *position*
(the place a twin had in its round's order of creation), never twin against twin:

- a round lays out its twins in pairs, the asked twin first in one pair and second in the next
  (asked, unasked, unasked, asked, …: :func:`roles`), and a second round swaps every role, so
  each position is held once by an asked twin and once by an unasked one;
- the fate a position meets without status is its *baseline*: from rounds nobody asked status
  about (calibration rounds, where position decides much, as under memory pressure), or else the
  fate the unasked twin met at that position in the other round;
- a *deviation* is a twin whose fate differs from its position's baseline;
- status is blamed only when both rounds deviate (the roles and the creation order swapped,
  the same difference again) and no change of fate befell an asked twin and an unasked twin alike
  (a change both kinds of twins meet is the agent's own variation, not status's doing).

Why a conforming agent is never failed this way:

- Any eviction order that depends on what the client did and when (least recently used, first
  in first out, newest first, or any rule of position and time) gives each position the same
  fate in every round, so there is no deviation. Asking status is the only thing that differs
  between the rounds, and a conforming agent ignores it.
- Calibration first: two rounds nobody asks about must agree position by position, or the
  order is not deterministic and no difference is read into (the case says it cannot tell).
- A random policy deviates by chance, but then as often for unasked twins as for asked ones, and in
  one round and not the other: both would have to line up by role in two rounds at once.
- Fates are observed after the pressure has acted, all twins of a round in one burst of status
  calls sent together: what a status call does to a twin (in exactly the agents under suspicion,
  status is "use") it does to every twin alike, at the same moment.
- A fate holds only what does not vary between two sessions treated alike, aspect by aspect:
  - status: the word the one status call at the end answered; twins the agent treats alike are
    in memory or not alike, and under pressure the position's baseline already holds what the
    order of creation changes;
  - state (v2): the foreground state of that answer; twins had the same turns, so both are idle;
  - prompts: whether each later prompt was accepted, or the error code it got (never the reply,
    which is model output); the twins are prompted in turn, the first to go alternating, so a
    limit on the whole agent refuses by order, which is position;
  - listed: whether session/list shows the session, and whether with a title (never the title's
    words, which a model may write, nor times);
  - reopen: whether session/resume or session/load takes the session back, or its error code;
  - history: the user turns a load replays, which are the client's own words (the agent's
    replies are left out);
  - touched, notified (the later round): which members of the session's list entry changed, and
    which kinds of notification came about it, while the twins were left alone for the hold
    after the status calls (names only: a time or a title differs between any two sessions);
  after a round with prompts the twins are read once the agent is quiet, so a title a model
  writes a moment after a turn has come for both.

A round whose twins all met the same fate needs no second one (the prompts of a second round cost
model calls on a real agent): only a status effect that an opposite effect of position hides
exactly is left unlooked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from conformance.core import revisions

__all__ = [
    "CLEAR_ROUNDS",
    "Confirmation",
    "Deviation",
    "Fate",
    "Judgement",
    "Round",
    "Seat",
    "baseline_from_calibration",
    "baseline_from_unasked",
    "confirm",
    "judge",
    "roles",
    "uniform",
]


@dataclass(frozen=True)
class Fate:
    """What became of one twin, as observed once the pressure has acted ("" where not observed)."""

    status: str  # "active", "inactive" (canonical), "unknown" (-32002), "error <code>", "other:<word>"
    state: str = ""  # v2: the foreground state the status result reported
    prompts: tuple[str, ...] = ()  # each later prompt: "ok" or "error <code>"
    listed: str = ""  # "yes", "with a title", "no"
    reopen: str = ""  # session/resume or session/load: "ok" or "error <code>"
    history: str = ""  # the user turns session/load replayed
    touched: str = ""  # the session/list entry's members that changed over the hold ("none")
    notified: tuple[str, ...] = ()  # the kinds of notification about the session over the hold

    def aspects(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> str:
        """The fate in words, the status as the checked revision spells it (`open`, `saved`…)."""
        shown = []
        for name, value in self.aspects().items():
            if value in ("", ()):
                continue
            text = " / ".join(value) if isinstance(value, tuple) else str(value)
            if name == "status" and value in ("active", "inactive"):
                text = revisions.word(text)
            shown.append(f"{name} {text}")
        return ", ".join(shown)


@dataclass(frozen=True)
class Seat:
    """A twin's place in a round: its position in the order of creation, whether status was asked
    about it, and its fate."""

    position: int
    asked: bool
    fate: Fate
    session_id: str = ""


@dataclass(frozen=True)
class Round:
    seats: tuple[Seat, ...]

    def at(self, position: int) -> Seat:
        return next(s for s in self.seats if s.position == position)

    @property
    def asked_first(self) -> bool:
        return min(self.seats, key=lambda s: s.position).asked


def roles(pairs: int, asked_first: bool) -> tuple[bool, ...]:
    """Whether status is asked about each twin of a round, in order of creation: pairs whose asked
    twin comes first, then second, then first… (asked_first: the first pair's asked twin is first)."""
    found: list[bool] = []
    for i in range(pairs):
        first = asked_first if i % 2 == 0 else not asked_first
        found += [first, not first]
    return tuple(found)


def uniform(rnd: Round) -> bool:
    """Every twin of the round met the same fate: nothing to compare further."""
    return len({s.fate for s in rnd.seats}) == 1


def baseline_from_calibration(calibration: Sequence[Sequence[Fate]]) -> list[Fate] | None:
    """The fate of each position, from rounds nobody asked status about (their twins' fates in order
    of creation), or None when they disagree: then the agent's order is not deterministic."""
    first = list(calibration[0])
    if any(list(other) != first for other in calibration[1:]):
        return None
    return first


def baseline_from_unasked(rounds: Sequence[Round]) -> dict[int, Fate]:
    """The fate of each position, from the unasked twin that held it (roles swap between rounds,
    so each position is held by an unasked twin in one of them)."""
    found: dict[int, Fate] = {}
    for rnd in rounds:
        for seat in rnd.seats:
            if not seat.asked:
                found.setdefault(seat.position, seat.fate)
    return found


@dataclass(frozen=True)
class Deviation:
    round: int  # index of the round
    position: int
    asked: bool
    aspect: str
    expected: object  # the position's baseline
    observed: object


def deviations(rounds: Sequence[Round], baseline: Mapping[int, Fate] | Sequence[Fate]) -> list[Deviation]:
    """Every aspect of every twin's fate that differs from its position's baseline."""
    base = dict(enumerate(baseline)) if isinstance(baseline, Sequence) else dict(baseline)
    found = []
    for index, rnd in enumerate(rounds):
        for seat in sorted(rnd.seats, key=lambda s: s.position):
            expected = base.get(seat.position)
            if expected is None:
                continue
            want, got = expected.aspects(), seat.fate.aspects()
            for aspect in want:
                if want[aspect] != got[aspect]:
                    found.append(
                        Deviation(index, seat.position, seat.asked, aspect, want[aspect], got[aspect])
                    )
    return found


@dataclass(frozen=True)
class Judgement:
    blamed: tuple[Deviation, ...]  # empty: status is not blamed
    deviations: tuple[Deviation, ...]
    why: str


def judge(rounds: Sequence[Round], baseline: Mapping[int, Fate] | Sequence[Fate]) -> Judgement:
    """Whether status changed the twins' fates: deviations from the baseline in every round (the
    roles and the creation order swapped between them), none of them met by asked and unasked
    twins alike."""
    found = deviations(rounds, baseline)
    if not found:
        return Judgement((), (), "every twin met the fate of its position, asked about or not")
    layouts = {rnd.asked_first for rnd in rounds}
    deviating = {d.round for d in found}
    if layouts != {True, False} or deviating != set(range(len(rounds))):
        return Judgement(
            (),
            tuple(found),
            "the difference did not come again with the roles and the creation order swapped",
        )
    roles_by_change: dict[tuple[str, str, str], set[bool]] = {}
    for d in found:
        roles_by_change.setdefault((d.aspect, repr(d.expected), repr(d.observed)), set()).add(d.asked)
    both = [change for change, who in roles_by_change.items() if len(who) == 2]
    if both:
        aspect, expected, observed = both[0]
        return Judgement(
            (),
            tuple(found),
            f"asked and unasked twins alike met the same change ({aspect} {expected} -> {observed}): the "
            "agent's own variation",
        )
    return Judgement(
        tuple(found), tuple(found), "status calls changed the twins' fates, the same way in both layouts"
    )


def explain(rounds: Sequence[Round], judgement: Judgement) -> str:
    """Both fates of each round, for a failure message: each twin status was asked about whose fate
    deviated, beside the twin created next to it."""
    lines = []
    for index, rnd in enumerate(rounds):
        order = "first" if rnd.asked_first else "second"
        mine = [d for d in judgement.blamed if d.round == index]
        if not mine:
            continue
        d = next((x for x in mine if x.asked), mine[0])
        seat = rnd.at(d.position)
        partner = rnd.at(d.position ^ 1) if any(s.position == d.position ^ 1 for s in rnd.seats) else None
        asked, unasked = (seat, partner) if seat.asked else (partner, seat)
        text = f"round {index + 1} (the first pair's asked twin created {order}): "
        text += f"asked twin {asked.fate.describe() if asked else '?'}; "
        text += f"its unasked twin {unasked.fate.describe() if unasked else '?'}"
        lines.append(text)
    return "; ".join(lines)


# -- confirmation: a divergence is never passed on one look --------------------------------------

# After a deviation no pair of rounds confirmed, this many rounds in a row in which every twin met
# its position's fate clear the agent: a status effect that showed in at least half the rounds
# would have shown in one of them with probability 1 - 0.5**CLEAR_ROUNDS (94 %).
CLEAR_ROUNDS = 4
EFFECT_RATE = 0.5  # the rate of showing the confidence above is stated for


@dataclass(frozen=True)
class Confirmation:
    """What the rounds so far decide: "blamed" (two pairs of rounds, each with the roles and the
    creation order swapped, lay the same blame), "clear" (no twin deviated from its position's
    fate in the first pair, or CLEAR_ROUNDS rounds in a row after a deviation), "more" (play
    another round), or "inconclusive" (the budget is spent before either)."""

    decision: str
    why: str
    blamed: tuple[Deviation, ...] = ()
    pairs: tuple[int, ...] = ()  # the index of the first round of each pair that laid the blame


def clean(rnd: Round, baseline: Mapping[int, Fate]) -> bool:
    """Every twin of the round met its position's fate (positions without one yet count as met)."""
    return all(seat.fate == baseline.get(seat.position, seat.fate) for seat in rnd.seats)


def confirm(
    rounds: Sequence[Round],
    budget: int,
    baseline: Mapping[int, Fate] | Sequence[Fate] | None = None,
    *,
    stopped: str | None = None,
) -> Confirmation:
    """Decide on rounds played in alternating layouts (asked twin first, then second, …) once the
    first one's twins met different fates. Pairs of rounds (0 and 1, 2 and 3, …) are judged each on
    its own baseline. A first pair in which no twin deviated from its position's fate clears at
    once (an agent whose order of creation decides, as under memory pressure). Two pairs that
    blame status fail it: fates that part by chance (an agent that evicts at random) line up with
    the roles in one pair of layouts now and then, and seldom in two, while a status that sets
    something off does it every time. A pair that blamed once is never cleared afterwards (only
    more rounds or the budget end it): a bug that shows under timing must not be passed by the
    rounds it missed.

    ``baseline``: each position's fate measured without status calls (the memory twins' calibration
    rounds), which every round is judged on; without it, each pair's unasked twins give it.
    ``stopped``: why no further round can be played (the case's time is spent), which makes the
    search inconclusive where it would play another."""
    played = len(rounds)
    if played < 2:
        if stopped is not None:
            return Confirmation("inconclusive", f"1 round; {stopped}")
        return Confirmation("more", "1 round")

    def fates(some: Sequence[Round]) -> dict[int, Fate]:
        if baseline is None:
            return baseline_from_unasked(some)
        return dict(enumerate(baseline)) if isinstance(baseline, Sequence) else dict(baseline)

    first = judge(rounds[:2], fates(rounds[:2]))
    if not first.deviations:
        return Confirmation("clear", f"2 rounds; {first.why}")
    blamed_pairs = []
    for start in range(0, played - 1, 2):
        pair = rounds[start : start + 2]
        verdict = judge(pair, fates(pair))
        if verdict.blamed:
            blamed_pairs.append((start, verdict))
    every = fates(rounds)
    deviated = [n + 1 for n, rnd in enumerate(rounds) if not clean(rnd, every)]
    seen = f"{played} rounds; twins deviated from their positions' fates in round(s) {', '.join(map(str, deviated))}"
    if len(blamed_pairs) >= 2:
        (one_at, one), (two_at, _) = blamed_pairs[0], blamed_pairs[1]
        return Confirmation(
            "blamed",
            f"{seen}; rounds {one_at + 1}-{one_at + 2} and {two_at + 1}-{two_at + 2} laid the same blame on "
            "status with the roles and the creation order swapped",
            one.blamed,
            (one_at, two_at),
        )
    streak = played - (deviated[-1] if deviated else 0)
    if not blamed_pairs and streak >= CLEAR_ROUNDS:
        shown = 1 - (1 - EFFECT_RATE) ** CLEAR_ROUNDS
        return Confirmation(
            "clear",
            f"{seen}; the last {streak} rounds in a row met their positions' fates: a status effect that showed in "
            f"at least {EFFECT_RATE:.0%} of the rounds would have shown in one of them with {shown:.0%} probability",
        )
    if played >= budget:
        why = (
            f"one pair of rounds (from round {blamed_pairs[0][0] + 1}) blamed status and no second pair did"
            if blamed_pairs
            else f"twins deviated without a pair of rounds blaming status, and fewer than {CLEAR_ROUNDS} rounds in a "
            "row met their positions' fates"
        )
        return Confirmation("inconclusive", f"{seen} (the budget: {budget} rounds); {why}")
    if stopped is not None:
        return Confirmation("inconclusive", f"{seen}; {stopped}")
    return Confirmation("more", seen)
