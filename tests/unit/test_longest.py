"""tests/longest.txt, the order the long tests start in, names tests that exist: a renamed test
would silently start late and stretch the run's end."""

from __future__ import annotations

import re

from tests import readme
from tests.conftest import ROOT, longest_tests


def test_every_listed_test_exists() -> None:
    missing = []
    for node in longest_tests():
        path, _, name = node.partition("::")
        function = re.sub(r"\[.*\]$", "", name)
        file = ROOT / path
        if not file.is_file() or not re.search(
            rf"^(async )?def {re.escape(function)}\(", file.read_text(), re.M
        ):
            missing.append(node)
    assert not missing, f"tests/longest.txt names tests that no longer exist: {missing}"


def test_every_listed_documented_command_has_its_name() -> None:
    """A documented command's test goes by the name its page gives its block (tests/readme.py)."""
    names = {command.name for command in readme.commands()}
    gone = [
        node
        for node in longest_tests()
        if (found := re.search(r"::test_the_readme_command_keeps_its_promise\[(.*)\]$", node))
        and found.group(1) not in names
    ]
    assert not gone, f"tests/longest.txt names documented commands no page names so now: {gone}"


def test_the_list_is_longest_first() -> None:
    lines = (ROOT / "tests" / "longest.txt").read_text().splitlines()
    seconds = [float(line.split()[0]) for line in lines if line.strip() and not line.startswith("#")]
    assert seconds == sorted(seconds, reverse=True) and len(seconds) >= 10
