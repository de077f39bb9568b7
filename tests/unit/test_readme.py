"""The README's facts that drift: case counts per target, the ACP case table, and links that
must resolve inside the repository (a clone has no ../shared/spec)."""

from __future__ import annotations

import re
import tomllib

from conformance import cases
from conformance.core.registry import CASES
from tests import readme
from tests.conftest import ROOT

cases.load_all()

README = (ROOT / "README.md").read_text()


def section(title_start: str) -> str:
    start = README.index(f"\n## {title_start}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def count(target: str) -> int:
    return sum(1 for c in CASES.values() if c.target == target)


def test_case_counts_match_the_registry() -> None:
    for title, target in (("Certify an MCP server", "mcp"), ("Certify an HTTP session-status", "http")):
        found = re.findall(r"What is checked \((\d+) cases\)", section(title))
        assert found == [str(count(target))], (
            f"{title}: the README says {found}, the suite has {count(target)}"
        )


def test_every_acp_case_is_in_the_cases_table() -> None:
    table = section("The cases")
    listed = set(re.findall(r"`([a-z0-9.-]+\.[a-z0-9.-]+)`", table))
    # `status.params.missing-session-id` / `non-string-session-id` / … share one row
    listed |= {f"status.params.{m}" for m in re.findall(r"/ `([a-z-]+)`", table)}
    missing = sorted(c for c, case in CASES.items() if case.target == "acp" and c not in listed)
    assert missing == []


def test_links_resolve_inside_the_repository() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        assert ".." not in target.split("/"), f"{target}: outside the repository (missing from a clone)"
        assert (ROOT / target).exists(), f"{target}: no such file in the repository"


def test_every_readme_command_is_run_by_a_test() -> None:
    """Both ways: each command of the README's sh and CI blocks is claimed by the test that runs
    it (tests/readme.py), and no claim names a command the README no longer has."""
    import tests.e2e.test_readme_commands  # noqa: F401 - registers the commands it runs

    written = [c.text for c in readme.commands()]
    assert len(written) == len(set(written)), "a command is written twice: one test runs it"
    unclaimed = [f"README line {c.line}: {c.text}" for c in readme.commands() if c.text not in readme.CLAIMS]
    assert unclaimed == [], "add a test that runs each, and claim it in tests/readme.py"
    stale = [text for text in readme.CLAIMS if text not in written]
    assert stale == [], "the README no longer says these"
    for text, path in readme.CLAIMS.items():
        if path == readme.RUNNER:
            continue  # registered by that module's own readme.claim(...)
        source = (ROOT / path).read_text()
        if path == ".ci/run":  # the test command, in .ci/run's own words (quiet, no bytecode up front)
            assert (
                ".venv/bin/python -m pytest -n auto" in source
                and "-e '.[test,agentscope,mutation,campaign]'" in source
            )
        else:
            assert f"readme.command({text!r})" in re.sub(r"\s*\n\s*", "", source), (
                f"{path} does not run: {text}"
            )


def test_no_command_hides_in_an_untagged_block() -> None:
    """Blocks without a language are output; a command there would escape the test above."""
    assert readme.unfenced_commands() == []


def test_the_baseline_example_names_a_case() -> None:
    text = README.split("```toml\n", 1)[1].split("```", 1)[0]
    for entry in tomllib.loads(text)["expected-failures"]:
        assert entry["id"] in CASES and entry["reason"]
