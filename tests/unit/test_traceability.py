"""Traceability: every normative sentence has an entry, every case a sentence, every quote is verbatim."""

from __future__ import annotations

import json
import re

import conformance.cases as cases
import pytest

from conformance.core import revisions
from conformance.core.registry import CASES
from conformance.core.traceability import (
    coverage,
    keyword_level,
    load_revision,
    normalize,
    schema_sentences,
    spec_sentences,
)
from tests import own
from tests.conftest import ROOT
from tests.unit.test_registry import _descriptions

REVISION = "rfd-2026-10-26"
RFD = "acp-rfd-session-status@2026-10-26"
SDK_V1 = "acp-sdk-2.4.0/v1/schema.unstable.json"
SHARED = ROOT.parent / "shared" / "spec"


@pytest.fixture(scope="module")
def revision():
    cases.load_all()
    return load_revision(REVISION)


def unmapped(revision, text: str) -> list[str]:
    quotes = [normalize(r.sentence) for r in revision.requirements if r.source == RFD]
    return [
        s for _, s in spec_sentences(text, revision.normative_sections) if not any(s in q for q in quotes)
    ]


def test_every_normative_sentence_of_the_rfd_has_an_entry(revision) -> None:
    text = revision.source_text(RFD)
    assert text is not None
    sentences = spec_sentences(text, revision.normative_sections)
    assert len(sentences) >= 20, "the sentence splitter found too little: is the spec file the RFD?"
    assert unmapped(revision, text) == []


def test_a_new_spec_sentence_without_an_entry_is_caught(revision) -> None:
    text = revision.source_text(RFD)
    assert text is not None
    added = text.replace(
        "• The result is a snapshot.", "• The result is a snapshot. Agents MUST answer within 1 ms."
    )
    elsewhere = text.replace("Shiny future\n", "Shiny future\n\n• Routers SHOULD cache the answer.\n")
    assert unmapped(revision, added) == ["Agents MUST answer within 1 ms."]
    assert unmapped(revision, elsewhere) == ["Routers SHOULD cache the answer."]


def test_every_rfd_quote_is_verbatim_in_the_vendored_rfd(revision) -> None:
    text = normalize(revision.source_text(RFD) or "")
    wrong = [
        r.sentence for r in revision.requirements if r.source == RFD and normalize(r.sentence) not in text
    ]
    assert wrong == []


def test_every_sdk_quote_is_in_the_official_schema(revision) -> None:
    schema = SHARED / "acp-sdk-2.4.0-schema" / "v1" / "schema.unstable.json"
    if not schema.is_file():
        pytest.skip(f"{schema} is not on this machine")
    descriptions = normalize(_descriptions(json.loads(schema.read_text(encoding="utf-8"))))
    quotes = [r.sentence for r in revision.requirements if r.source == SDK_V1]
    assert quotes and [q for q in quotes if normalize(q) not in descriptions] == []


def known(reference: str) -> bool:
    """A case id, or "case#rule" for one of a case's declared rules."""
    case_id, _, rule = reference.partition("#")
    return case_id in CASES and (not rule or rule in CASES[case_id].rules)


def test_each_entry_maps_to_cases_or_an_exclusion(revision) -> None:
    for req in revision.requirements:
        assert req.source in revision.sources, f"unknown source {req.source!r}"
        assert bool(req.cases) != bool(req.excluded), (
            f"needs cases or an exclusion, not both: {req.sentence!r}"
        )
        assert len(req.excluded) > 20 or req.cases, f"an exclusion needs a real reason: {req.sentence!r}"
        unknown = [c for c in req.cases if not known(c)]
        assert unknown == [], f"{req.sentence!r} names unknown cases or rules"


@pytest.mark.parametrize("name", [REVISION, "mcp-session-heartbeat-2025-06-18", "agentscope-2.0.4"])
def test_every_case_quotes_exactly_the_sentence_it_is_mapped_to(name: str) -> None:
    revision = load_revision(name)
    for case in [c for c in CASES.values() if c.target == revision.target]:
        entries = [r for r in revision.requirements if case.id in r.cases]
        assert entries, f"{case.id} is not mapped to any sentence in {name}.toml"
        assert any(r.sentence == case.spec.sentence and r.source == case.spec.source for r in entries), (
            f"{case.id} quotes {case.spec.sentence!r}, which is not the sentence its entry maps it to"
        )


def test_keyword_levels() -> None:
    assert keyword_level("session/status MUST NOT have side effects.") == "MUST"
    assert keyword_level("It must not load the session.") == "MUST"
    assert keyword_level("It SHOULD be cheap, and Clients may call it often.") == "SHOULD"
    assert keyword_level("it MAY return inactive") == "MAY"
    assert keyword_level("state is optional.") == "-"


def test_coverage_counts_what_ran(revision) -> None:
    ran = [
        {"id": "status.result.shape", "outcome": "pass"},
        {"id": "capability.status.object", "outcome": "n/a"},
    ]
    result = coverage(revision, ran)
    rows = {r["sentence"]: r for r in result["sentences"]}
    assert rows["SessionStatusResponse: status (required), _meta (optional)."]["status"] == "tested"
    assert (
        rows[
            "SessionStatusCapabilities: empty object with optional _meta, added as status on the v1 "
            "SessionCapabilities and the v2 session capabilities."
        ]["status"]
        == "not-run"
    )
    assert rows["The result is a snapshot."]["status"] == "excluded"
    assert (
        result["tested"] + result["excluded"] + result["not-run"]
        == result["total"]
        == len(revision.requirements)
    )


def test_a_rule_its_case_left_unjudged_is_not_testable(revision) -> None:
    """A case that passed without judging one of its rules (its calibration showed the probe could
    not tell) does not count that rule as tested."""
    judged = {"id": "status.active.during-turn", "outcome": "pass", "details": {}}
    unjudged = judged | {"details": {"unjudged": {"turn-untouched": "the control turn ended cancelled"}}}
    for ran, expected in ((judged, "pass"), (unjudged, "not-testable")):
        rows = coverage(revision, [ran])["sentences"]
        (row,) = [r for r in rows if "status.active.during-turn#turn-untouched" in r["cases"]]
        assert row["cases"]["status.active.during-turn#turn-untouched"] == expected


def test_a_case_listed_beside_its_rules_checks_the_sentence_only_through_them() -> None:
    """The 405 sentence lists http.protocol.header-fields whole and its rule allow: a run that left
    allow unjudged (no 405 came) did not check the sentence, whatever else the case judged."""
    revision = load_revision("agentscope-2.0.4")
    case_id = "http.protocol.header-fields"
    for unjudged, expected in (({}, "tested"), ({"allow": "no 405 came"}, "not-run")):
        ran = {"id": case_id, "outcome": "pass", "details": {"unjudged": unjudged}}
        (row,) = [r for r in coverage(revision, [ran])["sentences"] if f"{case_id}#allow" in r["cases"]]
        assert row["status"] == expected, row
        assert row["cases"][case_id] == ("pass" if not unjudged else "not-testable")


# -- every revision -------------------------------------------------------------------------------

UNSTABLE = "acp-unstable-2026-11"


@pytest.mark.parametrize("name", own.revision_names())
def test_every_case_is_mapped_or_said_not_part_of_each_revision(name: str) -> None:
    cases.load_all()
    rev = load_revision(name)
    for case in [c for c in CASES.values() if c.target == rev.target]:
        mapped = rev.spec_for(case.id) is not None
        assert mapped != (case.id in rev.not_part), f"{name}: {case.id} needs an entry or a not_part reason"
    for req in rev.requirements:
        assert req.source in rev.sources, f"{name}: unknown source {req.source!r}"
        assert bool(req.cases) != bool(req.excluded), f"{name}: cases or an exclusion: {req.sentence!r}"
        assert [c for c in req.cases if not known(c)] == []


@pytest.mark.parametrize("name", own.revision_names())
def test_every_rule_names_its_own_sentence_in_each_revision(name: str) -> None:
    """A failure found by a rule quotes that rule's sentence: each rule of each case that is part of
    the revision is mapped there, so no rule falls back to its case's first sentence."""
    cases.load_all()
    rev = load_revision(name)
    for case in [c for c in CASES.values() if c.target == rev.target and rev.spec_for(c.id) is not None]:
        unmapped = [r for r in case.rules if not any(f"{case.id}#{r}" in q.cases for q in rev.requirements)]
        assert unmapped == [], f"{name}: rules of {case.id} with no sentence: {unmapped}"


@pytest.mark.parametrize("name", own.revision_names())
def test_harness_findings_have_a_sentence(name: str) -> None:
    """An unanswered request and a broken message quote the sentence the revision names for them."""
    rev = load_revision(name)
    assert rev.by_key("reply") is not None, f"{name}: no requirement with key = 'reply'"
    if rev.target != "http":
        assert rev.by_key("envelope") is not None, f"{name}: no requirement with key = 'envelope'"


@pytest.mark.parametrize("name", own.revision_names())
def test_every_quote_of_each_revision_is_verbatim(name: str) -> None:
    rev = load_revision(name)
    for req in rev.requirements:
        text = rev.source_text(req.source)
        if text is None:
            continue  # JSON-RPC 2.0: quoted by hand, no copy here
        if req.source.startswith("acp-sdk-2.4.0/"):
            text = _descriptions(json.loads(text)[req.source.split("/")[1]])
        assert normalize(req.sentence) in normalize(text), f"{name}: not verbatim: {req.sentence!r}"


def test_every_sentence_of_the_sdk_status_definitions_has_an_entry() -> None:
    rev = load_revision(UNSTABLE)
    definitions = json.loads(rev.source_text(SDK_V1) or "{}")["v1"]
    sentences = schema_sentences(definitions, rev.schema_definitions)
    assert len(sentences) >= 25
    quotes = [normalize(r.sentence) for r in rev.requirements if r.source == SDK_V1]
    assert [s for _, s in sentences if not any(s in q for q in quotes)] == []


def test_revisions_differ_where_the_texts_do() -> None:
    rfd, unstable = load_revision(REVISION), load_revision(UNSTABLE)
    assert rfd.vocabulary == {"active": "active", "inactive": "inactive"}
    assert unstable.vocabulary == {"active": "open", "inactive": "saved"}
    assert rfd.may_inactive_for_unknown and not unstable.may_inactive_for_unknown
    assert unstable.spec_for("status.unknown.may-inactive") is None


def test_every_sentence_of_the_heartbeat_spec_has_an_entry() -> None:
    rev = load_revision("mcp-session-heartbeat-2025-06-18")
    text = rev.source_text("mcp-session-heartbeat@2025-06-18") or ""
    prose, descriptions, depth = [], [], 0
    for line in text.splitlines():
        depth += line.count("{") - line.count("}")
        stripped = line.strip()
        if depth == 0 and stripped and not stripped.startswith("}"):
            prose.append(stripped)
        if '"description":' in stripped:
            descriptions.append(json.loads("{" + stripped.rstrip(",") + "}")["description"])
    headings = {
        "MCP 2025-06-18",
        "session_heartbeat",
        "Input schema",
        "Synthetic example · JSON",
        "Call this tool",
        "Read the result before continuing",
    }
    sentences = [s for p in prose if p not in headings for s in re.split(r"(?<=[.;])\s+(?=[A-Z])", p)]
    quotes = [normalize(r.sentence) for r in rev.requirements]
    missing = [
        s for s in sentences + descriptions if not any(normalize(s) in q or q in normalize(s) for q in quotes)
    ]
    assert len(sentences) + len(descriptions) >= 14
    assert missing == []


@pytest.mark.parametrize("name", own.revision_names())
def test_requirement_keys_are_unique(name: str) -> None:
    keys = [r.key for r in load_revision(name).requirements if r.key]
    assert len(keys) == len(set(keys)), f"{name}: a key names two requirements"


def test_the_quote_beside_a_case_sentence_is_the_sentence() -> None:
    """Cases name their sentence by key; the comment above the name quotes its start for the
    reader, and must not drift from the revision file's text."""
    import re

    pattern = re.compile(r'^# "(.*)"\n\w+ = requirement\("([^"]+)", "([^"]+)"\)', re.M)
    for path in sorted((ROOT / "cases").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        quoted = pattern.findall(text)
        assert len(quoted) == text.count(" = requirement("), (
            f"{path.name}: a requirement without its quote above"
        )
        for quote, revision, key in quoted:
            sentence = revisions.requirement(revision, key).sentence
            assert sentence.startswith(quote.rstrip("…")), (
                f"{path.name}: {key}: {quote!r} is not {sentence!r}"
            )
