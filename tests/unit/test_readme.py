"""The facts of the README and the documentation site that drift: case counts per target, the ACP
case table, links that must resolve inside the repository (a clone has nothing outside it), and
every command named and run by a test."""

from __future__ import annotations

import re
import tomllib

import conformance.cases as cases

from conformance.core.registry import CASES
from tests import readme
from tests.conftest import ROOT

cases.load_all()

README = (ROOT / "README.md").read_text()
PAGES = {path: path.read_text() for path in readme.pages()}
# Every page at once, for the facts that may sit on any of them.
ALL = "\n".join(PAGES.values())


def page(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def count(target: str) -> int:
    return sum(1 for c in CASES.values() if c.target == target)


def test_case_counts_match_the_registry() -> None:
    for name, target in (("reference/mcp-checks.md", "mcp"), ("reference/http-checks.md", "http")):
        found = re.findall(r"What is checked \((\d+) cases\)", page(name))
        assert found == [str(count(target))], f"{name} says {found}, the suite has {count(target)}"
    for name, target in (("tutorials/mcp-heartbeat.md", "mcp"), ("tutorials/http-status.md", "http")):
        found = re.findall(r"What each of the (\d+) cases checks", page(name))
        assert found == [str(count(target))], f"{name} says {found}, the suite has {count(target)}"


def test_every_acp_case_is_in_the_cases_table() -> None:
    table = page("reference/acp-cases.md")
    listed = set(re.findall(r"`([a-z0-9.-]+\.[a-z0-9.-]+)`", table))
    # `status.params.missing-session-id` / `non-string-session-id` / … share one row
    listed |= {f"status.params.{m}" for m in re.findall(r"/ `([a-z-]+)`", table)}
    missing = sorted(c for c, case in CASES.items() if case.target == "acp" and c not in listed)
    assert missing == []


def test_links_resolve_inside_the_repository() -> None:
    """The README's links (the site's are checked by mkdocs build --strict, tests/e2e/test_docs.py)."""
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        assert ".." not in target.split("/"), f"{target}: outside the repository (missing from a clone)"
        assert (ROOT / target).exists(), f"{target}: no such file in the repository"


def test_the_readme_stays_short() -> None:
    lines = README.count("\n")
    assert lines <= 200, f"README.md has {lines} lines: move the detail into a page of docs/"


def test_every_block_of_commands_has_a_test_name() -> None:
    """Each sh block and each CI block with a run: line carries <!-- test: NAME --> right above it;
    names are unique across the README and the site (a test's id is the name)."""
    assert readme.untagged_blocks() == [], "put <!-- test: NAME --> on the line above each of these blocks"
    names = [c.name for c in readme.commands()]
    assert sorted(n for n in set(names) if names.count(n) > 1) == [], "two blocks share a test name"


def test_every_readme_command_is_run_by_a_test() -> None:
    """Both ways: each command of the README's sh and CI blocks is claimed by the test that runs
    it (tests/readme.py), and no claim names a command the README no longer has."""
    import tests.e2e.test_readme_commands  # noqa: F401 - registers the commands it runs

    written = [c.text for c in readme.commands()]
    assert len(written) == len(set(written)), "a command is written twice: one test runs it"
    unclaimed = [f"{c.page} [{c.name}]: {c.text}" for c in readme.commands() if c.text not in readme.CLAIMS]
    assert unclaimed == [], "add a test that runs each, and claim it in tests/readme.py"
    stale = [text for text in readme.CLAIMS if text not in written]
    assert stale == [], "the README and the site no longer say these"
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
            joined = re.sub(r"\s*\n\s*", "", source)
            spellings = (f"readme.command({text!r})", f'readme.command("{text}")')  # as ruff quotes it
            assert any(spelling in joined for spelling in spellings), f"{path} does not run: {text}"


def test_no_command_hides_in_an_untagged_block() -> None:
    """Blocks without a language are output; a command there would escape the test above."""
    assert readme.unfenced_commands() == []


def test_the_baseline_example_names_a_case() -> None:
    text = page("how-to/ci.md").split("```toml\n", 1)[1].split("```", 1)[0]
    for entry in tomllib.loads(text)["expected-failures"]:
        assert entry["id"] in CASES and entry["reason"]


# -- numbers and names that drift as the suite grows ---------------------------------------------


def selected_by_keyword(expression: str, target: str = "acp") -> list[str]:
    """The cases `-k EXPRESSION` selects, as pytest matches it: a word matches when it is part of
    the name of the item (the case id) or of a node above it (its module's file, its target's
    folder, cases/) or of one of its marks (its level, "conformance")."""
    from _pytest.mark.expression import Expression

    def matcher(names: list[str]):  # pytest's ExpressionMatcher: a word, then keywords it ignores
        def matches(word: str, /, **_: object) -> bool:
            return any(word.lower() in n.lower() for n in names)

        return matches

    compiled = Expression.compile(expression)
    chosen = []
    for case in (c for c in CASES.values() if c.target == target):
        names = [case.id, case.module.rsplit(".", 1)[-1] + ".py", target, "cases", "conformance"]
        names += [case.level.value, case.level.marker]
        if compiled.evaluate(matcher(names)):
            chosen.append(case.id)
    return chosen


def test_the_partial_example_counts_what_the_suite_selects() -> None:
    (found,) = re.findall(r"PARTIAL: (\d+) of (\d+) cases selected \(-k '([^']+)'; (\d+) deselected\)", ALL)
    selected, total, keyword, deselected = found
    chosen, every = len(selected_by_keyword(keyword)), count("acp")
    expected = f"PARTIAL: {chosen} of {every} cases selected (-k '{keyword}'; {every - chosen} deselected)"
    assert (int(selected), int(total), int(deselected)) == (chosen, every, every - chosen), (
        f"the README's example says the numbers of another suite; it should say: {expected}"
    )


def test_the_traceability_counts_are_the_revision_files() -> None:
    from conformance.core.traceability import load_revision

    text = " ".join(page("explanation/revisions.md").split())
    found = re.search(
        r"Today: RFD (\d+) entries, (\d+) checked by cases and (\d+) excluded .*?SDK schema (\d+) entries "
        r"\(.*?\), (\d+) checked and (\d+) excluded",
        text,
    )
    assert found, (
        "explanation/revisions.md no longer gives the traceability counts where this test reads them"
    )

    def counts(name: str) -> tuple[int, int, int]:
        rev = load_revision(name)
        return (
            len(rev.requirements),
            sum(1 for r in rev.requirements if r.cases),
            sum(1 for r in rev.requirements if r.excluded),
        )

    said = tuple(int(n) for n in found.groups())
    actual = counts("rfd-2026-10-26") + counts("acp-unstable-2026-11")
    assert said == actual, f"the README says {said}; the revision files have {actual}"


def test_the_badge_example_counts_the_references_cases() -> None:
    from tests.targets.acp.test_broken_agents import BASELINE

    found = re.findall(r"session/status: conformant · rfd-2026-10-26 · (\d+)/(\d+)", ALL)
    checked = [o for o in BASELINE.values() if o not in ("unimplemented", "n/a", "not-testable")]
    actual = (sum(o == "pass" for o in checked), len(checked))
    assert found and all(tuple(int(n) for n in one) == actual for one in found), (
        f"the reference's badge over stdio reads {actual[0]}/{actual[1]}"
    )


# Options of other programs the README names: pytest's, pip's, the stand-in agents' and the
# repository's tools (tools/mutation, bench/).
OTHER_PROGRAMS = {
    "--pyargs",  # pytest
    "--toy-cmd",  # the toy target's (tests/toy_target/), installed only where its test installs it
    "--toy-url",
    "--forgetful",  # its reference's broken variant
    "--listen",  # the reference agent and the README's stand-in my-agent
    "--listen-http",
    "--acp",
    "--acp-v2",
    "--http",
    "--port",  # cosmic-ray http-worker
    "--workers",  # tools/mutation (and the campaign)
    "--sample",
    "--worker-url",
    "--rescore",
    "--recheck",
    "--seeds",  # bench/
    "--seconds",
    "--campaign-seconds",
    "--calls",
    "--rounds",
    "--help",
    "--session-request-limit",  # the ACP reference agent's machinery (conformance/reference/acp/memory.py)
    "--surface",  # the ACP reference agent: modes, a config option, _session/rename
    "--serialise",
    "--request-delay",
    "--storage-delay",
    "--max-length",
    "--session-cap",  # the MCP reference server's machinery (conformance/reference/mcp/store.py)
    "--session-ttl",
    "--request-window",
    "--io-delay",
    "--modern-only",
    "--stateless-http",
    # The HTTP reference service's machinery (conformance/reference/http/machinery.py; --request-limit
    # is the MCP reference server's too).
    "--request-limit",
    "--max-id-length",
    "--max-concurrent",
    "--store",
    "--keep",  # tests/servers/agentscope_server.py
    "--agnet",  # Troubleshooting: the typo and what the command line says of it
    "--strict",  # mkdocs build --strict (tests/e2e/test_docs.py), beside the suite's own --strict
    "--dev-addr",
    "--prefix",  # npm install --prefix (the fleet's install cache)
}


def test_every_option_the_readme_names_is_one_the_command_line_has() -> None:
    """One name per option: each `--option` of the README is the command line's (or a subcommand's)
    own spelling, so the README and --help cannot disagree (`--strict`, not another name)."""
    import argparse

    from conformance.campaign.command import build_parser as campaign_parser
    from conformance.cli import build_parser
    from conformance.replay.options import add_overrides

    known = set(OTHER_PROGRAMS)
    parsers = [build_parser(), campaign_parser()]
    replay = argparse.ArgumentParser()
    add_overrides(replay)
    replay.add_argument("--pipe", action="store_true")  # reproduce's own
    parsers.append(replay)
    from tools.docs import subcommand_parsers

    for parser in [*parsers, *subcommand_parsers()]:
        known |= {o for action in parser._actions for o in action.option_strings}
    known |= {"--markdown", "-o", "--output", "--link-base"}  # matrix's (its own small parser)
    # The generated reference is the parser itself; pytest's own options appear in it (--pyargs).
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", ALL))
    assert sorted(named - known) == [], "the README or the site names options the command line does not have"
