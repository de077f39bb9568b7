"""One engine certifies every target's variants (the files of tests/agents/<target>/): the engine
a command-line run drives (conformance.run), here without pytest around it (`direct`, in-process).

A `Table` is one configuration of a target: its baseline (the reference's outcomes there), how a
variant is started in it, and the variants run in it. Each variant's expected outcomes are written
once, in its `Variant`: the exit code and the outcomes that differ from the baseline (its delta).

A variant runs the cases its difference can touch (its `focus`, a ``-k`` expression as a user writes
one; every case when it has none), less the slow ones (``@case(..., slow=True)``) that neither its
delta nor its `also` names: every other case is the guard that nothing else changes. Every outcome
of that run must be the baseline's or the delta's, the exit code the variant's, and each failure of
a broken variant must say why, with its frames and the sentence its audit entry names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import conformance.cases as cases

from conformance.core import revisions
from conformance.core.registry import CASES
from conformance.core.traceability import load_revision
from conformance.run import keyword_selects
from tests.conftest import AGENTS, Run

cases.load_all()

CONCLUDING = ("fail", "warn")


@dataclass(frozen=True)
class Variant:
    """What certifying one variant must give, and what its run needs besides its table's."""

    exit: int
    # Outcomes that differ from the table's baseline; every other case it runs gives the baseline's.
    delta: Mapping[str, str] = field(default_factory=dict)
    # The cases its difference can touch, as `-k` selects them; None: every case.
    focus: str | None = None
    # Slow cases it runs although its delta does not name them.
    also: tuple[str, ...] = ()
    # The suite's options for its run, beyond the table's (a policy it has, a shorter clock).
    args: tuple[str, ...] = ()
    # Its own flags (a policy switched on, a protocol version).
    agent_args: tuple[str, ...] = ()
    # (case, text): that case's message contains the text.
    message: tuple[str, str] | None = None
    # (case, rule or rules): that case's finding names one of these rules.
    rule: tuple[str, str | tuple[str, ...]] | None = None
    # The revision the run must have certified against, where not the table's.
    revision: str | None = None

    def concluded(self) -> dict[str, str]:
        return {c: o for c, o in self.delta.items() if o in CONCLUDING}


@dataclass(frozen=True)
class Table:
    """One configuration of a target and the variants certified in it."""

    target: str
    baseline: Mapping[str, str]
    # The suite's arguments that start variant NAME (its command and the transport's options).
    start: Callable[[str, Variant], Sequence[str]]
    variants: Mapping[str, Variant]
    # Conforming variants never fail or warn, and pass whatever their delta does not name.
    conforming: bool = False
    # Run the slow cases of each focus too (a conforming variant's focus is often the very cases
    # whose assumption it defeats, and its empty delta names none of them).
    whole_focus: bool = False
    revision: str | None = None
    # What a run in this table shows besides its outcomes (the transport it used, its details).
    check: Callable[[Run, str, Variant], None] | None = None

    def files(self) -> set[str]:
        """The files of tests/agents/<target>/ its variants are (NAME or NAME/configuration)."""
        return {file_of(name) for name in self.variants if not name.startswith("reference")}


def file_of(name: str) -> str:
    return name.partition("/")[0]


def matching(ids: Iterable[str], expression: str | None) -> set[str]:
    """The cases ``-k expression`` selects among ``ids``, as the engine selects them."""
    return {c for c in ids if keyword_selects(CASES[c], expression)}


def selection(table: Table, name: str) -> tuple[list[str], dict[str, str]]:
    """The cases variant NAME runs, in the baseline's order, and the outcome each must give."""
    variant = table.variants[name]
    chosen = matching(table.baseline, variant.focus)
    outside = set(variant.delta) - chosen
    assert not outside, f"{name}: its focus {variant.focus!r} leaves out cases its delta names: {outside}"
    expected = dict(table.baseline) | dict(variant.delta)
    runs = [
        c
        for c in expected
        if c in chosen and (c in variant.delta or c in variant.also or table.whole_focus or not CASES[c].slow)
    ]
    return runs, {c: expected[c] for c in runs}


def areas(delta: Mapping[str, str]) -> str:
    """The spec areas (heartbeat.args, heartbeat.idempotency, …) of the cases a delta names, as a
    ``-k`` expression."""
    return " or ".join(sorted({".".join(c.split(".")[:2]) + "." for c in delta}))


def by_area(variants: dict[str, Variant]) -> dict[str, Variant]:
    """The broken variants, each without a focus given the areas of its delta (nothing else there
    moves), except each case's sole catcher: the first of them whose delta is that case alone runs
    every cheap case, which shows that this case, and no other, catches it. Computed here, not
    written out, so that a variant added to a table gets the same rule."""
    sole: dict[str, str] = {}
    for name, variant in variants.items():
        if len(variant.delta) == 1 and variant.focus is None:
            sole.setdefault(next(iter(variant.delta)), name)
    catchers = set(sole.values())
    return {
        name: variant
        if variant.focus is not None or name in catchers
        else replace(variant, focus=areas(variant.delta))
        for name, variant in variants.items()
    }


def certify(direct: Callable[..., Run], table: Table, name: str) -> Run:
    """Variant NAME of the table gets exactly its outcomes and exit code, and explains each failure."""
    variant = table.variants[name]
    if table.conforming:
        assert not variant.concluded(), f"{name}: a conforming variant never fails or warns"
    cases_run, expected = selection(table, name)
    run = direct(*table.start(name, variant), *variant.args, cases=cases_run)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == variant.exit, run.stderr[-2000:]
    assert run.report is not None
    assert run.report["target"] == table.target
    revision = variant.revision or table.revision
    if revision is not None:
        assert run.report["spec"]["revision"] == revision
    if variant.message is not None:
        case_id, text = variant.message
        assert text in run.case(case_id)["message"], run.case(case_id)["message"]
    if variant.rule is not None:
        case_id, rule = variant.rule
        record = run.case(case_id)
        assert record.get("rule") in (rule if isinstance(rule, tuple) else (rule,)), record.get("message")
    run.assert_explained(dict(variant.delta))
    if table.check is not None:
        table.check(run, name, variant)
    return run


def uncaught(target: str, tables: Iterable[Table], *deltas: Mapping[str, str]) -> set[str]:
    """The target's cases that no broken variant of these tables (nor the extra deltas: variants
    certified by tests of their own) makes fail or warn: checks nobody has seen work."""
    caught = {
        case_id
        for table in tables
        if not table.conforming
        for variant in table.variants.values()
        for case_id in variant.concluded()
    }
    caught |= {c for delta in deltas for c, o in delta.items() if o in CONCLUDING}
    return {c for c in CASES if CASES[c].target == target} - caught


def unlisted(target: str, tables: Iterable[Table], others: Iterable[str] = ()) -> tuple[set[str], set[str]]:
    """The files of tests/agents/<target>/ no table runs (nor ``others``, files with tests of their
    own), and the table entries no file is behind."""
    files = {p.stem for p in (AGENTS / target).glob("*.py") if not p.name.startswith("_")}
    listed = set(others).union(*(table.files() for table in tables))
    return files - listed, listed - files


def deltas_by_file(tables: Iterable[Table]) -> dict[str, dict[str, str]]:
    """What each broken file makes fail or warn over its configurations, as the audit names it."""
    found: dict[str, dict[str, str]] = {}
    for table in tables:
        if table.conforming:
            continue
        for name, variant in table.variants.items():
            found.setdefault(f"{table.target}/{file_of(name)}", {}).update(variant.concluded())
    return found


def audit_not_backed(
    target: str, tables: Iterable[Table], extra: Mapping[str, Mapping[str, str]] = {}
) -> list[str]:
    """The audit's claims (the `breaks` of the target's revision files) these tables do not back:
    each variant the audit names under tests/agents/<target>/ must be a broken variant here, and
    make its `by` case fail or warn."""
    deltas = deltas_by_file(tables) | {k: dict(v) for k, v in extra.items()}
    prefix = f"{target}/"
    wrong = []
    for name in revisions.available(target):
        for req in load_revision(name).requirements:
            for b in req.breaks:
                if not b.by:
                    continue
                if b.variant.startswith(prefix) and b.variant not in deltas:
                    wrong.append(f"{name}: {b.variant} is named by the audit but is no broken variant here")
                    continue
                if b.variant not in deltas:
                    continue
                case_id = b.by.partition("#")[0]
                if deltas[b.variant].get(case_id) not in CONCLUDING:
                    wrong.append(f"{name}: {b.variant} does not make {case_id} fail ({b.way})")
    return wrong


def agent_path(target: str, name: str) -> Path:
    return AGENTS / target / f"{file_of(name)}.py"
