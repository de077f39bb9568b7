"""A campaign's report: campaign.json and a self-contained campaign.html (inline SVG plots drawn
locally with matplotlib; no script, no network). Everything an agent sent is escaped."""

from __future__ import annotations

import html
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from conformance import COMMAND
from conformance.campaign.findings import Findings
from conformance.campaign.rounds import Worker
from conformance.core import progress

__all__ = ["campaign_data", "render_html", "write_reports"]

FORMAT = "session-status-conformance/campaign/1"


class Campaign(Protocol):
    """What the report reads of a campaign (conformance.campaign.command.Campaign runs one)."""

    target: str
    target_args: list[str]
    order: list[str]
    slice: float
    case_examples: dict[str, int]
    started_at: datetime
    duration: float
    duration_run: float | None
    stopped_by: str
    db_given: str
    db_lost: str | None
    local_db: Path
    workers: list[Worker]
    findings: Findings
    findings_timeline: list[tuple[float, int]]
    transitions: dict[str, int]
    problems: list[str]
    folder: Path

    def elapsed(self) -> float: ...


def campaign_data(c: Campaign) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "target": c.target,
        "arguments": c.target_args,
        "cases": c.order,
        "slice": c.slice,
        "examplesByCase": dict(c.case_examples),
        "started": c.started_at.isoformat(timespec="seconds"),
        "budget": c.duration,
        "duration": round(c.duration_run if c.duration_run is not None else c.elapsed(), 2),
        "stoppedBy": c.stopped_by,
        "database": {"given": c.db_given, "lost": c.db_lost, "local": str(c.local_db)},
        "workers": [
            {
                "index": w.index,
                "examples": w.done_examples,
                "rounds": [
                    {
                        "number": r.number,
                        "seed": r.seed,
                        "case": r.case,
                        "started": round(r.started, 2),
                        "ended": None if r.ended is None else round(r.ended, 2),
                        "exit": r.code,
                        "examples": r.examples,
                        "newFindings": r.findings,
                        "folder": str(r.folder),
                    }
                    for r in w.rounds
                ],
                "timeline": thinned(w.timeline),
            }
            for w in c.workers
        ],
        "examples": sum(w.done_examples for w in c.workers),
        "findingsTimeline": [list(p) for p in c.findings_timeline],
        "coverage": {
            "states": dict(sorted(progress.states_of(c.transitions).items())),
            "transitions": dict(sorted(c.transitions.items())),
        },
        "findings": [f.to_json() for f in c.findings],
        "problems": c.problems,
    }


def thinned(points: list[tuple[float, int]], at_most: int = 600) -> list[list[float]]:
    """A timeline sampled twice a second, thinned to at most ``at_most`` points (a campaign of
    hours would otherwise put tens of thousands in the report), keeping the last."""
    step = max(1, -(-len(points) // at_most))
    kept = points[::step]
    if points and kept[-1] != points[-1]:
        kept.append(points[-1])
    return [list(p) for p in kept]


def write_reports(c: Campaign) -> tuple[Path, Path]:
    data = campaign_data(c)
    json_path = c.folder / "campaign.json"
    json_path.write_text(json.dumps(data, indent=2))
    html_path = c.folder / "campaign.html"
    html_path.write_text(render_html(data))
    return json_path, html_path


def _svg(draw) -> str:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "campaign"  # stable ids: the same data, the same file
    fig, ax = plt.subplots(figsize=(7, 2.8))
    try:
        draw(ax)
        fig.tight_layout()
        out = io.StringIO()
        fig.savefig(out, format="svg")
    finally:
        plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg") :]


def _examples_plot(data: dict[str, Any]) -> str:
    def draw(ax) -> None:
        for worker in data["workers"]:
            points = worker["timeline"] or [[0, 0]]
            ax.plot([p[0] for p in points], [p[1] for p in points], label=f"worker {worker['index']}")
        ax.set_xlabel("seconds")
        ax.set_ylabel("examples")
        ax.legend(loc="upper left", fontsize=8)

    return _svg(draw)


def _findings_plot(data: dict[str, Any]) -> str:
    def draw(ax) -> None:
        points = data["findingsTimeline"] + [[data["duration"], len(data["findings"])]]
        ax.step([p[0] for p in points], [p[1] for p in points], where="post")
        ax.set_xlabel("seconds")
        ax.set_ylabel("distinct findings")

    return _svg(draw)


def render_html(data: dict[str, Any]) -> str:
    e = html.escape
    rows = []
    for f in data["findings"]:
        rerun = (
            f"<code>{e(COMMAND)} {e(' '.join(data['arguments']))} -k {e(f['case_id'])} "
            f"--db {e(data['database']['given'])}</code> (replays it first)"
        )
        replay = (
            f"<code>{e(COMMAND)} replay {e(f['replay_file'])}</code> (FIXED or STILL FAILING)"
            if f.get("replay_file")
            else f"{rerun}; its frames: <code>{e(COMMAND)} reproduce {e(f['report'])} {e(f['case_id'])}</code>"
        )
        rows.append(
            f"<section class='finding {e(f['confirmed'])}'><h3>{e(f['case_id'])} · {e(f['level'])} · "
            f"{e(f['outcome'])} · {e(f['confirmed'])}</h3>"
            f"<blockquote>{e(f['sentence'])}</blockquote><p>{e(f['message'])}</p>"
            f"<p>rule: {e(str(f['rule']))} · first seen {f['first_seen']} s into the campaign by worker "
            f"{f['worker']} · seen {f['seen']} time(s) · fingerprint {e(f['fingerprint'])}</p>"
            f"<pre>{e(chr(10).join(f['reproduction']))}</pre><p>replay: {replay}</p>"
            f"<p class='small'>{e(f['confirmation'])}</p></section>"
        )
    coverage = "".join(
        f"<tr><td>{e(k)}</td><td>{v}</td></tr>" for k, v in data["coverage"]["transitions"].items()
    )
    states = ", ".join(f"{e(k)} ({v})" for k, v in data["coverage"]["states"].items()) or "none"
    lost = (
        f"<p class='warn'>The example database was lost mid-campaign ({e(data['database']['lost'])}); later rounds "
        f"used the local copy {e(data['database']['local'])}, which holds every example saved.</p>"
        if data["database"]["lost"]
        else ""
    )
    problems = "".join(f"<li>{e(p)}</li>" for p in data["problems"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campaign: {e(data["target"])}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>body{{font-family:sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem}}
pre{{background:#f4f4f4;padding:.5rem;overflow:auto}} .reproduced{{border-left:4px solid #c00;padding-left:.5rem}}
.flaky{{border-left:4px solid #e90;padding-left:.5rem}} .unconfirmed{{border-left:4px solid #888;padding-left:.5rem}}
.warn{{color:#a60}} .small{{font-size:.85em;color:#555}} td{{padding:0 .5rem}}</style></head><body>
<h1>Fuzz campaign: {e(data["target"])}</h1>
<p>{e(" ".join(data["arguments"])) or "(the embedded reference)"} · started {e(data["started"])} · {data["duration"]:.0f} s of
{data["budget"]:.0f} s ({e(data["stoppedBy"])}) · {len(data["workers"])} worker(s) · {data["examples"]} examples ·
{len(data["findings"])} distinct finding(s) · example database {e(data["database"]["given"])}</p>{lost}
<h2>Examples over time</h2>{_examples_plot(data)}
<h2>Findings over time</h2>{_findings_plot(data)}
<h2>Findings</h2>{"".join(rows) or "<p>No finding.</p>"}
<h2>Model coverage</h2><p>States: {states}</p>
<table><tr><th>transition</th><th>steps</th></tr>{coverage}</table>
{"<h2>Problems</h2><ul>" + problems + "</ul>" if problems else ""}
</body></html>
"""
