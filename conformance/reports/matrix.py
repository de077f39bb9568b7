"""A side-by-side matrix of several runs: cases as rows, agents as columns (like Autobahn's).

    session-status-conformance matrix reports/*/report.json -o matrix.html [--markdown matrix.md]

Each cell links to that case's entry in that run's report.html. Every string that came from
an agent (names, versions) is escaped, as in the single-run report.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.reports.records import ReportError, as_object, read_report, system_label
from conformance.reports.render import (
    COLORS,
    VERDICT_COLORS,
    claimed_revision,
    html_text,
    md_text,
    subject_of,
    wire_text,
)

__all__ = ["Column", "load_columns", "main", "matrix_html", "matrix_markdown"]

SYMBOLS = {"pass": "pass", "fail": "FAIL", "warn": "warn", "info": "info", "error": "ERROR"}
# Cases that ran to no verdict, told apart: n/a (not for this agent), not testable (an input or a
# probe was missing), unimplemented (the capability is not advertised).
NO_VERDICT = {"n/a": "#e0e0e0", "not-testable": "#fff59d", "unimplemented": "#bdbdbd"}
LEGEND = ["pass", "fail", "warn", "info", "error", "not-testable", "n/a", "unimplemented"]


@dataclass
class Column:
    label: str
    report: dict[str, Any]
    path: Path  # of report.json

    @property
    def outcomes(self) -> dict[str, dict[str, Any]]:
        return {c["id"]: c for c in self.report["cases"]}


class MatrixError(Exception):
    pass


def _label(report: dict[str, Any], path: Path) -> str:
    """The system's own name and version, then what was run: the target, its transport, and the
    protocol version or revision it spoke, as its target describes it (so two runs of one system
    over two protocol versions read apart)."""
    name = system_label(report)[:60] or path.parent.name[:60]
    return f"{name} · {_how(report)}"


def _how(report: dict[str, Any]) -> str:
    system = as_object(report.get("system"))
    parts = [str(report.get("target") or "?"), str(system.get("transport") or "stdio")]
    protocol = str(system.get("protocol") or "")[:40]
    if protocol:
        parts.append(f"protocol {protocol}")
    wire = report.get("wire")
    if isinstance(wire, dict) and wire.get("revision") and str(wire["revision"])[:40] != protocol:
        parts.append(str(wire["revision"])[:40])
    return " ".join(parts)


def _wire(report: dict[str, Any]) -> str:
    wire = report.get("wire")
    return wire_text(wire) if isinstance(wire, dict) else "—"


def load_columns(paths: list[Path]) -> list[Column]:
    columns = []
    for path in paths:
        if path.is_dir():
            path = path / "report.json"
        try:
            report = read_report(path)
        except ReportError as exc:
            raise MatrixError(str(exc)) from None
        columns.append(Column(_label(report, path), report, path))
    seen: dict[str, int] = {}
    for col in columns:  # two runs of one agent: tell them apart by their folder
        seen[col.label] = seen.get(col.label, 0) + 1
    for col in columns:
        if seen[col.label] > 1:
            col.label = f"{col.label} ({col.path.parent.name})"
    return columns


def _case_rows(columns: list[Column]) -> list[tuple[str, str, str]]:
    """(id, level, sentence) of every case in any column, grouped by area."""
    rows: dict[str, tuple[str, str, str]] = {}
    for col in columns:
        for c in col.report["cases"]:
            rows.setdefault(c["id"], (c["id"], c["level"], c["spec"]["sentence"]))
    return sorted(rows.values(), key=lambda r: (r[0].split(".")[0], r[0]))


def _cell_text(case: dict[str, Any]) -> str:
    """The outcome as a cell shows it, with what a baseline made of it."""
    outcome: str = case["outcome"]
    text = SYMBOLS.get(outcome, outcome)
    if case.get("baseline") in ("known", "stale"):
        text += f" ({case['baseline']})"
    return text


def _link(col: Column, out_dir: Path, case_id: str, base: str | None = None) -> str:
    """The cell's link to the case in its run's report.html: relative to where the matrix is
    written, or under ``base`` (--link-base: where the report folders are published, laid out as
    they are seen from the matrix's folder), which works wherever the matrix is posted."""
    target = col.path.with_name("report.html")
    relative = Path(os.path.relpath(target, out_dir)).as_posix()
    if base:
        return f"{base.rstrip('/')}/{relative}#{case_id}"
    return f"{relative}#{case_id}"


def _revision(report: dict[str, Any]) -> str:
    return claimed_revision(report) or "—"


STYLE = """
body{font:13px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:center}
th.case,td.case{text-align:left;font-family:ui-monospace,monospace;white-space:nowrap;
  position:sticky;left:0;background:#fff;z-index:1;box-shadow:1px 0 0 #ccc}
.legend span{display:inline-block;padding:.1em .5em;margin-right:.3em;color:#fff}
.legend span.light{color:#222;border:1px solid #ccc}
td a{color:#fff;text-decoration:none;display:block;font-weight:bold}
td a.light{color:#222}
td.none{color:#999}
.verdict{color:#fff;font-weight:bold}
"""


def matrix_html(columns: list[Column], out_dir: Path, base: str | None = None) -> str:
    head = "".join(f"<th>{html_text(c.label)}</th>" for c in columns)
    verdicts = "".join(
        f"<td class='verdict' style='background:{VERDICT_COLORS.get(c.report['verdict']['label'], '#6a1b9a')}'>"
        f"{html_text(c.report['verdict']['label'])}</td>"
        for c in columns
    )
    revisions = "".join(f"<td>{html_text(_revision(c.report))}</td>" for c in columns)
    hows = "".join(f"<td>{html_text(_how(c.report))}</td>" for c in columns)
    wires = "".join(f"<td>{html_text(_wire(c.report))}</td>" for c in columns)
    legend = "".join(
        f"<span{' class=light' if o in NO_VERDICT else ''} style='background:{_color(o)}'>{html_text(o)}</span>"
        for o in LEGEND
    )
    title = html_text(f"{_subjects(columns)} conformance matrix")
    body = []
    outcome_maps = [c.outcomes for c in columns]
    for case_id, level, sentence in _case_rows(columns):
        cells = []
        for col, outcomes in zip(columns, outcome_maps, strict=True):
            case = outcomes.get(case_id)
            if case is None:
                cells.append("<td class='none'>—</td>")
                continue
            outcome = case["outcome"]
            color = _color(outcome) if case.get("baseline") != "stale" else COLORS["warn"]
            text = html_text(_cell_text(case))
            href = html_text(_link(col, out_dir, case_id, base))
            light = " class='light'" if outcome in NO_VERDICT else ""
            cells.append(f"<td style='background:{color}'><a{light} href='{href}'>{text}</a></td>")
        body.append(
            f"<tr><td class='case' title='{html_text(sentence)}'>{html_text(case_id)}</td>"
            f"<td>{html_text(level)}</td>{''.join(cells)}</tr>"
        )
    return "\n".join(
        [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">",
            f"<title>{title}</title><style>{STYLE}</style></head><body>",
            f"<h1>{title}</h1><p>{len(columns)} runs; click a cell for the case's "
            "transcript in that run's report.</p>",
            f"<p class='legend' id='legend'>{legend}</p>",
            "<table id='matrix'>",
            f"<tr><th class='case'>case</th><th>level</th>{head}</tr>",
            f"<tr><th class='case'>verdict</th><th></th>{verdicts}</tr>",
            f"<tr><th class='case'>target, transport</th><th></th>{hows}</tr>",
            f"<tr><th class='case'>revision</th><th></th>{revisions}</tr>",
            *(
                [f"<tr><th class='case'>wire revision</th><th></th>{wires}</tr>"]
                if _any_wire(columns)
                else []
            ),
            *body,
            "</table></body></html>",
        ]
    )


def _any_wire(columns: list[Column]) -> bool:
    """Whether a run recorded its wire revision (MCP): the matrix then has a row for it."""
    return any(isinstance(c.report.get("wire"), dict) for c in columns)


def _color(outcome: str) -> str:
    return COLORS.get(outcome) or NO_VERDICT.get(outcome, "#9e9e9e")


def _subjects(columns: list[Column]) -> str:
    """The page's title: what the runs certified (each run's report names its subject)."""
    subjects = dict.fromkeys(subject_of(c.report) for c in columns)
    return " · ".join(subjects)


def matrix_markdown(columns: list[Column], out_dir: Path, base: str | None = None) -> str:
    lines = [
        f"## {md_text(_subjects(columns))} conformance matrix",
        "",
        "| case | level | " + " | ".join(md_text(c.label, 200) for c in columns) + " |",
        "| --- | --- |" + " --- |" * len(columns),
        "| **verdict** | | "
        + " | ".join(f"**{md_text(c.report['verdict']['label'])}**" for c in columns)
        + " |",
        "| target, transport | | " + " | ".join(md_text(_how(c.report)) for c in columns) + " |",
        "| revision | | " + " | ".join(md_text(_revision(c.report)) for c in columns) + " |",
    ]
    if _any_wire(columns):
        lines.append("| wire revision | | " + " | ".join(md_text(_wire(c.report)) for c in columns) + " |")
    outcome_maps = [c.outcomes for c in columns]
    for case_id, level, _ in _case_rows(columns):
        cells = []
        for col, outcomes in zip(columns, outcome_maps, strict=True):
            case = outcomes.get(case_id)
            if case is None:
                cells.append("—")
                continue
            cells.append(f"[{md_text(_cell_text(case))}]({_link(col, out_dir, case_id, base)})")
        lines.append(f"| `{case_id}` | {level} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="session-status-conformance matrix",
        description="Compare runs side by side: cases as rows, agents as columns.",
    )
    parser.add_argument("reports", nargs="+", type=Path, help="report.json files (or their folders)")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        help="matrix.html or matrix.md (default: matrix.html, unless --markdown is given)",
    )
    parser.add_argument("--markdown", type=Path, help="write the Markdown table here")
    parser.add_argument(
        "--link-base",
        metavar="URL",
        help="where the report folders are published (as laid out from the matrix's folder): cell links "
        "become absolute, so a matrix posted anywhere (a pull request, a registry page) links to them; "
        "default: links relative to the matrix's folder",
    )
    args = parser.parse_args(argv)
    try:
        columns = load_columns(args.reports)
    except MatrixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outputs: list[tuple[Path, bool]] = []
    if args.output is not None or args.markdown is None:  # only where -o / --markdown say
        output = args.output or Path("matrix.html")
        outputs.append((output, output.suffix == ".md"))
    if args.markdown:
        outputs.append((args.markdown, True))
    for path, markdown in outputs:
        out_dir = path.resolve().parent
        out_dir.mkdir(parents=True, exist_ok=True)
        base = args.link_base
        text = matrix_markdown(columns, out_dir, base) if markdown else matrix_html(columns, out_dir, base)
        path.write_text(text, encoding="utf-8")
    print(f"matrix of {len(columns)} runs: {', '.join(str(p) for p, _ in outputs)}", file=sys.stderr)
    return 0
