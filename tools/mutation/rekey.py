"""`python -m tools.mutation.rekey CAMPAIGN --from COMMIT [--write]`: a triage file's ids, moved to
the references as they are now.

A mutant is named module:line:column:operator:occurrence, so an edit above it renames it, and its
triage entry then names nothing (or, by chance, another mutant). This finds each triaged mutant of
the source at COMMIT (the one its campaign measured) in the source as it is now: its line by a
diff of the two sources (or, for a line that moved, the one line now with the same text), its
column shifted by the change of indentation, and its occurrence counted again (the operator's
mutation positions in Cosmic Ray's order, as tools/mutation/sample.py applies them). The mutant
found must change its line the same way as the old one did. An entry whose line is gone, or whose
mutant changes its line otherwise now, is kept under an id that names no mutant
("gone@COMMIT:..."), with a comment that says so.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, replace

from tools.mutation.targets import CAMPAIGNS, MUTATION, ROOT

GONE = "gone@"


@dataclass(frozen=True)
class Moved:
    old: str
    new: str | None  # None: gone
    why: str = ""  # for a gone one: what became of its line
    commit: str = ""  # the source the old id was read in


def parse(mutant: str) -> tuple[str, int, int, str, int]:
    module, line, column, operator, occurrence = mutant.split(":")
    return module, int(line), int(column), operator, int(occurrence)


def positions(source: str, operator: str) -> list[tuple[int, int]]:
    """Where each occurrence of the operator is, in Cosmic Ray's order (its init and its mutator
    count occurrences the same way)."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.plugins import get_operator

    applied = get_operator(f"core/{operator}")()
    return [
        tuple(start) for node in ast_nodes(get_ast(source)) for start, _ in applied.mutation_positions(node)
    ]


def edit(source: str, operator: str, occurrence: int) -> tuple[str, ...]:
    """What the mutant does to the source: for one line changed, the text it takes out of it and
    puts in, in order; else the lines it takes out and puts in."""
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    changed = mutate_code(source, get_operator(f"core/{operator}")(), occurrence) or source
    lines = [
        line
        for line in difflib.unified_diff(source.splitlines(), changed.splitlines(), n=0, lineterm="")
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    if len(lines) == 2 and lines[0][0] == "-" and lines[1][0] == "+":
        before, after = lines[0][1:], lines[1][1:]
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        return tuple(
            f"{before[i1:i2]}->{after[j1:j2]}"
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"
        )
    return tuple(line[0] + line[1:].strip() for line in lines)


# A line the edit changed is still the mutant's line when it is this alike (difflib's ratio).
ALIKE = 0.6


def line_map(old: list[str], new: list[str]) -> dict[int, tuple[int, bool]]:
    """Old line number -> (new line number, whether the text is the same), 1-based: the lines a diff
    keeps, and in a block it replaced, each old line's most alike new line, if alike enough."""
    found = {}
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                found[i1 + k + 1] = (j1 + k + 1, True)
        elif tag == "replace":
            for i in range(i1, i2):
                ratio, j = max(
                    (difflib.SequenceMatcher(None, old[i].strip(), new[j].strip()).ratio(), j)
                    for j in range(j1, j2)
                )
                if ratio >= ALIKE:
                    found[i + 1] = (j + 1, False)
    return found


def indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def rekey(mutant: str, old_source: str, new_source: str, commit: str) -> Moved:
    module, line, column, operator, occurrence = parse(mutant)
    old_lines, new_lines = old_source.splitlines(), new_source.splitlines()
    old_positions = positions(old_source, operator)
    if occurrence >= len(old_positions) or old_positions[occurrence] != (line, column):
        if (line, column) not in old_positions:
            return Moved(mutant, None, f"no {operator} at {line}:{column} in the source at {commit}")
        occurrence = old_positions.index((line, column))
    # An operator with several mutations of one node (NumberReplacer: +1 and -1) lists its
    # position once for each: the mutant is the same one of them at the new position.
    nth = occurrence - old_positions.index((line, column))
    text = old_lines[line - 1]
    new_line, _ = line_map(old_lines, new_lines).get(line, (None, False))
    if new_line is None:
        same = [n + 1 for n, t in enumerate(new_lines) if t.strip() == text.strip()]
        if len(same) != 1:
            said = "is no longer in the reference" if not same else f"is now on {len(same)} lines"
            return Moved(mutant, None, f"its line ({text.strip()[:80]!r}) {said}")
        new_line = same[0]
    new_text = new_lines[new_line - 1]
    new_column = column + indent(new_text) - indent(text)
    if new_text.strip() != text.strip():  # an alike line: the mutated text is found by its place in it
        matcher = difflib.SequenceMatcher(None, text, new_text, autojunk=False)
        block = next((b for b in matcher.get_matching_blocks() if b.a <= column < b.a + b.size), None)
        if block is None:
            return Moved(mutant, None, f"its line changed at the mutated text ({new_text.strip()[:80]!r})")
        new_column = column - block.a + block.b
    new_positions = positions(new_source, operator)
    if (new_line, new_column) not in new_positions:
        return Moved(mutant, None, f"no {operator} at {new_line}:{new_column} now")
    new_occurrence = new_positions.index((new_line, new_column)) + nth
    if edit(old_source, operator, occurrence) != edit(new_source, operator, new_occurrence):
        return Moved(
            mutant, None, f"the mutant at its place now makes another edit ({new_text.strip()[:80]!r})"
        )
    return Moved(mutant, f"{module}:{new_line}:{new_column}:{operator}:{new_occurrence}")


def source_at(commit: str, module: str) -> str:
    return subprocess.run(
        ["git", "show", f"{commit}:{module}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def measured_at(mutant: str, sources: dict[str, str]) -> str:
    """Of the commits (oldest last) whose sources are given, the one the id names a mutant of: its
    operator's occurrence is at its position there (or, failing that, some occurrence is)."""
    _, line, column, operator, occurrence = parse(mutant)
    found = {commit: positions(source, operator) for commit, source in sources.items()}
    exact = [c for c, p in found.items() if occurrence < len(p) and p[occurrence] == (line, column)]
    near = [c for c, p in found.items() if (line, column) in p]
    return (exact or near or list(sources))[0]


def rekey_all(mutants: list[str], commits: list[str]) -> list[Moved]:
    old: dict[tuple[str, str], str] = {}
    found = []
    for mutant in mutants:
        if mutant.startswith(GONE):
            continue
        module = mutant.split(":")[0]
        for commit in commits:
            if (commit, module) not in old:
                old[commit, module] = source_at(commit, module)
        commit = measured_at(mutant, {c: old[c, module] for c in commits})
        found.append(
            replace(rekey(mutant, old[commit, module], (ROOT / module).read_text(), commit), commit=commit)
        )
    return found


def rewrite(text: str, moves: list[Moved]) -> str:
    """The triage file's text with each id moved; a gone one renamed, with a comment above it."""
    for move in moves:
        quoted = f'id = "{move.old}"'
        if move.new is not None:
            text = text.replace(quoted, f'id = "{move.new}"')
            continue
        renamed = (
            f"# Gone from the reference since {move.commit}: {move.why}.\n"
            f'[[survivor]]\nid = "{GONE}{move.commit}:{move.old}"'
        )
        text = text.replace(f"[[survivor]]\n{quoted}", renamed)
    return text


def skipped_now(config: dict, mutant: str) -> str | None:
    """Why the campaign no longer runs the mutant, if it does not: a pragma on its line, or its line
    is the machinery another campaign judges (the definitions filter is not looked at here)."""
    from tools.mutation.machinery import Machinery

    module, line, *_ = mutant.split(":")
    text = (ROOT / module).read_text().splitlines()[int(line) - 1]
    if "pragma: no mutate" in text:
        return "its line has a pragma: no mutate"
    owner = config.get("filters", {}).get("machinery-filter", {}).get("owned-by")
    if owner is not None:
        owned = tomllib.loads((MUTATION / owner).read_text())["cosmic-ray"]["filters"]["machinery-filter"]
        if Machinery.from_config(owned).owns(module, None, text):
            return f"its line is the machinery {owner} judges"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mutation.rekey", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("campaign", choices=sorted(CAMPAIGNS))
    parser.add_argument(
        "--from",
        dest="commits",
        action="append",
        required=True,
        help="the commit the triage's ids name (repeat: each id is read at the first that has its mutant)",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the triage file (else only say)")
    args = parser.parse_args(argv)
    path = CAMPAIGNS[args.campaign].triage
    text = path.read_text()
    mutants = re.findall(r'^id = "([^"]+)"$', text, flags=re.M)
    moves = rekey_all(mutants, args.commits)
    news = [m.new for m in moves if m.new is not None]
    twice = sorted({n for n in news if news.count(n) > 1})
    config = tomllib.loads(CAMPAIGNS[args.campaign].config.read_text())["cosmic-ray"]
    for move in moves:
        if move.new is None:
            print(f"gone   {move.old}: {move.why}")
            continue
        if move.new != move.old:
            print(f"moved  {move.old} -> {move.new}")
        why = skipped_now(config, move.new)
        if why is not None:
            print(f"  not run now: {why}")
    moved = sum(1 for m in moves if m.new not in (None, m.old))
    gone = sum(1 for m in moves if m.new is None)
    print(f"{path.name}: {len(moves)} ids, {moved} moved, {len(moves) - moved - gone} in place, {gone} gone")
    if twice:
        print(f"error: two entries would name one mutant: {', '.join(twice)}", file=sys.stderr)
        return 1
    if args.write:
        path.write_text(rewrite(text, moves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
