"""The HTML report and the matrix, rendered by a real headless Chromium (Debian's `chromium`).

Screenshots land in reports/screenshots/ so a person can look at them after a CI run.
`.ci/run` installs Chromium; elsewhere, a machine without it skips these tests with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, RUNNER, agent_command, run_suite

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "reports" / "screenshots"
# A closed network: without these, Chromium keeps trying to reach Google's services.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SUBSET = "unknown-session or result.shape or active.after-new"


@pytest.fixture(scope="module")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the [test] extra")
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run installs Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def open_page(browser, path: Path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.resolve().as_uri())
    return page, requests


def test_report_html_shows_verdict_and_a_failing_transcript(browser, tmp_path: Path) -> None:
    run = run_suite(tmp_path / "run", "--agent", agent_command("unknown_internal_error"), "-k", SUBSET)
    assert run.code == 1, run.stderr
    assert run.report is not None
    page, requests = open_page(browser, tmp_path / "run" / "report.html")
    verdict = page.locator("#verdict")
    assert verdict.is_visible() and verdict.inner_text() == "PARTIAL"  # a -k run gets no certificate
    assert "PARTIAL:" in page.locator("#selection").inner_text()
    failing = page.locator("[id='status.error.unknown-session-code']")
    assert failing.is_visible()
    transcript = failing.locator("details.transcript pre")
    assert transcript.is_visible(), "a failing case's transcript is open by default"
    assert '"method":"session/status"' in transcript.inner_text()
    assert "-32603" in transcript.inner_text()
    passing = page.locator("[id='status.result.shape'] details.transcript pre")
    assert not passing.is_visible(), "a passing case's transcript is folded"
    failures = [c["id"] for c in run.report["cases"] if c["outcome"] in ("fail", "error")]
    assert failures
    for case_id in failures:  # each with its reproduction, a block to select and copy
        block = page.locator(f"[id='{case_id}'] pre.repro")
        assert block.is_visible(), case_id
        assert '"method":"initialize"' in block.inner_text().replace(" ", ""), case_id
    assert [u for u in requests if not u.startswith("file://")] == [], (
        "the report loads nothing from the network"
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "report.png"), full_page=True)
    page.close()


def test_matrix_of_reference_and_three_broken_agents(browser, tmp_path: Path) -> None:
    agents = {"reference": None, "no_error_data": 1, "unknown_internal_error": 1, "wrong_error_message": 0}
    reports = []
    cases: dict[str, str] = {}
    for name, code in agents.items():
        args = ["-k", SUBSET] + ([] if code is None else ["--agent", agent_command(name)])
        run = run_suite(tmp_path / name, *args)
        assert run.code == (code or 0), run.stderr
        cases = run.outcomes  # the same cases in every report
        reports.append(str(tmp_path / name / "report.json"))
    out = tmp_path / "matrix.html"
    subprocess.run([sys.executable, str(RUNNER), "matrix", *reports, "-o", str(out)], check=True, cwd=ROOT)
    page, requests = open_page(browser, out)
    headers = page.locator("#matrix tr").first.locator("th")
    assert headers.count() == 2 + len(agents)
    labels = [headers.nth(i).inner_text() for i in range(2, headers.count())]
    assert len(set(labels)) == len(labels) and all("acp stdio protocol 1" in label for label in labels), (
        labels
    )
    assert page.locator("#matrix tr").count() == 4 + len(cases)  # verdict, transport, revision
    assert page.title() == "ACP session/status conformance matrix"
    assert page.locator("#legend span").all_inner_texts() == [
        "pass",
        "fail",
        "warn",
        "info",
        "error",
        "not-testable",
        "n/a",
        "unimplemented",
    ]
    # Seventeen runs: thirteen more, as other agents' reports (names, versions, transports and
    # protocol versions vary as they do between real agents), each column still told apart.
    for index in range(13):
        data = json.loads(Path(reports[index % len(reports)]).read_text())
        system = data["system"]
        system["name"], system["version"] = f"agent-{index % 5}", f"0.{index // 5}"
        system["transport"] = ("stdio", "websocket", "http")[index % 3]
        system["protocol"] = str(1 + index % 2)
        folder = tmp_path / f"other-{index}"
        folder.mkdir()
        (folder / "report.json").write_text(json.dumps(data))
        reports.append(str(folder / "report.json"))
    wide = tmp_path / "matrix17.html"
    subprocess.run([sys.executable, str(RUNNER), "matrix", *reports, "-o", str(wide)], check=True, cwd=ROOT)
    page17, _ = open_page(browser, wide)
    labels17 = page17.locator("#matrix tr").first.locator("th").all_inner_texts()[2:]
    assert len(labels17) == 17 and len(set(labels17)) == 17, labels17
    SHOTS.mkdir(parents=True, exist_ok=True)
    page17.screenshot(path=str(SHOTS / "matrix-17-runs.png"), full_page=True)
    page17.close()
    # The case column stays in view when the table scrolls sideways.
    narrow = browser.new_page(viewport={"width": 420, "height": 600})
    narrow.goto(wide.resolve().as_uri())
    narrow.evaluate("window.scrollTo(600, 0)")
    assert narrow.evaluate("window.scrollX") > 0, "the narrow page did not scroll"
    box = narrow.locator("#matrix td.case").first.bounding_box()
    assert box is not None and box["x"] >= 0, "the case column scrolled out of view"
    narrow.screenshot(path=str(SHOTS / "matrix-scrolled.png"))
    narrow.close()
    cell = page.locator("#matrix td a", has_text="FAIL").first
    assert cell.is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "matrix.png"), full_page=True)
    cell.click()  # a cell opens that case in that agent's report
    page.wait_for_load_state()
    assert page.url.endswith("/report.html#status.error.unknown-session-code") or "#status.error." in page.url
    case_id = page.url.rsplit("#", 1)[1]
    assert page.locator(f"[id='{case_id}'] details.transcript pre").is_visible()
    assert [u for u in requests if not u.startswith("file://")] == []
    page.close()


def test_fleet_page_shows_a_row_per_agent_its_badge_and_the_history(browser, tmp_path: Path) -> None:
    from conformance.fleet.command import fleet_document
    from conformance.fleet.report import write_fleet

    hostile = "<img src=x onerror=\"document.title='pwned'\">"
    report = tmp_path / "agents" / "ref@1" / "report" / "report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<!doctype html><title>ref report</title><p>ref</p>")
    rows = [
        {
            "id": "ref",
            "name": "reference",
            "version": "1",
            "slug": "ref@1",
            "status": "certified",
            "verdict": "conformant",
            "revision": "rfd-2026-10-26",
            "failing": [],
            "promptsSent": 4,
            "seconds": 21.0,
            "report": "agents/ref@1/report/report.html",
        },
        {
            "id": "broken",
            "name": hostile,
            "version": "2",
            "slug": "broken@2",
            "status": "certified",
            "verdict": "non-conformant",
            "revision": "rfd-2026-10-26",
            "failing": ["status.result.shape"],
            "initialize": {"protocolVersion": 1, "agentInfo": {"name": hostile, "version": "2"}},
        },
        {
            "id": "qwen",
            "name": "Qwen Code",
            "version": "0.24.4",
            "slug": "qwen@0.24.4",
            "status": "unsupported",
            "verdict": None,
            "reason": "needs Node >=22.0.0 (engines.node); this machine has Node 20",
        },
    ]
    previous = {"agents": [dict(rows[1], version="1", verdict="conformant", failing=[])]}
    write_fleet(
        tmp_path,
        fleet_document(rows, "fleet.toml", previous, "prev/fleet.json", "2026-12-06T00:00:00+00:00", 30.0),
    )
    page, requests = open_page(browser, tmp_path / "fleet.html")
    table = page.locator("#fleet tbody tr")
    assert table.count() == 3
    assert page.locator("tr[data-agent='ref'] .verdict").inner_text() == "conformant"
    assert "Node >=22" in page.locator("tr[data-agent='qwen']").inner_text()
    assert hostile in page.locator("tr[data-agent='broken']").inner_text(), "an agent's name is shown as text"
    assert page.title() != "pwned"
    initialize = page.locator("tr[data-agent='broken'] details.initialize")
    initialize.locator("summary").click()
    assert '"protocolVersion": 1' in initialize.locator("pre").inner_text(), "what initialize said, unfolded"
    for i in range(3):  # every badge is an SVG file beside the page, and it loads
        assert table.nth(i).locator("img").evaluate("img => img.complete && img.naturalWidth > 0")
    kinds = page.locator("#changes li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert {"new-version", "verdict-changed", "rule-newly-broken", "new-agent"} <= set(kinds)
    assert page.locator("#exit-code").inner_text() == "1"
    assert [u for u in requests if not u.startswith("file://")] == [], (
        "the page loads nothing from the network"
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "fleet.png"), full_page=True)
    page.locator("tr[data-agent='ref'] a").click()
    assert page.title() == "ref report", "the row links to the agent's report"
    page.close()
