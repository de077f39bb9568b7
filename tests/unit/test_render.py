"""The human formats escape everything the agent sent and load nothing from outside."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from conformance.reports.records import CaseOutcome
from conformance.reports.render import badge_svg, html_report, markdown_summary, watched_text

HOSTILE = "\x1b[31m<script>alert(1)</script> | `x` ** [l](http://evil) </pre><img src=x onerror=alert(2)>"


def report() -> dict:
    case = {
        "id": "status.error.unknown-session-data",
        "title": "t",
        "level": "MUST",
        "area": "status.error",
        "needs": [],
        "spec": {"source": "s", "section": "x", "sentence": "A session the Agent does not know gets -32002."},
        "outcome": "fail",
        "message": HOSTILE,
        "expected": {"sessionId": "a"},
        "observed": HOSTILE,
        "duration": 0.1,
        "transcript": [{"index": 0, "dir": "recv", "t": 0.1, "frame": HOSTILE}],
        "stderr": HOSTILE,
        "reproduction": [],
        "details": {},
    }
    outcomes = ["pass", "fail", "warn", "info", "unimplemented", "n/a", "not-testable", "error"]
    row = dict.fromkeys(outcomes, 0) | {"fail": 1}
    return {
        "target": "acp",
        "subject": "ACP session/status",
        "suite": {"version": "0.1.0"},
        "spec": {"revision": "rfd-2026-10-26"},
        "system": {"command": ["agent", HOSTILE], "name": HOSTILE, "version": "1"},
        "started": "2026-11-30T00:00:00",
        "options": {"seed": 0},
        "verdict": {"label": "non-conformant", "exitCode": 1, "explanation": "x"},
        "counts": {
            "total": 1,
            "by_outcome": row,
            "by_level": {"MUST": row, "SHOULD": dict.fromkeys(outcomes, 0)},
        },
        "cases": [case],
    }


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_html_escapes_agent_strings_and_is_self_contained() -> None:
    page = html_report(report())
    parser = Tags()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert not any(name in ("src", "href") for name, _ in parser.attrs)
    assert "&lt;script&gt;" in page and "\x1b" not in page and "\\x1b" in page
    assert "default-src 'none'" in page
    assert "id='verdict'" in page and "NON-CONFORMANT" in page


def test_markdown_escapes_agent_strings() -> None:
    text = markdown_summary(report())
    unescaped = text.replace("\\]", "").replace("\\[", "")  # an escaped bracket cannot open a link
    assert "<script>" not in text and "](http" not in unescaped and "\x1b" not in text
    failing_row = next(line for line in text.splitlines() if "unknown-session-data" in line)
    assert failing_row.count(" | ") == 4  # the agent's '|' did not add a column


def test_badge_is_valid_svg() -> None:
    root = ET.fromstring(badge_svg(report()))
    assert root.tag.endswith("svg")
    assert "ACP session/status: non-conformant · rfd-2026-10-26 · 0/1" in "".join(root.itertext())


def test_badges_share_one_prefix_and_score_only_a_certificate() -> None:
    """One prefix whatever wrote the report (older reports, read by read_report, said only
    session/status or no subject), and an agent without the method reads `unimplemented`, not a
    score."""
    from conformance.reports.records import OLD_FORMAT, upgraded

    texts = [ET.fromstring(badge_svg(report())).get("aria-label")]
    for subject in ("ACP session/status", "session/status", None):
        older = {k: v for k, v in report().items() if k not in ("system", "subject")}
        body = older | {"format": OLD_FORMAT, "agent": {"command": ["agent"]}}
        if subject is not None:
            body["subject"] = subject
        texts.append(ET.fromstring(badge_svg(upgraded(body))).get("aria-label"))
    assert len(set(texts)) == 1 and texts[0] is not None and texts[0].startswith("ACP session/status: "), (
        texts
    )
    unimplemented = report() | {"verdict": {"label": "unimplemented", "exitCode": 3, "explanation": "x"}}
    assert ET.fromstring(badge_svg(unimplemented)).get("aria-label") == "ACP session/status: unimplemented"


def test_summaries_keep_the_suites_hint_after_a_long_quote() -> None:
    """An agent's long answer is cut where the suite quotes it, with an ellipsis; the summary shows
    the suite's words after it, the option to pass included."""
    from conformance.core.outcomes import shorten

    quote = shorten("Requires an API key. " * 40, 120)
    body = report()
    body["fatal"] = (
        f"cannot certify: the agent requires authentication; session/new answered {quote}; pass --auth-method ID"
    )
    body["cases"][0]["message"] = (
        f"not testable: session/new answered {quote}; the case needs --auth-method ID"
    )
    md = markdown_summary(body)
    assert md.count("pass --auth-method ID") == 1 and "the case needs --auth-method ID" in md
    assert "…" in md
    from conformance.reports.render import md_text

    assert md_text("x" * 400) == "x" * 400  # one word (a path, an id) is never cut up to four times the bound
    assert md_text("word " * 400, 300).endswith("more chars\\]")


def test_every_format_says_what_the_run_cost() -> None:
    body = report() | {
        "target": "acp",
        "duration": 412.3,
        "prompts": {"sent": 27, "limit": None, "notSent": []},
    }
    assert "27 prompt(s) sent" in markdown_summary(body) and "wall time 412 s" in markdown_summary(body)
    assert "27 prompt(s) sent" in html_report(body)
    capped = body | {"prompts": {"sent": 0, "limit": 0, "notSent": ["a", "b"]}}
    assert "0 prompt(s) of at most 0 (--max-prompts) sent" in markdown_summary(capped)
    assert "2 case(s) not testable for want of one" in markdown_summary(capped)


def test_coverage_lists_cases_without_a_verdict_with_what_to_pass() -> None:
    """'see Coverage' points at a section that exists, in every output."""
    body = report()
    gap = dict(
        body["cases"][0],
        id="status.connections.no-attach",
        outcome="not-testable",
        message="needs two connections to one agent: pass --transport websocket " + HOSTILE,
    )
    body["cases"].append(gap)
    html = html_report(body)
    assert "id='coverage'" in html and "status.connections.no-attach" in html
    assert "<script>alert(1)" not in html
    md = markdown_summary(body)
    assert "#### Coverage" in md and "pass --transport websocket" in md
    clean_body = report()
    assert "Coverage" not in markdown_summary(clean_body) and "id='coverage'" not in html_report(clean_body)


def test_terminal_coverage_wraps_reasons_at_the_terminal_width(monkeypatch) -> None:
    from conformance.reports.records import CaseOutcome
    from conformance.reports.report import RunReport

    monkeypatch.setenv("COLUMNS", "80")
    run = RunReport(
        command=["agent"], transport="stdio", cwd="/", strict=False, timeout=10, profile="ci", seed=0
    )
    reason = "needs two connections to one agent: serve it over WebSocket or Streamable HTTP (--transport websocket)"
    run.add(
        CaseOutcome.from_json(
            {
                "id": "status.connections.no-attach",
                "level": "MUST",
                "outcome": "not-testable",
                "message": reason,
            }
        )
    )
    lines = run.summary_lines()
    start = lines.index("Coverage: cases that ran to no verdict, why, and what to pass to test them:")
    shown = lines[start + 1 :]
    assert all(len(line) <= 80 for line in shown) and len(shown) >= 2
    assert " ".join(line.strip() for line in shown).endswith("(--transport websocket)")


def test_coverage_says_how_long_the_run_watched() -> None:
    body = report()
    body["cases"][0] = dict(body["cases"][0], details={"watched": 7.5, "waits": [0.5, 1.0, 2.0, 3.0, 1.0]})
    md, html = markdown_summary(body), html_report(body)
    assert "#### Coverage" in md and "longest watch of one session in this run was 7.5 s" in md
    assert "waits of 0.5, 1, 2, 3, 1 s" in md and "id='coverage'" in html and "7.5 s" in html
    hostile = dict(body["cases"][0], details={"watched": "<script>", "waits": "x"})
    assert "Coverage" not in markdown_summary(report() | {"cases": [hostile]})
    typed = CaseOutcome.from_json(body["cases"][0])  # the run's own records, as its summary lines give them
    assert "7.5 s, by " + typed.id in (watched_text([typed]) or "")
    assert watched_text([CaseOutcome.from_json(dict(hostile, details=["not", "a", "dict"]))]) is None
