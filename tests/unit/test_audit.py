"""The requirement audit: for every normative sentence of every revision, the ways an
implementation can break it, each with the check that catches it (and the broken variant in
tests/agents that shows the check can fail) or why no client can observe it.

The audit lives in the revision files, as a `breaks` column of each requirement:

    breaks = [
        { way = "status looks ids up case-insensitively", axis = "identity",
          by = "status.unknown.id-variants", variant = "acp/status_id_case_insensitive" },
        { way = "status refreshes an idle timer", axis = "channel", unobservable = "…" },
    ]

Each target's own test module checks that a variant listed here gets its `by` case failing.
"""

from __future__ import annotations

import conformance.cases as cases
import pytest

from conformance.core.registry import CASES
from conformance.core.traceability import AXES, load_revision
from tests import own
from tests.conftest import AGENTS

cases.load_all()


def known(reference: str) -> bool:
    case_id, _, rule = reference.partition("#")
    return case_id in CASES and (not rule or rule in CASES[case_id].rules)


def variant_path(variant: str):
    return AGENTS / f"{variant}.py"


@pytest.mark.parametrize("name", own.revision_names())
def test_every_normative_sentence_has_an_audit(name: str) -> None:
    rev = load_revision(name)
    missing = [r.sentence for r in rev.requirements if not r.excluded and not r.breaks]
    assert missing == [], f"{name}: sentences without a `breaks` audit"


@pytest.mark.parametrize("name", own.revision_names())
def test_audit_entries_are_well_formed(name: str) -> None:
    rev = load_revision(name)
    for req in rev.requirements:
        for b in req.breaks:
            where = f"{name}: {req.sentence[:60]!r}: {b.way!r}"
            assert b.axis in AXES, f"{where}: axis {b.axis!r} is none of {AXES}"
            assert bool(b.by) != bool(b.unobservable), (
                f"{where}: give `by` (a check) or `unobservable` (why not)"
            )
            if b.unobservable:
                assert len(b.unobservable) > 30, f"{where}: say why no client can observe it"
                continue
            assert known(b.by), f"{where}: `by` names no case or rule of a case"
            assert b.variant, f"{where}: name the broken variant in tests/agents that shows {b.by} catches it"
            assert variant_path(b.variant).is_file(), f"{where}: tests/agents/{b.variant}.py does not exist"


@pytest.mark.parametrize("name", own.revision_names())
def test_the_audit_covers_every_axis(name: str) -> None:
    rev = load_revision(name)
    seen = {b.axis for r in rev.requirements for b in r.breaks}
    assert set(AXES) - seen == set(), f"{name}: no break along these axes"


# The sentences whose breaks hide in conditions no quiet, one-at-a-time case creates: each must
# have been tried under every condition (a break along each condition's axis, with its check).
UNDER_EVERY_CONDITION = {
    "rfd-2026-10-26": ["session/status MUST NOT have side effects."],
    "acp-unstable-2026-11": ["`session/status` MUST NOT have side effects."],
}


@pytest.mark.parametrize("name", sorted(UNDER_EVERY_CONDITION))
def test_the_side_effect_sentences_are_tried_under_every_condition(name: str) -> None:
    from conformance.core.traceability import CONDITIONS

    rev = load_revision(name)
    for start in UNDER_EVERY_CONDITION[name]:
        req = next(r for r in rev.requirements if r.sentence.startswith(start))
        missing = [c for c in CONDITIONS.values() if c not in req.conditions]
        assert missing == [], f"{name}: {start!r} has not been tried under: {missing}"


def test_conditions_are_read_from_the_axes_of_breaks_with_a_check() -> None:
    from conformance.core.traceability import Break, Requirement

    req = Requirement(
        source="s",
        section="x",
        sentence="y",
        breaks=(
            Break(way="a", axis="pressure", by="c", variant="v"),
            Break(way="b", axis="later", unobservable="no client can see it"),
            Break(way="c", axis="isolation", by="c", variant="v"),
        ),
    )
    assert req.conditions == ("pressure", "neighbour")
