"""The pytest plugin: cases are items named by id, selectable with -k and -m, verdicts as exit codes."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT, revision_kept

CASES_DIR = ROOT / "cases"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The plugin in this process (pytester's in-process run): a conformance run inside the
    project's own test run, as a user's conftest would have it."""
    with revision_kept():
        return pytester.runpytest_inprocess(
            str(CASES_DIR), "-p", "no:cacheprovider", "--report-dir", str(pytester.path / "r"), *args
        )


def test_case_ids_are_node_ids(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--collect-only", "-q")
    assert "cases/acp/unknown_session.py::status.error.unknown-session-code" in result.stdout.str()
    assert "cases/acp/capability.py::capability.status.object" in result.stdout.str()


def test_keyword_selects_cases(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-k", "unknown-session", "-v")
    out = result.stdout.str()
    assert "status.error.unknown-session-code PASS" in out
    assert "status.active.after-new" not in out
    assert result.ret == 0


def test_level_markers_select_cases(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-m", "should", "-v")
    out = result.stdout.str()
    assert "status.cheap.latency PASS" in out
    assert "status.error.unknown-session-message PASS" in out
    assert "status.active.after-new" not in out


def test_keyword_selecting_nothing_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-k", "no-such-case")
    assert result.ret == 2
    assert "no conformance case selected" in result.stdout.str() + result.stderr.str()


def test_strict_turns_warnings_into_failures(pytester: pytest.Pytester) -> None:
    agent = f"{sys.executable} {ROOT / 'tests' / 'agents' / 'acp' / 'wrong_error_message.py'}"
    lenient = run(pytester, "--agent", agent, "-k", "unknown-session-message", "-v")
    assert lenient.ret == 0 and "WARN" in lenient.stdout.str()
    strict = run(pytester, "--agent", agent, "-k", "unknown-session-message", "-v", "--strict-should")
    assert strict.ret == 1 and "FAIL" in strict.stdout.str()


def test_project_tests_are_untouched_by_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "session/status conformance" not in result.stdout.str()


def test_levels_select_in_capitals_too(pytester: pytest.Pytester) -> None:
    """Every output prints levels in capitals; -m MUST selects as -m must does."""
    result = run(pytester, "-m", "MUST", "-k", "status.error", "-v")
    out = result.stdout.str()
    assert "status.error.unknown-session-code PASS" in out
    assert "status.error.unknown-session-message" not in out  # a SHOULD
    assert result.ret == 0


def test_pyargs_without_an_agent_certifies_the_reference(pytester: pytest.Pytester) -> None:
    """pytest --pyargs conformance.cases -k …: the installed cases, the embedded reference agent,
    and a partial run (no certificate), as with the command line."""
    with revision_kept():
        result = pytester.runpytest_inprocess(
            "--pyargs",
            "conformance.cases",
            "-k",
            "status.error.unknown-session-code",
            "-p",
            "no:cacheprovider",
            "--report-dir",
            str(pytester.path / "r"),
        )
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert "PARTIAL: 1 of" in result.stdout.str()


OWN_CASE = '''
from conformance.core.registry import Level, SpecRef, case


@case("own.flat.folder", level=Level.MAY, spec=SpecRef("own", "Own", "An own sentence."), needs=("heartbeat",))
async def own_flat_folder(target, details) -> None:
    """A case of the user's own, in a flat cases/ folder."""
'''


def test_a_flat_case_folder_of_ones_own_holds_cases_of_the_runs_target(pytester: pytest.Pytester) -> None:
    """cases/x.py beside no target folder: its cases are the target's the run certifies (a folder
    cases/<target>/ names its own), never a target chosen for it."""
    from conformance.core.registry import CASES

    own = pytester.mkdir("cases")
    (own / "own_flat.py").write_text(OWN_CASE)
    with revision_kept():
        result = pytester.runpytest_inprocess(
            str(own), "--target", "mcp", "--collect-only", "-q", "-p", "no:cacheprovider"
        )
    assert "own_flat.py::own.flat.folder" in result.stdout.str(), result.stdout.str()[-2000:]
    assert CASES.pop("own.flat.folder").target == "mcp"


def test_slow_cases_are_marked(pytester: pytest.Pytester) -> None:
    """-m "not slow" leaves out exactly the cases that declare they take seconds."""
    from conformance.core.registry import CASES

    result = run(pytester, "--collect-only", "-q", "-m", "slow")
    slow = {c for c in CASES if CASES[c].slow and CASES[c].target == "acp"}  # loaded by the run
    collected = {line.split("::")[-1] for line in result.stdout.lines if "::" in line}
    assert collected == slow and "sequence.status.model-based" in collected
