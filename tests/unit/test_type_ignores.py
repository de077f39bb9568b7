"""Every type-checker suppression in the folders pyright checks names the error it silences and says
why, on its own line: `# type: ignore[code]  # why` (pyright, a step of .ci/run: python -m tools.typecheck)."""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from pathlib import Path

from tests.conftest import ROOT

CHECKED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyright"]["include"]
SUPPRESSION = re.compile(r"#\s*(?:type|pyright):\s*ignore\b(?P<rest>.*)")
EXPLAINED = re.compile(r"\[[^\]\s]+\]\s+#\s*\S")  # [code], then a comment of its own: the reason


def suppressions(path: Path) -> list[tuple[int, str]]:
    """(line, comment) of each suppression comment in a file (comments only: never string contents)."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type == tokenize.COMMENT and SUPPRESSION.search(token.string):
            found.append((token.start[0], token.string))
    return found


def unexplained() -> dict[str, list[str]]:
    bare: dict[str, list[str]] = {}
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, comment in suppressions(path):
                match = SUPPRESSION.search(comment)
                assert match is not None
                if not EXPLAINED.match(match.group("rest").lstrip()):
                    bare.setdefault(path.relative_to(ROOT).as_posix(), []).append(f"{line}: {comment}")
    return bare


def test_the_pattern_reads_a_suppression_as_meant() -> None:
    def explained(comment: str) -> bool:
        match = SUPPRESSION.search(comment)
        return match is not None and EXPLAINED.match(match.group("rest").lstrip()) is not None

    assert explained("# type: ignore[arg-type]  # None until _connect")
    assert explained("# pyright: ignore[reportArgumentType]  # None until _connect")
    assert not explained("# type: ignore[arg-type]")  # no reason
    assert not explained("# type: ignore  # a reason, but no code")
    assert not explained("# type: ignore[arg-type] a reason outside a comment of its own")


def test_every_suppression_names_its_error_and_why() -> None:
    assert unexplained() == {}, "write `# type: ignore[code]  # why` (or remove the suppression)"
