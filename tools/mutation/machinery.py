"""Which mutants are the machinery's (without Cosmic Ray, so it is tested anywhere).

A features-on campaign mutates the references' switchable machinery and the code that calls it,
and runs the suite with the machinery on; the campaign of the same target with the machinery off
mutates the rest. Its config says what the machinery is: whole modules (those in its module-path
that no entry names), and, in modules that also hold other code, the definitions that are the
machinery's (``module.py:definition``, as Cosmic Ray names a mutant's innermost definition) and
the lines that call it (``module.py:regex``, searched in the mutant's source line). A pattern
names the call, not the line number, so the selection follows the code when lines move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class SelectionError(ValueError):
    """An entry that is not ``module.py:definition`` or ``module.py:regex``."""


@dataclass(frozen=True)
class Machinery:
    definitions: frozenset[str]  # "module.py:definition"
    lines: tuple[tuple[str, re.Pattern[str]], ...]  # (module.py, pattern)

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> Machinery:
        definitions, lines = [], []
        for entry in section.get("definitions", []):
            module, _, definition = str(entry).partition(":")
            if not module.endswith(".py") or not definition:
                raise SelectionError(f"definition {entry!r}: not module.py:definition")
            definitions.append(f"{module}:{definition}")
        for entry in section.get("lines", []):
            module, _, pattern = str(entry).partition(":")
            if not module.endswith(".py") or not pattern:
                raise SelectionError(f"line {entry!r}: not module.py:regex")
            try:
                lines.append((module, re.compile(pattern)))
            except re.error as exc:
                raise SelectionError(f"line {entry!r}: {exc}") from exc
        return cls(frozenset(definitions), tuple(lines))

    def modules(self) -> set[str]:
        """The modules of which only a part is machinery."""
        return {d.partition(":")[0] for d in self.definitions} | {m for m, _ in self.lines}

    def owns(self, module_path: str, definition: str | None, line: str) -> bool | None:
        """Whether the mutant is the machinery's; None in a module of which no part is named (in
        a features-on campaign, a module that is machinery whole; elsewhere, none of it)."""
        module = Path(module_path).name
        if module not in self.modules():
            return None
        return f"{module}:{definition}" in self.definitions or any(
            name == module and pattern.search(line) for name, pattern in self.lines
        )


def skipped(
    machinery: Machinery, owned_elsewhere: bool, module_path: str, definition: str | None, line: str
) -> bool:
    """Whether a campaign skips the mutant. The features-on campaign (``owned_elsewhere`` False)
    keeps the machinery's mutants, and whole modules no entry names; the machinery-off campaign
    (``owned_elsewhere`` True: the selection is the features-on campaign's) skips exactly those
    of its mutants the features-on campaign owns."""
    owned = machinery.owns(module_path, definition, line)
    return owned is True if owned_elsewhere else owned is False
