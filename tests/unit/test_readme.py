"""The README's facts that drift: case counts per target, the ACP case table, and links that
must resolve inside the repository (a clone has no ../shared/spec)."""

from __future__ import annotations

import re

from conformance import cases
from conformance.core.registry import CASES
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
