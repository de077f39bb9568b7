"""The fleet report: fleet.json (schemas/fleet.schema.json), fleet.md, fleet.html and a badge per
agent, with the history against a previous fleet.json.

Every string in a row came from a registry or an agent: HTML and SVG go through ``html_text``,
Markdown through ``md_text``; nothing loads from the network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.reports.render import VERDICT_COLORS, html_text, md_text

__all__ = [
    "EXIT_CODES",
    "FORMAT",
    "badge_svg",
    "exit_code",
    "fleet_html",
    "fleet_markdown",
    "history",
    "write_fleet",
]

FORMAT = "session-status-conformance/fleet@1"
STATUSES = ("certified", "no-verdict", "install-failed", "unsupported", "invalid")
# What each exit code of `fleet` (and `fleet merge`) means.
EXIT_CODES = {
    0: "every certifiable agent came out conformant",
    1: "an agent came out non-conformant, or an installed agent ended without a verdict "
    "(it hung in initialize, crashed or printed garbage)",
    2: "usage error (an unreadable list or folder, a bad option), or no agent could be certified at all",
    3: "no agent is non-conformant, but one does not implement the method or was not fully tested "
    "(unimplemented, untested, partial, or incomplete: stopped at its time limit)",
}
_STATUS_COLORS = {
    "no-verdict": "#6a1b9a",
    "install-failed": "#9e9e9e",
    "unsupported": "#9e9e9e",
    "invalid": "#9e9e9e",
}


def exit_code(rows: list[dict[str, Any]]) -> int:
    """Whether every certifiable agent (installed on this machine) conformed; see EXIT_CODES."""
    certifiable = [r for r in rows if r.get("status") in ("certified", "no-verdict")]
    if not certifiable:
        return 2
    if any(r.get("status") == "no-verdict" or r.get("verdict") == "non-conformant" for r in certifiable):
        return 1
    if all(r.get("verdict") == "conformant" for r in certifiable):
        return 0
    return 3


def label(row: dict[str, Any]) -> str:
    """The row's one-word outcome: its verdict, or why it has none."""
    return str(row.get("verdict") or row.get("status") or "?")


def _color(row: dict[str, Any]) -> str:
    verdict = row.get("verdict")
    if isinstance(verdict, str) and verdict in VERDICT_COLORS:
        return VERDICT_COLORS[verdict]
    return _STATUS_COLORS.get(str(row.get("status")), "#757575")


def badge_svg(row: dict[str, Any]) -> str:
    """A shields-style badge: the agent and version on the left, its outcome (and revision) on the right."""
    left = f"{row.get('name') or row.get('id')} {row.get('version') or ''}".strip()[:40]
    right = label(row) + (f" · {row['revision']}" if row.get("revision") else "")
    lw, rw = 12 + round(6.2 * len(left)), 12 + round(6.2 * len(right))
    title = html_text(f"{left}: {right}")
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{lw + rw}' height='20' role='img' aria-label='{title}'>"
        f"<title>{title}</title><rect width='{lw}' height='20' fill='#555'/>"
        f"<rect x='{lw}' width='{rw}' height='20' fill='{_color(row)}'/>"
        "<g fill='#fff' font-family='Verdana,DejaVu Sans,sans-serif' font-size='11'>"
        f"<text x='6' y='14'>{html_text(left)}</text><text x='{lw + 6}' y='14'>{html_text(right)}</text></g></svg>"
    )


def _key(row: dict[str, Any]) -> str:
    return str(row.get("id"))


def history(rows: list[dict[str, Any]], previous: dict[str, Any] | None) -> list[dict[str, Any]]:
    """What changed since the previous fleet report: a new agent, a new version, a verdict that
    changed, a rule newly broken, an agent no longer listed."""
    if previous is None:
        return []
    before = {_key(r): r for r in previous.get("agents", []) if isinstance(r, dict)}
    changes: list[dict[str, Any]] = []
    for row in rows:
        old = before.get(_key(row))
        if old is None:
            changes.append({"kind": "new-agent", "id": row["id"], "to": row.get("version")})
            continue
        if old.get("version") != row.get("version"):
            changes.append(
                {"kind": "new-version", "id": row["id"], "from": old.get("version"), "to": row.get("version")}
            )
        if label(old) != label(row):
            changes.append({"kind": "verdict-changed", "id": row["id"], "from": label(old), "to": label(row)})
        was = set(old.get("failing") or [])
        for rule in row.get("failing") or []:
            if rule not in was:
                changes.append({"kind": "rule-newly-broken", "id": row["id"], "rule": rule})
    listed = {_key(r) for r in rows}
    for key, old in before.items():
        if key not in listed:
            changes.append({"kind": "agent-gone", "id": old.get("id"), "from": old.get("version")})
    return changes


def change_text(change: dict[str, Any]) -> str:
    kind = change["kind"]
    if kind == "new-agent":
        return f"new agent {change['id']} {change.get('to') or ''}".strip()
    if kind == "new-version":
        return f"{change['id']}: new version {change.get('from')} → {change.get('to')}"
    if kind == "verdict-changed":
        return f"{change['id']}: verdict {change.get('from')} → {change.get('to')}"
    if kind == "rule-newly-broken":
        return f"{change['id']}: newly broken {change.get('rule')}"
    return f"{change['id']} {change.get('from') or ''} is no longer listed".replace("  ", " ")


def _rules(row: dict[str, Any], limit: int = 6) -> list[str]:
    rules = list(row.get("failing") or [])
    return rules[:limit] + ([f"… {len(rules) - limit} more"] if len(rules) > limit else [])


def _seconds(row: dict[str, Any]) -> str:
    seconds = row.get("seconds")
    return f"{seconds:.0f} s" if isinstance(seconds, int | float) else "—"


def fleet_markdown(fleet: dict[str, Any]) -> str:
    rows = fleet["agents"]
    lines = [
        "### session-status-conformance fleet",
        "",
        f"{len(rows)} agent(s) · exit {fleet['exitCode']}: {md_text(EXIT_CODES.get(fleet['exitCode'], ''))} · "
        f"{md_text(fleet.get('platform') or '')} · {fleet.get('duration', 0):.0f} s",
        "",
        "| agent | version | verdict | revision | failing rules | prompts | time | report |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        verdict = f"**{md_text(label(row)).upper()}**" if row.get("verdict") else md_text(label(row))
        if row.get("reason"):
            verdict += f": {md_text(row['reason'], 300)}"
        if row.get("reused"):
            verdict += " (reused: version unchanged)"
        rules = ", ".join(f"`{md_text(r, 120)}`" for r in _rules(row)) or "—"
        report = f"[report]({row['report']})" if row.get("report") else "—"
        prompts = row.get("promptsSent")
        lines.append(
            f"| {md_text(row.get('name') or row['id'], 80)} | {md_text(row.get('version') or '—', 60)} | {verdict} | "
            f"{md_text(row.get('revision') or '—', 60)} | {rules} | {prompts if prompts is not None else '—'} | "
            f"{_seconds(row)} | {report} |"
        )
    changes = fleet.get("history", {}).get("changes") or []
    if fleet.get("history", {}).get("previous"):
        since = md_text(fleet["history"]["previous"], 200)
        lines += ["", f"Changes since {since}:" if changes else f"No change since {since}."]
        lines += [f"- {md_text(change_text(c), 400)}" for c in changes]
    return "\n".join(lines) + "\n"


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.nowrap{white-space:nowrap}details pre{max-width:40em;overflow:auto;font-size:.8em}
.verdict{color:#fff;padding:.1em .4em;border-radius:3px;white-space:nowrap}
.reason{color:#555;font-size:.9em}code{font-size:.85em}ul.changes li{margin:.2em 0}
"""


def fleet_html(fleet: dict[str, Any]) -> str:
    rows = fleet["agents"]
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'\">",
        f"<title>session-status-conformance fleet · {len(rows)} agents</title><style>{_STYLE}</style></head><body>",
        "<h1>session-status-conformance fleet</h1>",
        f"<p id='summary'>{len(rows)} agent(s) on {html_text(fleet.get('platform') or '?')}, started "
        f"{html_text(fleet.get('started') or '?')}, {fleet.get('duration', 0):.0f} s. Exit code "
        f"<b id='exit-code'>{fleet['exitCode']}</b>: {html_text(EXIT_CODES.get(fleet['exitCode'], ''))}.</p>",
        "<table id='fleet'><thead><tr><th>badge</th><th>agent</th><th>version</th><th>verdict</th><th>revision</th>"
        "<th>failing rules</th><th>prompts</th><th>time</th><th>report</th></tr></thead><tbody>",
    ]
    for row in rows:
        reason = f"<div class='reason'>{html_text(row['reason'])}</div>" if row.get("reason") else ""
        reused = "<div class='reason'>reused: version unchanged</div>" if row.get("reused") else ""
        rules = "<br>".join(f"<code>{html_text(r)}</code>" for r in _rules(row, 12)) or "—"
        report = f"<a href='{html_text(row['report'])}'>report</a>" if row.get("report") else "—"
        badge = (
            f"<img src='{html_text(row['badge'])}' alt='{html_text(label(row))}'>" if row.get("badge") else ""
        )
        prompts = row.get("promptsSent")
        initialize = row.get("initialize")
        said = (
            f"<details class='initialize'><summary>initialize</summary><pre>{html_text(initialize)}</pre></details>"
            if initialize
            else ""
        )
        out.append(
            f"<tr data-agent='{html_text(row['id'])}' data-verdict='{html_text(label(row))}'><td>{badge}</td>"
            f"<td>{html_text(row.get('name') or row['id'])}<div class='reason'>{html_text(row.get('kind') or '')} "
            f"{html_text(row.get('package') or '')}</div>{said}</td><td class='nowrap'>{html_text(row.get('version') or '—')}</td>"
            f"<td><span class='verdict' style='background:{_color(row)}'>{html_text(label(row))}</span>{reason}{reused}</td>"
            f"<td class='nowrap'>{html_text(row.get('revision') or '—')}</td><td>{rules}</td>"
            f"<td>{prompts if prompts is not None else '—'}</td><td>{_seconds(row)}</td><td>{report}</td></tr>"
        )
    out.append("</tbody></table>")
    hist = fleet.get("history") or {}
    if hist.get("previous"):
        changes = hist.get("changes") or []
        out.append(f"<h2>History</h2><p>Compared with {html_text(hist['previous'])}.</p>")
        if changes:
            out.append("<ul class='changes' id='changes'>")
            out += [
                f"<li data-kind='{html_text(c['kind'])}'>{html_text(change_text(c))}</li>" for c in changes
            ]
            out.append("</ul>")
        else:
            out.append("<p id='changes'>No change.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def write_fleet(out: Path, fleet: dict[str, Any]) -> None:
    """fleet.json, fleet.md, fleet.html and badges/ in ``out``."""
    badges = out / "badges"
    badges.mkdir(parents=True, exist_ok=True)
    for row in fleet["agents"]:
        (badges / f"{row['slug']}.svg").write_text(badge_svg(row), encoding="utf-8")
        row["badge"] = f"badges/{row['slug']}.svg"
    (out / "fleet.json").write_text(
        json.dumps(fleet, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    (out / "fleet.md").write_text(fleet_markdown(fleet), encoding="utf-8")
    (out / "fleet.html").write_text(fleet_html(fleet), encoding="utf-8")
