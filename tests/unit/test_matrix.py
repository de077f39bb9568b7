"""The matrix tells runs apart and writes only where it is told to."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.reports.matrix import load_columns, main, matrix_html, matrix_markdown
from conformance.reports.records import FORMAT, OLD_FORMAT

LONG = "an-agent-whose-name-is-long-enough-to-be-cut-by-a-sixty-character-limit"


def write_report(
    folder: Path, *, name: str, target: str, transport: str, protocol: int | None, old: bool = False
) -> Path:
    """A report.json of the current format, or (``old``) of the one before, whose ``agent`` block
    named every system an agent."""
    folder.mkdir(parents=True)
    system = {"command": ["x"], "transport": transport, "name": name, "version": "1.0"}
    if protocol is not None:
        system["protocol"] = str(protocol)
    described = {"system": system}
    if old:
        agent = {"command": ["x"], "transport": transport, "agentInfo": {"name": name, "version": "1.0"}}
        described = {"agent": agent if protocol is None else {**agent, "protocolVersion": protocol}}
    subject = {"acp": "ACP session/status", "mcp": "MCP session_heartbeat tool"}[target]
    case = {"id": f"{target}.case", "level": "MUST", "spec": {"sentence": "s"}, "outcome": "n/a"}
    report = {
        "format": OLD_FORMAT if old else FORMAT,
        "target": target,
        "subject": subject,
        **described,
        "spec": {"revision": "r"},
        "verdict": {"label": "conformant"},
        "cases": [case, {**case, "id": f"{target}.other", "outcome": "not-testable"}],
    }
    (folder / "report.json").write_text(json.dumps(report))
    return folder / "report.json"


def reports(tmp_path: Path) -> list[Path]:
    return [
        write_report(tmp_path / "a", name=LONG, target="acp", transport="stdio", protocol=1),
        write_report(tmp_path / "b", name=LONG, target="acp", transport="websocket", protocol=1, old=True),
        write_report(tmp_path / "c", name=LONG, target="acp", transport="stdio", protocol=2),
        write_report(tmp_path / "d", name="server", target="mcp", transport="http", protocol=None, old=True),
    ]


def test_columns_are_told_apart_by_target_transport_and_protocol(tmp_path: Path) -> None:
    columns = load_columns(reports(tmp_path))
    labels = [c.label for c in columns]
    assert len(set(labels)) == 4, labels
    assert labels[0].endswith("· acp stdio protocol 1") and labels[2].endswith("· acp stdio protocol 2")
    assert labels[1].endswith("· acp websocket protocol 1")  # an older report, read as well
    assert labels[3] == "server 1.0 · mcp http"
    markdown = matrix_markdown(columns, tmp_path)
    header = next(line for line in markdown.splitlines() if line.startswith("| case |"))
    assert len(set(header.split(" | "))) == len(header.split(" | ")), "Markdown headers collide"
    assert markdown.startswith("## ACP session/status · MCP session\\_heartbeat tool conformance matrix")
    page = matrix_html(columns, tmp_path)
    assert "<title>ACP session/status · MCP session_heartbeat tool conformance matrix</title>" in page
    assert "target, transport" in page and "position:sticky" in page
    assert "#e0e0e0" in page and "#fff59d" in page  # n/a and not testable in their own colours


def test_outputs_go_only_where_told(tmp_path: Path, monkeypatch) -> None:
    paths = [str(p) for p in reports(tmp_path / "runs")]
    monkeypatch.chdir(tmp_path)
    assert main([*paths, "--markdown", "only.md"]) == 0
    assert (tmp_path / "only.md").is_file() and not (tmp_path / "matrix.html").exists()
    assert main([*paths, "-o", "m.html"]) == 0
    assert (tmp_path / "m.html").is_file() and not (tmp_path / "matrix.html").exists()
    assert main(paths) == 0
    assert (tmp_path / "matrix.html").is_file()


def test_a_matrix_for_publication(tmp_path: Path) -> None:
    """One title however the reports spelt their subject, no revision claimed for an agent that
    implements nothing, and links that work where the reports are published (--link-base)."""
    done = write_report(tmp_path / "runs" / "a", name="a", target="acp", transport="stdio", protocol=1)
    legacy = write_report(
        tmp_path / "runs" / "b", name="b", target="acp", transport="stdio", protocol=1, old=True
    )
    data = json.loads(legacy.read_text())
    data["subject"] = "session/status"  # written before reports named their target's subject
    data["verdict"] = {"label": "unimplemented"}
    data["spec"] = {"revision": "rfd-2026-10-26", "why": "the agent does not advertise session/status"}
    legacy.write_text(json.dumps(data))
    columns = load_columns([done, legacy])
    markdown = matrix_markdown(columns, tmp_path)
    assert markdown.startswith("## ACP session/status conformance matrix\n"), markdown.splitlines()[0]
    revision_row = next(line for line in markdown.splitlines() if line.startswith("| revision |"))
    assert revision_row == "| revision | | r | — |"
    assert "](runs/a/report.html#acp.case)" in markdown  # relative to where the matrix is written
    published = matrix_markdown(columns, tmp_path, "https://ci.example/artifacts/42/")
    assert "](https://ci.example/artifacts/42/runs/a/report.html#acp.case)" in published
    page = matrix_html(columns, tmp_path, "https://ci.example/artifacts/42")
    assert "href='https://ci.example/artifacts/42/runs/b/report.html#acp.case'" in page
    assert "<title>ACP session/status conformance matrix</title>" in page
    monkeypatch_dir = tmp_path
    assert (
        main(
            [
                str(done),
                str(legacy),
                "--markdown",
                str(monkeypatch_dir / "m.md"),
                "--link-base",
                "https://x.example",
            ]
        )
        == 0
    )
    assert "](https://x.example/runs/a/report.html#acp.case)" in (monkeypatch_dir / "m.md").read_text()


def test_a_report_of_another_format_is_named_in_one_line(tmp_path: Path) -> None:
    path = write_report(tmp_path / "a", name="a", target="acp", transport="stdio", protocol=1)
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "format": "session-status-conformance/report@9"}))
    assert main([str(path)]) == 2
