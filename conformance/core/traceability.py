"""Traceability: which spec sentence each case checks, and which sentences no case can check.

A revision's requirements file (``cases/revisions/<name>.toml``) maps every normative
sentence of the spec to case ids, or to an exclusion with its reason. This module reads it,
splits a spec text into sentences (so the project's tests can prove nothing is missing),
and computes a run's coverage for the report: sentences tested, excluded, not run.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CASES_GROUP",
    "Requirement",
    "Revision",
    "case_packages",
    "coverage",
    "keyword_level",
    "load_revision",
    "normalize",
    "revision_files",
    "revisions_dir",
    "schema_sentences",
    "spec_sentences",
]

KEYWORD = re.compile(r"\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b|\bmust\b")
DECISIVE = ("pass", "fail", "warn", "info")  # outcomes where the case did check its sentence


def normalize(text: str) -> str:
    return " ".join(text.split())


def keyword_level(sentence: str) -> str:
    """The strongest RFC 2119 keyword in a sentence ("MUST" for a lowercase "must"), or "-"."""
    words = {m.group() for m in KEYWORD.finditer(sentence)}
    for level, keys in (
        ("MUST", {"MUST", "SHALL", "REQUIRED", "must"}),
        ("SHOULD", {"SHOULD", "RECOMMENDED"}),
    ):
        if words & keys:
            return level
    return "MAY" if words & {"MAY", "OPTIONAL"} else "-"


AXES = (
    "shape",  # the message as the schema gives it
    "identity",  # the same id in another form, long ids, deleted or closed sessions, empty or missing ids
    "channel",  # every place a side effect could show: history, timers, turns, listings, notifications, queues
    "consistency",  # what an answer implies, checked against what the other methods then do
    "isolation",  # between sessions and between callers: keys, acknowledgements, queue items, caches
    "types",  # wrong JSON types, and the coercions lenient validators make
    "concurrency",  # a retry while the first call is in flight, status during a turn
    "later",  # status after a permission is answered, after a delete, after an eviction, after a timer
    "pressure",  # memory caps and eviction, quotas and request allowances, restarts
    "boundary",  # values at storage limits and just past them (64, 255/256, 1024, 4096), empty values, encodings
)

# The conditions bugs nobody named hide in, and the axes that try each: a sentence's audit says
# which of them have been tried against it (a break along that axis, with a check that catches it).
CONDITIONS = {
    "later": "time",
    "pressure": "pressure",
    "concurrency": "overlap",
    "boundary": "boundary",
    "isolation": "neighbour",
}


@dataclass(frozen=True)
class Break:
    """One way an implementation can break a sentence, and what catches it (the audit)."""

    way: str
    axis: str
    by: str = ""  # a case id, or "case#rule" for a rule inside a sequence or fuzz case
    unobservable: str = ""  # why no client can see it through the protocol
    variant: str = ""  # the broken implementation in tests/agents/ that shows the check catches it


@dataclass(frozen=True)
class Requirement:
    source: str
    section: str
    sentence: str
    cases: tuple[str, ...] = ()
    excluded: str = ""
    note: str = ""
    anchor: str = ""
    key: str = ""  # a name the harness's own findings use ("reply", "envelope")
    breaks: tuple[Break, ...] = ()

    @property
    def level(self) -> str:
        return keyword_level(self.sentence)

    @property
    def conditions(self) -> tuple[str, ...]:
        """The conditions (time, pressure, overlap, boundary, neighbour) under which a break of this
        sentence has been tried, by a check that catches it."""
        tried = {CONDITIONS[b.axis] for b in self.breaks if b.by and b.axis in CONDITIONS}
        return tuple(c for c in CONDITIONS.values() if c in tried)


@dataclass
class Revision:
    name: str
    title: str
    vocabulary: dict[str, str]  # canonical ("active" / "inactive") -> the revision's wire word
    normative_sections: tuple[str, ...]
    sources: dict[str, dict[str, str]]
    requirements: list[Requirement] = field(default_factory=list)
    folder: Path = Path()
    may_inactive_for_unknown: bool = False
    schema: str = ""
    schema_definitions: tuple[str, ...] = ()
    not_part: dict[str, str] = field(default_factory=dict)  # case id -> why it is not part of it
    target: str = ""  # the system whose cases it maps (acp, mcp, http, or another target's name)
    # The revision its target's runs check when none is chosen or detected (one per target).
    default: bool = False
    # The protocol's wire revisions its cases have been run over, where the protocol has several.
    wire_revisions: tuple[str, ...] = ()

    def spec_for(self, case_id: str, rule: str | None = None) -> Requirement | None:
        """The sentence this revision has a case (or one of its rules) check, or None: the case is
        not part of it."""
        if rule is not None:
            found = next((r for r in self.requirements if f"{case_id}#{rule}" in r.cases), None)
            if found is not None:
                return found
        return next((r for r in self.requirements if case_id in r.cases), None)

    def by_key(self, key: str) -> Requirement | None:
        return next((r for r in self.requirements if r.key == key), None)

    def quoting(self, source: str, sentence: str) -> Requirement | None:
        return next((r for r in self.requirements if (r.source, r.sentence) == (source, sentence)), None)

    def url_for(self, req: Requirement) -> str:
        source = self.sources.get(req.source, {})
        base = source.get("url", "")
        if base and req.anchor:
            return f"{base}#{req.anchor}"
        if base and source.get("anchors"):
            return f"{base}#{'-'.join(re.findall(r'[a-z0-9]+', req.section.lower()))}"
        return base

    def source_text(self, source: str) -> str | None:
        file = self.sources.get(source, {}).get("file")
        return (self.folder / file).read_text(encoding="utf-8") if file else None


CASES_GROUP = "session_status_conformance.cases"


@functools.cache
def case_packages() -> dict[str, Path]:
    """Every installed package of cases, by module name, and its folder: this suite's own
    (conformance.cases) and those other distributions register in the entry-point group
    ``session_status_conformance.cases`` (name = "their_package.cases"). Found, not imported:
    pytest must import the case modules itself (assertion rewriting)."""
    from importlib.metadata import distributions

    names = ["conformance.cases"]
    for dist in distributions():
        names += [ep.value for ep in dist.entry_points if ep.group == CASES_GROUP and ep.value not in names]
    found: dict[str, Path] = {}
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except Exception as exc:  # a parent package that fails to import: that distribution's alone
            if name == "conformance.cases":
                raise
            print(
                f"warning: the cases package {name!r} is left out ({CASES_GROUP}: {exc!r:.300})",
                file=sys.stderr,
            )
            spec = None
        if spec is not None and spec.origin is not None:
            found[name] = Path(spec.origin).parent
    if "conformance.cases" not in found:
        raise FileNotFoundError("the 'conformance.cases' package is not installed")
    return found


def revisions_dir() -> Path:
    """The suite's own revision files."""
    return case_packages()["conformance.cases"] / "revisions"


@functools.cache
def revision_files() -> dict[str, Path]:
    """Every revision file, by name: the ``revisions/`` folder of each package of cases."""
    files: dict[str, Path] = {}
    for folder in case_packages().values():
        for path in sorted((folder / "revisions").glob("*.toml")):
            files.setdefault(path.stem, path)
    return files


def load_revision(name: str, folder: Path | None = None) -> Revision:
    folder = folder or (revision_files()[name].parent if name in revision_files() else revisions_dir())
    data = tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
    meta = data["revision"]
    return Revision(
        name=meta["name"],
        title=meta["title"],
        vocabulary=dict(meta.get("vocabulary", {})),
        normative_sections=tuple(meta.get("normative_sections", ())),
        sources=data.get("sources", {}),
        requirements=[
            Requirement(
                source=r["source"],
                section=r["section"],
                sentence=r["sentence"],
                cases=tuple(r.get("cases", ())),
                excluded=r.get("excluded", ""),
                note=r.get("note", ""),
                anchor=r.get("anchor", ""),
                key=r.get("key", ""),
                breaks=tuple(Break(**b) for b in r.get("breaks", ())),
            )
            for r in data.get("requirement", [])
        ],
        folder=folder,
        may_inactive_for_unknown=bool(meta.get("may_inactive_for_unknown", False)),
        schema=meta.get("schema", ""),
        schema_definitions=tuple(meta.get("schema_definitions", ())),
        not_part=dict(meta.get("not_part", {})),
        target=meta["target"],
        default=bool(meta.get("default", False)),
        wire_revisions=tuple(meta.get("wire_revisions", ())),
    )


def _sections(text: str) -> list[tuple[str, str]]:
    """(section, bullet text) for every bullet or numbered item of a spec text."""
    items: list[tuple[str, str]] = []
    section, blanks = "", 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            blanks += 1
            continue
        bullet = re.match(r"^(?:•|\d+\.)\s+(.*)$", stripped)
        if bullet:
            items.append((section, bullet.group(1)))
        elif blanks >= 2 and not line.startswith((" ", "{", "}", '"')):
            section = stripped
        blanks = 0
    return items


def spec_sentences(text: str, normative_sections: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every sentence that needs an entry: all of the normative sections, and keyword ones anywhere."""
    found = []
    for section, item in _sections(text):
        for sentence in re.split(r"(?<=\.)\s+(?=[A-Z])", normalize(item)):
            if section in normative_sections or KEYWORD.search(sentence):
                found.append((section, sentence))
    return found


def _descriptions(node: Any, path: str):
    if not isinstance(node, dict):
        return
    if isinstance(node.get("description"), str):
        yield path, node["description"]
    for name, sub in (node.get("properties") or {}).items():
        yield from _descriptions(sub, f"{path}.{name}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(node.get(key) or []):
            if isinstance(sub, dict):
                yield from _descriptions(sub, f"{path}.{sub.get('const') or sub.get('title') or i}")


def schema_sentences(definitions: dict[str, Any], names: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every sentence of the descriptions of these schema definitions (and their properties and
    variants), skipping the UNSTABLE banner and documentation links."""
    found = []
    for name in names:
        for path, text in _descriptions(definitions[name], name):
            for paragraph in re.split(r"\n\s*\n", text):
                if paragraph.startswith(("**UNSTABLE**", "This capability is not part of the spec yet")):
                    continue
                for sentence in re.split(r"(?<=\.)\s+(?=[A-Z`])", normalize(paragraph)):
                    if sentence and not sentence.startswith("See protocol docs:"):
                        found.append((path, sentence))
    return found


def coverage(revision: Revision, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's coverage of the revision's sentences, for report.json. A rule ("case#rule") ran
    when its case did, unless the case left it unjudged (``details["unjudged"]``: rule -> why,
    e.g. a calibration that showed its probe could not tell): then it is not testable, and so is
    the whole case where a sentence lists it beside its rules and it left each of them unjudged."""
    outcomes = {c["id"]: c["outcome"] for c in cases}
    unjudged = {c["id"]: (c.get("details") or {}).get("unjudged") or {} for c in cases}
    rows = []
    for req in revision.requirements:
        ran = {}
        for cid in req.cases:
            base, _, rule = cid.partition("#")
            if base in outcomes:
                # A case listed whole beside rules of its own on this sentence checked the sentence
                # only through those rules: none judged, it did not check it.
                rules = [r for c in req.cases if (r := c.partition("#")[2]) and c.startswith(base + "#")]
                unseen = (
                    rule in unjudged[base]
                    if rule
                    else bool(rules) and all(r in unjudged[base] for r in rules)
                )
                ran[cid] = "not-testable" if unseen else outcomes[base]
        if req.excluded:
            status = "excluded"
        elif any(o in DECISIVE for o in ran.values()):
            status = "tested"
        else:
            status = "not-run"
        rows.append(
            {
                "source": req.source,
                "section": req.section,
                "sentence": req.sentence,
                "level": req.level,
                "status": status,
                "cases": {cid: ran.get(cid, "not run") for cid in req.cases},
                "reason": req.excluded or req.note,
                "conditions": list(req.conditions),
            }
        )
    counts = {k: sum(r["status"] == k for r in rows) for k in ("tested", "excluded", "not-run")}
    return {"revision": revision.name, "total": len(rows), **counts, "sentences": rows}
