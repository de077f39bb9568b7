"""The case registry: stable slug ids, duplicates rejected, every case quotes its sentence."""

from __future__ import annotations

import json

import conformance.cases.acp.capability  # noqa: F401 - registers cases
import pytest

from conformance.core.registry import CASES, DuplicateCaseError, Level, SpecRef, case
from tests.conftest import ROOT

REF = SpecRef("test", "section", "A sentence.")


def test_duplicate_id_is_rejected_with_a_fix() -> None:
    with pytest.raises(DuplicateCaseError, match="give the newer case a new id"):

        @case("capability.status.object", level=Level.MUST, spec=REF)
        async def impostor(acp, details):  # pragma: no cover - never registered
            pass


@pytest.mark.parametrize("bad", ["Status.Foo", "status..foo", "1status", "status/foo", "status.foo-"])
def test_ids_must_be_slugs(bad: str) -> None:
    with pytest.raises(ValueError, match="slug"):
        case(bad, level=Level.MUST, spec=REF)


def test_every_case_quotes_its_sentence_from_the_source() -> None:
    import conformance.cases as cases

    cases.load_all()
    spec_dir = ROOT.parent / "shared" / "spec"
    rfd = next(spec_dir.glob("000_*.txt"), None) if spec_dir.is_dir() else None
    for c in CASES.values():
        assert c.spec.sentence.strip(), c.id
        assert c.title and c.title != c.id, f"{c.id} has no one-line docstring"
        if rfd is not None and c.spec.source.startswith("acp-rfd"):
            text = " ".join(rfd.read_text(encoding="utf-8").split())
            assert c.spec.sentence in text, (
                f"{c.id}: sentence not found verbatim in the RFD: {c.spec.sentence!r}"
            )
        schema = spec_dir / "acp-sdk-2.4.0-schema" / "v1" / "schema.unstable.json"
        if schema.is_file() and c.spec.source.startswith("acp-sdk-2.4.0/v1"):
            descriptions = " ".join(_descriptions(json.loads(schema.read_text(encoding="utf-8"))).split())
            assert c.spec.sentence in descriptions, (
                f"{c.id}: sentence not found in the v1 schema: {c.spec.sentence!r}"
            )


def _descriptions(node: object) -> str:
    if isinstance(node, dict):
        return " ".join([str(node.get("description", ""))] + [_descriptions(v) for v in node.values()])
    if isinstance(node, list):
        return " ".join(_descriptions(v) for v in node)
    return ""


def test_every_case_id_is_written_out_where_it_is_declared() -> None:
    """A case's id is greppable: the file that declares it spells it whole (never built in a loop)."""
    import inspect

    import conformance.cases as cases

    cases.load_all()
    hidden = [
        c.id
        for c in CASES.values()
        if c.module.startswith("conformance.cases.")
        and f'"{c.id}"' not in inspect.getsource(inspect.getmodule(c.func) or c.func)
    ]
    assert hidden == []
