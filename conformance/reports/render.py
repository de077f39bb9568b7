"""Human formats of a run report: a self-contained report.html, a Markdown summary, an SVG badge.

Everything the agent sent is hostile: every string goes through :func:`html_text` (HTML and
SVG) or :func:`md_text` (Markdown), which strip control characters and escape markup. No
format loads anything from the network: no scripts, no fonts, no images.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from typing import Any

from conformance.core.transcript import reproduction_lines
from conformance.reports.records import CaseOutcome, system_label
from conformance.reports.text import describe_selection, prompts_why, shorten

__all__ = ["badge_svg", "claimed_revision", "html_report", "markdown_summary", "subject_of", "wire_text"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")  # what can start markup inside a line
COLORS = {"pass": "#2e7d32", "fail": "#c62828", "warn": "#ef6c00", "info": "#1565c0", "error": "#6a1b9a"}
VERDICT_COLORS = {
    "conformant": "#2e7d32",
    "non-conformant": "#c62828",
    "unimplemented": "#757575",
    "untested": "#757575",
    "partial": "#757575",
}


def _visible(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def html_text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return html.escape(_visible(text), quote=True)


def md_text(value: Any, limit: int = 1000) -> str:
    """Markdown-safe text on one line, bounded near ``limit`` characters between words (a path or
    an id in it is never cut)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = shorten(_visible(text).replace("\n", " "), limit)
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def md_code(text: str) -> str:
    """A command as a Markdown code span, whole (a table cell's pipes escaped)."""
    return "`" + _visible(text).replace("`", "'").replace("|", "\\|") + "`"


# The suite's own messages say what to pass at their end, after what they quote of the agent
# (already shortened where it is quoted): a summary shows them whole, up to this bound.
MESSAGE_LIMIT = 1200


def _agent_label(report: dict[str, Any]) -> str:
    """The system's own name and version, else the command that ran it."""
    return system_label(report) or " ".join(report["system"]["command"])


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.5em;margin:0 0 .3em}
.verdict{display:inline-block;padding:.3em .8em;border-radius:4px;color:#fff;font-weight:bold}
table.counts{border-collapse:collapse;margin:1em 0}
table.counts td,table.counts th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
.case{border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;margin:.6em 0;padding:.5em .8em}
.case h3{margin:.1em 0;font-size:1em;font-family:ui-monospace,monospace}
.outcome{font-weight:bold;text-transform:uppercase}
.sentence{color:#444;font-style:italic}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;font-size:12px}
.send{color:#0d47a1}.recv{color:#1b5e20}.note{color:#b71c1c}
table.trace{border-collapse:collapse;font-size:12px}
table.trace td,table.trace th{border:1px solid #ddd;padding:.2em .4em;vertical-align:top;text-align:left}
tr.excluded{color:#777}tr.not-run{background:#fff8e1}
"""


def html_report(report: dict[str, Any]) -> str:
    parts = [*_head_html(report), *_notes_html(report), _counts_html(report["counts"])]
    trace = report.get("traceability")
    if trace:
        parts.append(
            f"<p>traceability ({html_text(trace['revision'])}): <b>{trace['tested']}</b> of {trace['total']} "
            f"spec sentences tested in this run, {trace['excluded']} excluded, {trace['not-run']} not run "
            "(<a href='#traceability'>table</a>)</p>"
        )
    uncovered = coverage_gaps(report)
    watched = watched_text(map(CaseOutcome.from_json, report["cases"]))
    if uncovered or watched:
        parts.append(_coverage_html(uncovered, watched))
    parts.append("<h2>Cases</h2>")
    for case in report["cases"]:  # report.json already lists failures first
        parts.append(_case_html(case))
    if trace:
        parts.append(_traceability_html(trace))
    parts.append("</body></html>")
    return "\n".join(parts)


def _head_html(report: dict[str, Any]) -> list[str]:
    """The page's head, its title, the verdict and what was run."""
    verdict = report["verdict"]
    color = VERDICT_COLORS.get(verdict["label"], "#6a1b9a")
    return [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{html_text(_subject(report))} conformance: {html_text(_agent_label(report))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{html_text(_subject(report))} conformance: {html_text(_agent_label(report))}</h1>",
        f"<p><span class='verdict' id='verdict' style='background:{color}'>{html_text(verdict['label'].upper())}</span> ",
        f"{html_text(verdict['explanation'])}</p>",
        f"<p>spec revision <b id='revision'>{html_text(report['spec']['revision'])}</b> "
        f"<small>({html_text(report['spec'].get('why', ''))})</small> · command "
        f"<code>{html_text(' '.join(report['system']['command']))}</code> · suite "
        f"{html_text(report['suite']['version'])} · {html_text(report['started'])} · "
        f"seed {html_text(str(report['options'].get('seed')))}</p>",
    ]


def _notes_html(report: dict[str, Any]) -> list[str]:
    """The wire revision, the run's cost, and what the reader must know before the counts: a
    selection, a fatal error, an interrupted run, the baseline gate."""
    parts = []
    if report.get("wire"):
        parts.append(f"<p id='wire'>wire revision <b>{html_text(wire_text(report['wire']))}</b></p>")
    parts.append(f"<p id='cost'>{html_text(_cost(report))}</p>")
    if report.get("selection"):
        parts.append(f"<p class='note' id='selection'>{html_text(_selection_text(report))}</p>")
    if report.get("fatal"):
        parts.append(f"<p class='note'>{html_text(report['fatal'])}</p>")
    if report.get("incomplete"):
        parts.append("<p class='note'>The run was interrupted: this report is incomplete.</p>")
    baseline = report.get("baseline")
    if baseline:
        parts.append(
            f"<p id='baseline'><b>baseline gate (exit {baseline['exitCode']})</b>: {html_text(baseline['explanation'])}</p>"
        )
    return parts


def _counts_html(counts: dict[str, Any]) -> str:
    outcomes = list(counts["by_outcome"])
    head = "".join(f"<th>{html_text(o)}</th>" for o in outcomes)
    rows = "".join(
        f"<tr><th>{html_text(level)}</th>" + "".join(f"<td>{row[o]}</td>" for o in outcomes) + "</tr>"
        for level, row in counts["by_level"].items()
    )
    return f"<table class='counts'><tr><th></th>{head}</tr>{rows}</table>"


def _coverage_html(uncovered: list[dict[str, Any]], watched: str | None = None) -> str:
    time_line = f"<p>{html_text(watched)}</p>" if watched else ""
    if not uncovered:
        return f"<h2 id='coverage'>Coverage</h2>{time_line}"
    rows = "".join(
        f"<tr><td><a href='#{html_text(c['id'])}'><code>{html_text(c['id'])}</code></a></td>"
        f"<td>{html_text(c['outcome'])}</td><td>{html_text(c.get('message') or '')}</td></tr>"
        for c in uncovered
    )
    return (
        f"<h2 id='coverage'>Coverage</h2>{time_line}<p>Cases that ran to no verdict, each with why and what "
        "to pass to test it:</p><table class='coverage'><tr><th>case</th><th>outcome</th><th>why</th></tr>"
        f"{rows}</table>"
    )


def _case_html(case: dict[str, Any]) -> str:
    color = COLORS.get(case["outcome"], "#999")
    lines = [
        f"<div class='case' id='{html_text(case['id'])}' style='border-left-color:{color}'>",
        f"<h3>{html_text(case['id'])} <small>[{html_text(case['level'])}]</small> ",
        f"<span class='outcome' style='color:{color}'>{html_text(case['outcome'])}</span></h3>",
        f"<div class='sentence'>{html_text(case['spec']['sentence'])} ",
        f"<small>({_spec_link(case['spec'])})</small></div>",
    ]
    if case.get("baseline"):
        meaning = {
            "known": "a known failure, listed in the baseline: it does not fail the run",
            "new": "a new failure: not in the baseline, it fails the run",
            "stale": "a stale baseline entry: the case passes now, remove it from the baseline",
        }
        lines.append(
            f"<p class='note'>baseline: {html_text(meaning.get(case['baseline'], case['baseline']))}</p>"
        )
    if case.get("message"):
        lines.append(f"<p>{html_text(case['message'])}</p>")
    for key in ("expected", "observed"):
        if case.get(key) is not None:
            lines.append(f"<p><b>{key}</b></p><pre>{html_text(case[key])}</pre>")
    sequence = (case.get("details") or {}).get("sequence")
    if sequence and "\n".join(sequence) != case.get("observed"):
        lines.append(f"<p><b>minimal sequence</b></p><pre>{html_text(chr(10).join(sequence))}</pre>")
    if (case.get("reproduction") or case.get("reproduce")) and case["outcome"] in ("fail", "error", "warn"):
        text = "\n".join(reproduction_lines(case.get("reproduction") or [], command=case.get("reproduce")))
        lines.append(f"<p><b>reproduce</b></p><pre class='repro'>{html_text(text)}</pre>")
    if case.get("transcript"):
        frames = "\n".join(
            f"<span class='{html_text(f['dir'])}'>{f['t']:9.4f} {html_text(f['dir'])} {html_text(f['frame'])}</span>"
            for f in case["transcript"]
        )
        is_open = " open" if case["outcome"] in ("fail", "error") else ""
        summary = f"<summary>wire transcript ({len(case['transcript'])} frames)</summary>"
        lines.append(f"<details class='transcript'{is_open}>{summary}<pre>{frames}</pre></details>")
    if case.get("stderr"):
        lines.append(
            f"<details><summary>agent stderr</summary><pre>{html_text(case['stderr'])}</pre></details>"
        )
    lines.append("</div>")
    return "".join(lines)


def _spec_link(spec: dict[str, Any]) -> str:
    label = f"{html_text(spec['source'])}, {html_text(spec['section'])}"
    url = spec.get("url") or ""
    if url.startswith("https://"):  # the suite's own data, but checked anyway
        return f"<a href='{html_text(url)}'>{label}</a>"
    return label


def _traceability_html(trace: dict[str, Any]) -> str:
    rows = []
    for r in trace["sentences"]:
        cases = ", ".join(
            (f"<a href='#{html_text(cid)}'>{html_text(cid)}</a>" if out != "not run" else html_text(cid))
            + f"&nbsp;<small>{html_text(out)}</small>"
            for cid, out in r["cases"].items()
        )
        rows.append(
            f"<tr class='{html_text(r['status'])}'><td>{html_text(r['section'])}</td><td>{html_text(r['sentence'])}</td>"
            f"<td>{html_text(r['level'])}</td><td>{html_text(r['status'])}</td><td>{cases}</td>"
            f"<td>{html_text(', '.join(r.get('conditions') or ()) or '-')}</td><td>{html_text(r['reason'])}</td></tr>"
        )
    return (
        f"<h2 id='traceability'>Traceability: {html_text(trace['revision'])}</h2>"
        "<table class='trace'><tr><th>section</th><th>sentence</th><th>level</th><th>status</th>"
        f"<th>cases (outcome)</th><th>conditions tried</th><th>reason / note</th></tr>{''.join(rows)}</table>"
    )


def _selection_text(report: dict[str, Any]) -> str:
    sel = report["selection"]
    return (
        f"PARTIAL: {sel['selected']} of {sel['total']} cases {'ran' if sel.get('stopped') else 'selected'} "
        f"({describe_selection(sel)}); "
        f"no certificate. The selected cases alone: {report['verdict'].get('selected', '')}."
    )


UNCOVERED = ("not-testable", "unimplemented", "n/a")


def watched_text(cases: Iterable[CaseOutcome]) -> str | None:
    """How long the run watched one session pair through waits (the cases that record
    ``details.watched``, seconds), for the Coverage section: what time can have shown; None if none did."""
    watched = []
    for c in cases:
        details: object = c.details  # as report.json held it: any JSON value
        if not isinstance(details, dict):
            continue
        seconds, waits = details.get("watched"), details.get("waits")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds > 0:
            waits = waits if isinstance(waits, list) else []
            watched.append((float(seconds), c.id, [w for w in waits[:12] if isinstance(w, int | float)]))
    if not watched:
        return None
    seconds, case_id, waits = max(watched)
    shown = f" (waits of {', '.join(f'{w:g}' for w in waits)} s)" if waits else ""
    return (
        f"Time: the longest watch of one session in this run was {seconds:g} s, by {case_id}{shown}; a state that "
        "changes on its own later than that was not observed (a longer --hold or the thorough profile watches longer)"
    )


def coverage_gaps(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The cases that ran to no verdict (not testable, unimplemented, not applicable)."""
    return [c for c in report["cases"] if c["outcome"] in UNCOVERED]


def markdown_summary(report: dict[str, Any]) -> str:
    """For $GITHUB_STEP_SUMMARY or a PR comment."""
    verdict = report["verdict"]
    counts = report["counts"]
    outcomes = [o for o in counts["by_outcome"]]
    lines = [
        f"### {md_text(_subject(report))} conformance: {md_text(_agent_label(report))}",
        "",
        f"**{md_text(verdict['label'].upper())}**: {md_text(verdict['explanation'], MESSAGE_LIMIT)} "
        f"(spec {md_text(report['spec']['revision'])}: {md_text(report['spec'].get('why', ''))}; "
        f"seed {report['options'].get('seed')})",
        "",
        *([md_text(f"Wire: {wire_text(report['wire'])}"), ""] if report.get("wire") else []),
        *([md_text(_cost(report), MESSAGE_LIMIT), ""] if _cost(report) else []),
        "| level | " + " | ".join(outcomes) + " |",
        "| --- |" + " ---: |" * len(outcomes),
    ]
    for level, row in counts["by_level"].items():
        lines.append(f"| {level} | " + " | ".join(str(row[o]) for o in outcomes) + " |")
    if report.get("selection"):
        lines += ["", f"**{md_text(_selection_text(report))}**"]
    baseline = report.get("baseline")
    if baseline:
        lines += ["", f"Baseline gate (exit {baseline['exitCode']}): {md_text(baseline['explanation'])}"]
    trace = report.get("traceability")
    if trace:
        lines += [
            "",
            f"Traceability ({md_text(trace['revision'])}): {trace['tested']} of {trace['total']} spec sentences "
            f"tested, {trace['excluded']} excluded, {trace['not-run']} not run.",
        ]
    uncovered = coverage_gaps(report)
    watched = watched_text(map(CaseOutcome.from_json, report["cases"]))
    if uncovered or watched:
        lines += ["", "#### Coverage", ""]
        if watched:
            lines += [md_text(watched, MESSAGE_LIMIT), ""]
    if uncovered:
        lines += [
            "| case | outcome | why, and what to pass to test it |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| `{c['id']}` | {c['outcome']} | {md_text(c.get('message') or '', MESSAGE_LIMIT)} |"
            for c in uncovered
        ]
    bad = [c for c in report["cases"] if c["outcome"] in ("fail", "error", "warn")]
    if bad:
        lines += ["", "| case | level | outcome | why | reproduce |", "| --- | --- | --- | --- | --- |"]
        for c in bad:
            known = " (known)" if c.get("baseline") == "known" else ""
            command = md_code(c["reproduce"]) if c.get("reproduce") else ""
            lines.append(
                f"| `{c['id']}` | {c['level']} | {c['outcome']}{known} | {md_text(c['message'], MESSAGE_LIMIT)} | {command} |"
            )
    if report.get("fatal"):
        lines += ["", md_text(report["fatal"], MESSAGE_LIMIT)]
    return "\n".join(lines) + "\n"


def _cost(report: dict[str, Any]) -> str:
    """What the run cost: its prompts (a target whose system takes turns: each a model call for a
    real agent) and wall time."""
    prompts = report.get("prompts")
    wall = f"wall time {report.get('duration', 0):.0f} s"
    if not isinstance(prompts, dict):  # its system takes no turns
        return f"Cost: {wall}."
    limit = f" of at most {prompts['limit']} (--max-prompts)" if prompts.get("limit") is not None else ""
    refused = prompts.get("notSent") or []
    more = f"; {len(refused)} case(s) not testable for want of one" if refused else ""
    sent = [
        (int((c.get("details") or {}).get("prompts") or 0), str(c.get("id")))
        for c in report.get("cases") or []
    ]
    why = prompts_why(sent, prompts.get("limit") is not None)
    return f"Cost: {prompts.get('sent', 0)} prompt(s){limit} sent (each a model call for a real agent{why}){more}; {wall}."


# A badge says no score where there is no certificate to score.
NO_SCORE = ("unimplemented", "error", "incomplete", "untested")


def badge_svg(report: dict[str, Any]) -> str:
    counts = report["counts"]["by_outcome"]
    checked = sum(v for k, v in counts.items() if k not in ("unimplemented", "n/a", "not-testable"))
    label = report["verdict"]["label"]
    right = f"{label} · {claimed_revision(report) or '-'} · {counts['pass']}/{checked}"
    if label in NO_SCORE:
        right = label
    if report.get("selection"):  # no certificate: say how much ran, not how much passed
        sel = report["selection"]
        right = f"partial · {sel['selected']} of {sel['total']} cases selected · no certificate"
    left = _subject(report)
    lw, rw = 6 * len(left) + 12, int(6.2 * len(right)) + 12
    color = VERDICT_COLORS.get(report["verdict"]["label"], "#6a1b9a")
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{lw + rw}' height='20' role='img' "
        f"aria-label='{html_text(left)}: {html_text(right)}'><title>{html_text(left)}: {html_text(right)}</title>"
        f"<rect width='{lw}' height='20' fill='#555'/><rect x='{lw}' width='{rw}' height='20' fill='{color}'/>"
        f"<g fill='#fff' font-family='Verdana,DejaVu Sans,sans-serif' font-size='11'>"
        f"<text x='6' y='14'>{html_text(left)}</text><text x='{lw + 6}' y='14'>{html_text(right)}</text></g></svg>"
    )


def subject_of(report: dict[str, Any]) -> str:
    """What a report certified, as its target names it (records.read_report names it for a report
    written before targets did)."""
    return str(report.get("subject") or "session/status")


_subject = subject_of


def claimed_revision(report: dict[str, Any]) -> str | None:
    """The spec revision a run certified against, or None where it claims none: an agent that does
    not implement the method, or a run that never got to choose one."""
    if report.get("verdict", {}).get("label") == "unimplemented":
        return None
    if str(report.get("spec", {}).get("why") or "").startswith("not determined"):
        return None
    return str(report.get("spec", {}).get("revision") or "") or None


def wire_text(wire: dict[str, Any]) -> str:
    """The wire revision a run spoke, in one line (agent-supplied parts bounded)."""
    protocol = str(wire.get("protocol") or "").upper()
    revision = str(wire.get("revision") or "")[:40]
    how = ", ".join(str(wire[k])[:60] for k in ("era", "handshake") if wire.get(k))
    chosen = str(wire.get("chosen") or "")[:300]
    return f"{protocol} {revision} ({how}){'; ' + chosen if chosen else ''}".strip()
