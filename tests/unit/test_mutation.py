"""The mutation campaign's own logic on small inputs: fates, triage files, the score, the report,
and the committed configs (tools/mutation, mutation/)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import conformance.cases as cases
import pytest

from conformance.core.registry import CASES
from tests.conftest import ROOT
from tools.mutation.results import (
    Mutant,
    TriageError,
    Verdict,
    fate_of,
    load_triage,
    markdown,
    mutant_id,
    score,
)
from tools.mutation.targets import CAMPAIGNS

cases.load_all()


def test_a_hang_is_not_a_kill() -> None:
    assert fate_of("normal", "killed", "timeout") == "timeout"
    assert fate_of("normal", "killed", "exit 1: NON-CONFORMANT …") == "killed"
    assert fate_of("normal", "survived", "exit 0: CONFORMANT …") == "survived"
    assert fate_of("skipped", None, "excluded definition") == "skipped"
    assert fate_of("exception", None, "Traceback …") == "incompetent"
    assert fate_of(None, None, None) == "pending"


def test_mutant_ids_are_stable_names() -> None:
    assert mutant_id("conformance/reference/acp/agent.py", (120, 8), "core/AddNot", 3) == (
        "conformance/reference/acp/agent.py:120:8:AddNot:3"
    )


def triage_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "acp-triage.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[survivor]]\nid = "m:1:0:AddNot:0"\nkind = "caught"\ncase = "status.no.such"\n',
            "not a case of the suite",
        ),
        (
            '[[survivor]]\nid = "m:1:0:AddNot:0"\nkind = "maybe"\n',
            "is not one of equivalent, conforming, robustness, caught",
        ),
        (
            '[[survivor]]\nid = "m:1:0:AddNot:0"\nkind = "robustness"\ncase = "status.no.such"\n',
            "not a case of the suite",
        ),
        ('[[survivor]]\nid = "m:1:0:AddNot:0"\nkind = "conforming"\n', "the spec sentence that allows it"),
        ('[[survivor]]\nid = "m:1:0:AddNot:0"\nkind = "equivalent"\n', "needs a reason"),
        ('[[survivor]]\nkind = "equivalent"\nreason = "x"\n', "no id"),
        (
            '[[survivor]]\nid = "a"\nkind = "equivalent"\nreason = "x"\n'
            '[[survivor]]\nid = "a"\nkind = "equivalent"\nreason = "y"\n',
            "triaged twice",
        ),
        ("[[survivor]\n", "not TOML"),
    ],
)
def test_a_triage_file_that_cannot_be_trusted_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(TriageError, match=message):
        load_triage(triage_file(tmp_path, text), set(CASES))


def test_a_triage_file_reads_both_kinds(tmp_path: Path) -> None:
    path = triage_file(
        tmp_path,
        '[[survivor]]\nid = "a"\nkind = "equivalent"\nreason = "a log line"\n'
        '[[survivor]]\nid = "b"\nkind = "caught"\ncase = "status.result.shape"\n',
    )
    assert load_triage(path, set(CASES)) == {
        "a": Verdict("equivalent", "a log line", ""),
        "b": Verdict("caught", "", "status.result.shape"),
    }


MUTANTS = [
    Mutant("k1", "m.py", 1, "core/AddNot", "killed"),
    Mutant("k2", "m.py", 2, "core/AddNot", "killed"),
    Mutant("k3", "m.py", 3, "core/AddNot", "killed"),
    Mutant("eq", "m.py", 4, "core/AddNot", "survived", "-a\n+b"),
    Mutant("allowed", "m.py", 4, "core/AddNot", "survived", "-a\n+c"),
    Mutant("frames", "m.py", 4, "core/AddNot", "survived", "-a\n+e"),
    Mutant("gap", "m.py", 5, "core/AddNot", "survived", "-c\n+d"),
    Mutant("promised", "m.py", 6, "core/AddNot", "survived", "-e\n+f"),
    Mutant("hang", "m.py", 7, "core/AddNot", "timeout", "-g\n+h"),
    Mutant("skip", "m.py", 8, "core/AddNot", "skipped"),
]
TRIAGE = {
    "eq": Verdict("equivalent", "only a log line changes"),
    "allowed": Verdict("conforming", "a MAY"),
    "frames": Verdict("robustness", "a notification", "x.frames"),
    "promised": Verdict("caught", case="x.y"),
}


def test_the_score_is_killed_over_all_but_equivalent_and_conforming() -> None:
    result = score(MUTANTS, TRIAGE)
    assert result.counts["killed"] == 3 and result.counts["timeout"] == 1 and result.counts["skipped"] == 1
    assert result.unscored == 3
    assert (
        result.scored == 3 + 5 + 1 - 3
    )  # killed + survived + timed out − equivalent, conforming, robustness
    assert result.value == pytest.approx(3 / 6)
    assert result.gaps == ["gap"] and result.broken_promises == ["promised"]


def test_the_report_shows_each_survivor_with_its_diff_and_triage() -> None:
    text = markdown("acp", MUTANTS, TRIAGE, {"date": "2026-12-01", "commit": "abc1234", "sample": None})
    assert "**Score: 50.0%**" in text and "2026-12-01" in text and "abc1234" in text
    assert "judged again" not in text
    rechecked = markdown("acp", MUTANTS, TRIAGE, {"rechecked": 2})
    assert "2 survivor(s) triaged as caught were judged again after the campaign" in rechecked
    assert "### `gap` (survived; untriaged)" in text and "+d" in text
    assert "### `eq` (survived; equivalent: only a log line changes)" in text
    assert "### `allowed` (survived; conforming: a MAY)" in text
    assert "### `frames` (survived; robustness, reported by x.frames: a notification)" in text
    assert "### `promised` (survived; caught by x.y)" in text
    assert "### `hang` (timeout; untriaged)" in text
    assert "`k1`" not in text  # killed mutants are counted, not listed
    assert "1 untriaged survivor(s)" in text and "Triaged as caught but survived**: promised" in text


def definitions(module: Path) -> set[str]:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # what a definitions-filter names
    return {node.name for node in ast.walk(ast.parse(module.read_text())) if isinstance(node, kinds)}


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_each_campaign_config_names_real_code_and_says_why_it_leaves_code_out(name: str) -> None:
    campaign = CAMPAIGNS[name]
    text = campaign.config.read_text()
    config = tomllib.loads(text)["cosmic-ray"]
    assert config["test-command"] == f"python -m tools.mutation.kill {name}"
    modules = [ROOT / path for path in config["module-path"]]
    assert modules and all(m.is_file() for m in modules)
    for entry in config.get("filters", {}).get("definitions-filter", {}).get("exclude", []):
        module_name, definition = entry.split(":")
        (module,) = [m for m in modules if m.name == module_name]
        assert definition in definitions(module), f"{entry}: no such definition (renamed?)"
        # The reason is written above each group of exclusions.
        lines = text.splitlines()
        index = next(i for i, line in enumerate(lines) if f'"{entry}"' in line)
        above = next(line.strip() for line in reversed(lines[:index]) if not line.strip().startswith('"'))
        assert above.startswith("#"), f"{entry}: no reason written above it"
    load_triage(campaign.triage, set(CASES))  # the committed triage is valid


def machinery_of(name: str) -> dict:
    return (
        tomllib.loads(CAMPAIGNS[name].config.read_text())["cosmic-ray"]
        .get("filters", {})
        .get("machinery-filter", {})
    )


@pytest.mark.parametrize("name", sorted(n for n in CAMPAIGNS if "definitions" in machinery_of(n)))
def test_a_features_campaign_names_machinery_the_reference_has(name: str) -> None:
    """Each definition exists and each line pattern finds a line, in a module the campaign mutates
    (a rename or a rewrite would silently leave the machinery unmutated)."""
    from tools.mutation.machinery import Machinery

    modules = {
        Path(p).name: ROOT / p
        for p in tomllib.loads(CAMPAIGNS[name].config.read_text())["cosmic-ray"]["module-path"]
    }
    machinery = Machinery.from_config(machinery_of(name))
    assert machinery.modules() <= set(modules)
    for entry in machinery.definitions:
        module, _, definition = entry.partition(":")
        assert definition in definitions(modules[module]), f"{entry}: no such definition"
    for module, pattern in machinery.lines:
        assert any(pattern.search(line) for line in modules[module].read_text().splitlines()), (
            f"{module}:{pattern.pattern} finds no line"
        )


@pytest.mark.parametrize("name", sorted(n for n in CAMPAIGNS if "owned-by" in machinery_of(n)))
def test_the_two_campaigns_of_a_target_split_its_mutants(name: str) -> None:
    """The machinery-off campaign skips what the features-on one of the same target judges, and
    the features-on one mutates no module of the other's that it does not split with it."""
    owner = machinery_of(name)["owned-by"]
    (features,) = [n for n in CAMPAIGNS if CAMPAIGNS[n].config.name == owner]
    assert CAMPAIGNS[features].target == CAMPAIGNS[name].target and features != name
    from tools.mutation.machinery import Machinery

    machinery = Machinery.from_config(machinery_of(features))
    paths = {
        n: set(tomllib.loads(CAMPAIGNS[n].config.read_text())["cosmic-ray"]["module-path"])
        for n in (name, features)
    }
    shared = {Path(p).name for p in paths[name] & paths[features]}
    assert shared <= machinery.modules(), "a module both campaigns mutate whole"


def test_the_machinery_is_a_features_campaigns_and_nobody_elses() -> None:
    from tools.mutation.machinery import Machinery, SelectionError, skipped

    machinery = Machinery.from_config(
        {"definitions": ["agent.py:fits"], "lines": ["agent.py:self\\.memory\\b"]}
    )
    assert machinery.owns("x/agent.py", "fits", "return True") is True
    assert machinery.owns("x/agent.py", "prompt", "        self.memory.use(sid)") is True
    assert machinery.owns("x/agent.py", "prompt", "        self.memorable = 1") is False
    assert machinery.owns("x/memory.py", "use", "anything") is None  # a module no entry names
    # The features-on campaign keeps the machinery and whole modules; the other skips exactly it.
    assert not skipped(machinery, False, "x/agent.py", "fits", "")
    assert skipped(machinery, False, "x/agent.py", "prompt", "x = 1")
    assert not skipped(machinery, False, "x/memory.py", "use", "")
    assert skipped(machinery, True, "x/agent.py", "fits", "")
    assert not skipped(machinery, True, "x/agent.py", "prompt", "x = 1")
    assert not skipped(machinery, True, "x/common.py", "f", "")
    for section in ({"definitions": ["fits"]}, {"lines": ["agent.py:("]}, {"lines": ["agent.py"]}):
        with pytest.raises(SelectionError):
            Machinery.from_config(section)


def test_a_triaged_mutant_is_found_where_its_line_moved() -> None:
    pytest.importorskip("cosmic_ray", reason="Cosmic Ray comes with the [mutation] extra")
    from tools.mutation.rekey import GONE, Moved, rekey, rewrite

    old = "def f(a, b):\n    return a < b + 1\n"
    # A function above adds a line and an occurrence of each operator; the line itself moves.
    new = "def g(x):\n    return x < 1 + 2\n\n\ndef f(a, b):\n    return a < b + 1\n"
    assert rekey("m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", old, new, "c0") == Moved(
        "m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", "m.py:6:13:ReplaceComparisonOperator_Lt_LtE:1"
    )
    # NumberReplacer makes two mutants of one number: each keeps its own (+1, -1).
    assert rekey("m.py:2:19:NumberReplacer:1", old, new, "c0").new == "m.py:6:19:NumberReplacer:5"
    # Indented deeper, and on a line that changed elsewhere (the edit at its place is the same).
    wrapped = "class C:\n    def f(a, b):\n        return a < b + 1 or a\n"
    assert rekey("m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", old, wrapped, "c0").new == (
        "m.py:3:17:ReplaceComparisonOperator_Lt_LtE:0"
    )
    gone = rekey("m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", old, "def f(a, b):\n    pass\n", "c0")
    assert gone.new is None and "no longer in the reference" in gone.why
    rewritten = rekey(
        "m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", old, "def f(a, b):\n    return b\n", "c0"
    )
    assert rewritten.new is None and "changed at the mutated text" in rewritten.why
    text = '[[survivor]]\nid = "m.py:2:11:X:0"\nkind = "equivalent"\n'
    renamed = rewrite(text, [Moved("m.py:2:11:X:0", None, "its line is gone", "c0")])
    assert renamed.startswith("# Gone from the reference since c0: its line is gone.\n[[survivor]]\n")
    assert f'id = "{GONE}c0:m.py:2:11:X:0"' in renamed
    assert rewrite(text, [Moved("m.py:2:11:X:0", "m.py:6:11:X:1")]) == text.replace("2:11:X:0", "6:11:X:1")


def test_annotations_are_found_only_where_they_are_never_evaluated() -> None:
    from tools.mutation.annotations import annotation_spans, inside

    source = (
        "from __future__ import annotations\n"
        "def f(a: str | None, b=1 | 2) -> int | None:\n"
        "    x: int | str = a | b\n"
        "    return x\n"
    )
    spans = annotation_spans(source)
    assert inside((2, 13), spans)  # the | of `str | None`
    assert inside((2, 37), spans)  # the | of the return annotation
    assert inside((3, 11), spans)  # the | of `int | str`
    assert not inside((2, 25), spans)  # `1 | 2`, a default: evaluated
    assert not inside((3, 21), spans)  # `a | b`, the value: evaluated
    assert (
        annotation_spans(source.replace("from __future__ import annotations\n", "")) == []
    )  # evaluated then


def test_a_survivors_output_names_what_its_runs_noticed_below_the_certificate() -> None:
    from tools.mutation.kill import noticed

    report = {
        "cases": [
            {"id": "a", "level": "MUST", "outcome": "pass"},
            {"id": "b", "level": "MUST", "outcome": "n/a"},
            {"id": "c", "level": "SHOULD", "outcome": "warn"},
            {"id": "d", "level": "ROBUSTNESS", "outcome": "fail"},
            {"id": "e", "level": "MUST", "outcome": "not-testable"},
        ]
    }
    assert noticed(report) == ["warn SHOULD c", "fail ROBUSTNESS d", "not-testable MUST e"]
    assert noticed({}) == []
    # Against the unmutated reference's outcomes, every case that moved, n/a included.
    reference = {"a": "pass", "b": "pass", "c": "warn", "d": "pass", "e": "not-testable"}
    assert noticed(report, reference) == [
        "n/a MUST b (reference: pass)",
        "fail ROBUSTNESS d (reference: pass)",
    ]


def test_a_failed_baseline_names_each_failed_case_with_its_message() -> None:
    from tools.mutation.kill import failures

    report = {
        "cases": [
            {"id": "a", "outcome": "pass", "message": ""},
            {"id": "b", "outcome": "fail", "message": "status said running " + "x" * 300},
            {"id": "c", "outcome": "error", "message": "harness crashed"},
            {"id": "d", "outcome": "warn", "message": "a SHOULD"},
        ]
    }
    found = failures(report)
    assert [line.split(":")[0] for line in found] == ["fail b", "error c"]
    assert found[0].startswith("fail b: status said running") and len(found[0]) < 200
    assert failures({}) == []


def test_the_report_shows_a_survivors_output() -> None:
    survivor = Mutant(
        "m.py:3:0:AddNot:0", "m.py", 3, "AddNot", "survived", "-a\n+b", "exit 0: CONFORMANT\n  warn SHOULD c"
    )
    text = markdown("acp", [survivor], {}, {})
    assert "```diff\n-a\n+b\n```" in text and "  warn SHOULD c" in text


def test_the_ci_sample_names_mutants_of_the_campaigns() -> None:
    from tools.mutation.sample import load_sample

    sample = load_sample()
    assert sample, "mutation/ci-sample.toml is empty"
    for sampled in sample:
        campaign = CAMPAIGNS[sampled.target]
        modules = tomllib.loads(campaign.config.read_text())["cosmic-ray"]["module-path"]
        assert sampled.module in modules, sampled.id
        # Where the code moved since the campaign, the id it measured is the same mutation of the
        # same module (whether it is the same code at its new place is the e2e sample's to show:
        # it applies each one with Cosmic Ray's mutator, and a mutant that is not there is stale).
        module, _, _, operator, _ = sampled.campaign_id.split(":")
        assert (module, "core/" + operator) == (sampled.module, sampled.operator), sampled.id
        if sampled.expected == "caught":
            # The triage files are re-keyed to the references as they are (tools.mutation.rekey).
            verdict = load_triage(campaign.triage, set(CASES)).get(sampled.id)
            assert verdict is not None and verdict.kind == "caught", (
                f"{sampled.id} (measured as {sampled.campaign_id}) is not triaged as caught"
            )


def test_a_sample_entry_that_no_longer_matches_the_source_is_stale() -> None:
    pytest.importorskip("cosmic_ray", reason="Cosmic Ray comes with the [mutation] extra")
    from tools.mutation.sample import Sampled, StaleSample, mutate

    source = "def f(a, b):\n    return a < b\n"
    assert "a <= b" in mutate(
        source, Sampled("m.py:2:13:ReplaceComparisonOperator_Lt_LtE:0", "acp", "killed")
    )
    with pytest.raises(StaleSample, match="at \\(2, 13\\), and no occurrence is at \\(3, 13\\)"):
        mutate(source, Sampled("m.py:3:13:ReplaceComparisonOperator_Lt_LtE:0", "acp", "killed"))
    # An edit above renumbered the occurrences: the mutant is the one at its position.
    edited = "def g(x):\n    return x < 1\n\n\ndef f(a, b):\n    return a < b\n"
    assert "a <= b" in mutate(
        edited, Sampled("m.py:6:13:ReplaceComparisonOperator_Lt_LtE:0", "acp", "killed")
    )
    assert "x < 1" in mutate(edited, Sampled("m.py:6:13:ReplaceComparisonOperator_Lt_LtE:0", "acp", "killed"))
    with pytest.raises(StaleSample, match="gone"):
        mutate(source, Sampled("m.py:4:13:ReplaceComparisonOperator_Lt_LtE:5", "acp", "killed"))
