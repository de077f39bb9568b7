"""CI's mutation sample: `python -m tools.mutation.sample` (and tests/e2e/test_mutation_sample.py).

mutation/ci-sample.toml names a fixed handful of mutants a full campaign measured, each with what
the suite must keep doing to it: `killed` (a case noticed it) or `caught` (it survived once, and
the case its triage entry names now kills it). A mutant is named where it is in the references as
they are (`id`), and, where an edit since moved it, where the campaign measured it (`campaign`: the
id its report uses; the triage files are re-keyed to the references as they are, by
tools.mutation.rekey, so a triage entry names the mutant by `id`). Each is applied with Cosmic Ray's own mutator to a
copy of the references, never to the checkout, and judged by the campaign's test command
(tools.mutation.kill). A sampled mutant that survives is a loss of the suite's sensitivity.
"""

from __future__ import annotations

import difflib
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.mutation.targets import MUTATION, ROOT

SAMPLE = MUTATION / "ci-sample.toml"
EXPECTED = ("killed", "caught")


class StaleSample(ValueError):
    """The sample names a mutant the reference no longer has where the id says."""


@dataclass(frozen=True)
class Sampled:
    id: str  # where the mutant is in the references now: what is applied
    target: str
    expected: str
    campaign: str = ""  # its id in the campaign that measured it, where the code moved since

    @property
    def campaign_id(self) -> str:
        """The id the campaign's report names this mutant by."""
        return self.campaign or self.id

    @property
    def module(self) -> str:
        return self.id.split(":")[0]

    @property
    def position(self) -> tuple[int, int]:
        _, line, column, _, _ = self.id.split(":")
        return int(line), int(column)

    @property
    def operator(self) -> str:
        return "core/" + self.id.split(":")[3]

    @property
    def occurrence(self) -> int:
        return int(self.id.split(":")[4])


def load_sample(path: Path = SAMPLE) -> list[Sampled]:
    data = tomllib.loads(path.read_text())
    found = []
    for number, entry in enumerate(data.get("mutant", []), 1):
        mutant, target, expected = entry.get("id", ""), entry.get("target"), entry.get("expected")
        campaign = entry.get("campaign", "")
        if len(str(mutant).split(":")) != 5 or expected not in EXPECTED or not target:
            raise ValueError(
                f"{path.name}, mutant {number}: needs id (module:line:column:operator:n), target, expected"
            )
        if campaign and len(str(campaign).split(":")) != 5:
            raise ValueError(
                f"{path.name}, mutant {number}: campaign is an id (module:line:column:operator:n)"
            )
        found.append(Sampled(mutant, target, expected, campaign))
    return found


def mutate(source: str, sampled: Sampled) -> str:
    """The source with the sampled mutation applied, as Cosmic Ray applies it."""
    from cosmic_ray.ast import get_ast
    from cosmic_ray.mutating import MutationVisitor
    from cosmic_ray.plugins import get_operator

    class Locating(MutationVisitor):
        at: tuple[int, int] | None = None

        def visit(self, node: Any) -> Any:
            for index, (start, _end) in enumerate(self.operator.mutation_positions(node)):
                if self._count == self._occurrence:
                    self._mutation_applied = True
                    self.at = tuple(start)
                    node = self.operator.mutate(node, index)
                self._count += 1
            return node

    visitor = Locating(sampled.occurrence, get_operator(sampled.operator)())
    mutated = visitor.walk(get_ast(source))
    if visitor.mutation_applied and visitor.at == sampled.position and mutated is not None:
        return mutated.get_code()
    # An edit elsewhere in the file renumbers the occurrences after it (a new `if` adds an AddNot):
    # the mutant is the operator's occurrence at the same position, if there is one.
    for occurrence in range(sampled.occurrence + 8):
        moved = Locating(occurrence, get_operator(sampled.operator)())
        changed = moved.walk(get_ast(source))
        if moved.mutation_applied and moved.at == sampled.position and changed is not None:
            return changed.get_code()
    raise StaleSample(
        f"{sampled.id}: occurrence {sampled.occurrence} of {sampled.operator} is "
        f"{'gone' if visitor.at is None else f'at {visitor.at}'}, and no occurrence is at {sampled.position}; "
        "rerun the campaign and pick the sample again"
    )


def mutated_copy(sampled: Sampled, folder: Path) -> tuple[Path, str]:
    """A copy of the checkout's references with the mutant applied: (its root, the diff)."""
    root = folder / "checkout"
    shutil.copytree(ROOT / "conformance", root / "conformance", ignore=shutil.ignore_patterns("__pycache__"))
    path = root / sampled.module
    original = path.read_text()
    changed = mutate(original, sampled)
    path.write_text(changed)
    diff = "".join(
        difflib.unified_diff(
            original.splitlines(True), changed.splitlines(True), sampled.module, sampled.module
        )
    )
    return root, diff


def fate(sampled: Sampled, say=print) -> str:
    """ "killed" or "survived", judged by the campaign's test command on a mutated copy."""
    from tools.mutation.kill import judge

    with tempfile.TemporaryDirectory(prefix="mutation-sample-") as folder:
        root, diff = mutated_copy(sampled, Path(folder))
        say(diff)
        return "killed" if judge(sampled.target, root, say) else "survived"


def main() -> int:
    lost = []
    for sampled in load_sample():
        got = fate(sampled)
        print(f"{sampled.id}: {got} (expected: {sampled.expected})", flush=True)
        if got != "killed":
            lost.append(sampled.id)
    print(f"{len(lost)} sampled mutant(s) survived" if lost else "every sampled mutant was killed")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
