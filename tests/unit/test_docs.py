"""The site's reference pages are what the code declares now (tools/docs.py generates them): a
change to an option, a case, a revision file, the report schema or action.yml that the committed
pages do not show fails here, saying how to regenerate them."""

from __future__ import annotations

import pytest

from tools import docs

# The options and cases of a target installed beside the suite show in what the pages would be:
# the committed pages describe the suite's own targets.
PAGES_OF_INSTALLED_TARGETS = ("cli.md", "cases.md")


@pytest.mark.parametrize("name", sorted(docs.PAGES))
def test_the_generated_reference_page_is_up_to_date(name: str) -> None:
    from conformance.targets import TARGETS
    from tests import own

    others = sorted({t.name for t in TARGETS} - set(own.TARGET_NAMES))
    if name in PAGES_OF_INSTALLED_TARGETS and others:
        pytest.skip(f"targets beside the suite's own are installed: {others}")
    committed = docs.REFERENCE / name
    assert committed.is_file(), f"docs/reference/{name} is missing: run {docs.REGENERATE}"
    assert committed.read_text() == docs.PAGES[name](), (
        f"docs/reference/{name} is out of date: run {docs.REGENERATE} and commit the result"
    )


def test_every_generated_page_is_in_the_navigation() -> None:
    from tests.conftest import ROOT

    nav = (ROOT / "mkdocs.yml").read_text()
    assert [n for n in docs.PAGES if f"reference/{n}" not in nav] == []
