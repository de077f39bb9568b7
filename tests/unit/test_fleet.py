"""The fleet's judgement on data: reading a list (the registry's JSON, the suite's TOML, malformed
entries), the exit code, the history against a previous report, --changed-only's reuse, the plan's
matrix, and the rendered reports (escaped, schema-valid). No agent runs here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.fleet import command
from conformance.fleet.entries import Entry, ListError, load_list, platform_key
from conformance.fleet.install import _uv_command as uv_command
from conformance.fleet.install import interpreter
from conformance.fleet.report import EXIT_CODES, badge_svg, exit_code, fleet_html, fleet_markdown, history
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "fleet.schema.json").read_text())


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def registry(tmp_path: Path, agents: list[Any]) -> str:
    return write(tmp_path, "registry.json", json.dumps({"version": "1.0.0", "agents": agents}))


def test_a_registry_entry_takes_the_distribution_the_registry_matrix_would(tmp_path: Path) -> None:
    (entry,) = load_list(
        registry(
            tmp_path,
            [
                {
                    "id": "gemini",
                    "name": "Gemini CLI",
                    "version": "0.37.0",
                    "description": "…",
                    "distribution": {
                        "binary": {platform_key(): {"archive": "a.zip", "cmd": "./g"}},
                        "npx": {
                            "package": "@google/gemini-cli@0.37.1",
                            "args": ["--acp"],
                            "env": {"K": "dummy"},
                        },
                    },
                }
            ],
        )
    )
    assert (entry.kind, entry.package, entry.args, entry.env) == (
        "npx",
        "@google/gemini-cli@0.37.1",
        ("--acp",),
        (("K", "dummy"),),
    )
    assert entry.slug == "gemini@0.37.0" and not entry.problem and not entry.unsupported


def test_every_bad_registry_entry_is_a_row_with_its_reason_and_the_others_still_run(tmp_path: Path) -> None:
    entries = load_list(
        registry(
            tmp_path,
            [
                "a string",
                {"id": "no-dist", "version": "1"},
                {"id": "../escape", "version": "1", "distribution": {"npx": {"package": "x"}}},
                {"id": "docker", "version": "1", "distribution": {"docker": {"image": "x"}}},
                {
                    "id": "mac",
                    "version": "1",
                    "distribution": {"binary": {"darwin-aarch64": {"archive": "a", "cmd": "b"}}},
                },
                {
                    "id": "bad-args",
                    "version": "1",
                    "distribution": {"npx": {"package": "x", "args": "--acp"}},
                },
                {
                    "id": "option-package",
                    "version": "1",
                    "distribution": {"npx": {"package": "--registry=evil"}},
                },
                {"id": "fine", "version": "1", "distribution": {"uvx": {"package": "fine==1"}}},
                {"id": "fine", "version": "1", "distribution": {"uvx": {"package": "fine==1"}}},
            ],
        )
    )
    said = {e.id: e.problem or e.unsupported for e in entries}
    assert said["entry-1"].endswith("entry 1 is not an object")
    assert 'no "distribution"' in said["no-dist"]
    assert 'usable "id"' in said["../escape"]
    assert "unknown distribution kind (docker)" in said["docker"]
    assert f"no binary for this platform ({platform_key()})" in said["mac"]
    assert "args is not a list of strings" in said["bad-args"]
    assert 'no "package"' in said["option-package"]
    fine = [e for e in entries if e.id == "fine"]
    assert not fine[0].problem and "a second entry" in fine[1].problem
    rows = [command.static_row(e) for e in entries if e is not fine[0]]
    assert all(r is not None and r["verdict"] is None and r["reason"] for r in rows)
    assert command.static_row(fine[0]) is None


def test_the_toml_list_carries_the_suites_options(tmp_path: Path) -> None:
    (codex, reference) = load_list(
        write(
            tmp_path,
            "fleet.toml",
            '[defaults]\nmax-prompts = 3\n\n[[agent]]\nid = "codex-acp"\nversion = "0.16.0"\n'
            'npx = { package = "@zed-industries/codex-acp@0.16.0" }\nenv = { OPENAI_API_KEY = "dummy" }\n'
            'auth-method = "openai-api-key"\nargs = ["--timeout", "60"]\n\n'
            '[[agent]]\nid = "ref"\nversion = "1"\ncommand = "{python} -m conformance.reference.acp.agent --protocol 2"\n'
            'protocol = 2\ntransport = "stdio"\ntime-limit = 60\n',
        )
    )
    assert codex.auth_method == "openai-api-key" and codex.env == (("OPENAI_API_KEY", "dummy"),)
    assert codex.suite_args == ("--timeout", "60") and codex.max_prompts == 3
    assert (reference.kind, reference.protocol, reference.time_limit) == ("command", 2, 60.0)
    assert command.action_command(reference) == "python -m conformance.reference.acp.agent --protocol 2"
    assert command.action_command(codex) == "npx --yes @zed-industries/codex-acp@0.16.0"
    assert command.action_args(codex, 20, 900) == (
        "--max-prompts 3 --run-budget 900 --protocol 1 --auth-method openai-api-key --env OPENAI_API_KEY=dummy --timeout 60"
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "not valid JSON"),
        ('{"agents": 3}', 'no "agents" list'),
        ("id = 1", "no [[agent]] tables"),
        ("[[agent]\n", "neither JSON nor valid TOML"),
    ],
)
def test_an_unreadable_list_is_a_usage_error(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ListError, match=said.replace("[", r"\[")):
        load_list(write(tmp_path, "list", text))
    assert command.main([str(tmp_path / "list"), "--out", str(tmp_path / "out")]) == 2


def test_the_example_list_reads_whole() -> None:
    entries = load_list(str(ROOT / "examples" / "fleet.toml"))
    assert not [e.problem for e in entries if e.problem]
    ids = {e.id for e in entries}
    assert {
        "reference-acp-v1",
        "reference-acp-v2",
        "gemini-cli",
        "opencode",
        "codex-acp",
        "qwen-code",
        "fast-agent",
    } <= ids


def row(
    agent_id: str, version: str, verdict: str | None, failing: list[str] | None = None, **more: Any
) -> dict[str, Any]:
    status = more.pop("status", "certified" if verdict else "no-verdict")
    return {
        "id": agent_id,
        "name": agent_id,
        "version": version,
        "slug": f"{agent_id}@{version}",
        "status": status,
        "verdict": verdict,
        "failing": failing or [],
        **more,
    }


def test_the_exit_code_says_whether_every_certifiable_agent_conformed() -> None:
    skipped = row("x", "1", None, status="unsupported", reason="Node 24")
    assert exit_code([row("a", "1", "conformant"), skipped]) == 0
    assert exit_code([row("a", "1", "conformant"), row("b", "1", "unimplemented")]) == 3
    assert exit_code([row("a", "1", "unimplemented"), row("b", "1", "non-conformant")]) == 1
    assert exit_code([row("a", "1", "conformant"), row("b", "1", None, reason="hung")]) == 1
    assert exit_code([skipped]) == 2
    assert set(EXIT_CODES) == {0, 1, 2, 3}


def test_history_names_each_kind_of_change() -> None:
    previous = {
        "agents": [
            row("same", "1", "conformant"),
            row("bumped", "1", "unimplemented"),
            row("broke", "2", "conformant", ["a.rule"]),
            row("gone", "1", "conformant"),
        ]
    }
    now = [
        row("same", "1", "conformant"),
        row("bumped", "2", "unimplemented"),
        row("broke", "2", "non-conformant", ["a.rule", "b.rule"]),
        row("new", "1", "conformant"),
    ]
    changes = history(now, previous)
    assert {"kind": "new-version", "id": "bumped", "from": "1", "to": "2"} in changes
    assert {"kind": "verdict-changed", "id": "broke", "from": "conformant", "to": "non-conformant"} in changes
    assert {"kind": "rule-newly-broken", "id": "broke", "rule": "b.rule"} in changes
    assert {"kind": "new-agent", "id": "new", "to": "1"} in changes
    assert {"kind": "agent-gone", "id": "gone", "from": "1"} in changes
    assert not [c for c in changes if c["id"] == "same"] and not [
        c for c in changes if c.get("rule") == "a.rule"
    ]
    assert history(now, None) == []


def test_changed_only_reuses_a_certified_row_of_the_same_version_and_distribution(tmp_path: Path) -> None:
    (entry,) = load_list(
        registry(tmp_path, [{"id": "a", "version": "1", "distribution": {"npx": {"package": "a@1"}}}])
    )
    old = row("a", "1", "unimplemented", kind="npx", package="a@1", folder="agents/a@1")
    assert command._reusable(entry, old)
    assert not command._reusable(entry, old | {"version": "0.9"})
    assert not command._reusable(entry, old | {"package": "a@0.9"})
    assert not command._reusable(entry, old | {"status": "no-verdict", "verdict": None})
    (tmp_path / "prev" / "agents" / "a@1" / "report").mkdir(parents=True)
    reused = command._reuse(old, tmp_path / "prev", tmp_path / "out")
    assert reused["reused"] and (tmp_path / "out" / "agents" / "a@1" / "report").is_dir()


def test_the_plan_is_a_matrix_of_what_the_action_can_certify(tmp_path: Path) -> None:
    entries = load_list(
        registry(
            tmp_path,
            [
                {
                    "id": "n",
                    "version": "1",
                    "distribution": {"npx": {"package": "n@1", "cmd": "n-acp", "args": ["--acp"]}},
                },
                {"id": "u", "version": "2", "distribution": {"uvx": {"package": "u==2"}}},
                {"id": "docker", "version": "1", "distribution": {"docker": {}}},
            ],
        )
    )
    matrix = command.plan(entries, 0, 5, 300)
    assert [m["id"] for m in matrix["include"]] == ["n", "u"]
    first = matrix["include"][0]
    assert first["command"] == "npx --yes --package=n@1 n-acp --acp" and first["artifact"] == "fleet-n@1"
    assert matrix["include"][1]["command"] == "uvx --from u==2 u"
    shards = command.plan(entries, 3, 5, 300)["include"]
    assert [s["agents"] for s in shards] == ["n", "u"]


def test_the_reports_escape_what_a_registry_or_an_agent_wrote() -> None:
    hostile = "<script>alert(1)</script>"
    rows = [
        row(
            hostile,
            "1|2",
            "non-conformant",
            [f"rule {hostile}"],
            reason=f"x\x1b[31m{hostile}",
            report="agents/x/report/report.html",
        ),
        row("ok", "1", "conformant", revision="rfd-2026-10-26", promptsSent=3, seconds=12.0),
    ]
    for r in rows:
        r["badge"] = f"badges/{r['slug']}.svg"
    fleet = command.fleet_document(
        rows, "list.toml", {"agents": []}, "prev/fleet.json", "2026-12-06T00:00:00+00:00", 1.0
    )
    jsonschema.validate(fleet, SCHEMA)
    page, md, svg = fleet_html(fleet), fleet_markdown(fleet), badge_svg(rows[0])
    for text in (page, svg):
        assert hostile not in text and "\x1b" not in text
    assert "&lt;script&gt;" in page and "new agent" in page
    assert "<script" not in md and "1\\|2" in md
    assert "**CONFORMANT**" in md and "rfd-2026-10-26" in md


def test_the_example_workflow_plans_with_the_list_and_merges_with_the_action_uploads() -> None:
    import yaml

    workflow = yaml.safe_load((ROOT / "examples" / "fleet-nightly.yml").read_text())
    jobs = workflow["jobs"]
    assert set(jobs) == {"plan", "certify", "merge"}
    certify = jobs["certify"]
    assert "fromJSON(needs.plan.outputs.matrix)" in certify["strategy"]["matrix"]
    action = next(
        s
        for s in certify["steps"]
        if str(s.get("uses", "")).endswith("session-status-conformance@v1") or s.get("uses") == "./"
    )
    assert (
        action["with"]["artifact-name"] == "${{ matrix.artifact }}" and action["with"]["fail-job"] == "false"
    )


def test_a_binary_archive_for_this_platform_is_unpacked_once_and_reused(tmp_path: Path) -> None:
    import io
    import tarfile
    import zipfile

    from conformance.fleet.install import InstallError, install

    archive = tmp_path / "agent.tar.gz"
    script = b"#!/bin/sh\necho agent\n"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("dist/agent")
        info.size, info.mode = len(script), 0o644
        tar.addfile(info, io.BytesIO(script))
    spec = {"archive": str(archive), "cmd": "./dist/agent", "args": ["acp"]}
    (entry,) = load_list(
        registry(tmp_path, [{"id": "b", "version": "1", "distribution": {"binary": {platform_key(): spec}}}])
    )
    first = install(entry, tmp_path / "cache")
    assert not first.cached and first.argv[1:] == ["acp"]
    assert Path(first.argv[0]).read_bytes() == script and os.access(first.argv[0], os.X_OK)
    assert install(entry, tmp_path / "cache").cached, "the second run reuses the cache"

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../outside", "x")
    spec = {"archive": str(evil), "cmd": "./outside"}
    (entry,) = load_list(
        registry(tmp_path, [{"id": "e", "version": "1", "distribution": {"binary": {platform_key(): spec}}}])
    )
    with pytest.raises(InstallError, match="outside its folder"):
        install(entry, tmp_path / "cache")
    assert not (tmp_path / "cache" / "binary" / "outside").exists() and not list(
        (tmp_path / "cache" / "binary").glob("e@1*")
    )


def test_merge_joins_a_shards_fleet_report_the_actions_report_folders_and_the_missing(tmp_path: Path) -> None:
    listing = write(
        tmp_path,
        "fleet.toml",
        '[[agent]]\nid = "a"\nversion = "1"\nnpx = { package = "a@1" }\n\n'
        '[[agent]]\nid = "b"\nversion = "2"\nnpx = { package = "b@2" }\n\n'
        '[[agent]]\nid = "c"\nversion = "3"\nnpx = { package = "c@3" }\n\n'
        '[[agent]]\nid = "mac"\nversion = "1"\nbinary = { darwin-aarch64 = { archive = "a.zip", cmd = "./a" } }\n',
    )
    # A shard's `fleet --only a` output: fleet.json with its agent folder.
    shard = tmp_path / "downloads" / "fleet-shard-1"
    (shard / "agents" / "a@1" / "report").mkdir(parents=True)
    (shard / "agents" / "a@1" / "report" / "report.html").write_text("a")
    shard_row = row("a", "1", "unimplemented", folder="agents/a@1", report="agents/a@1/report/report.html")
    # A row naming a folder outside agents/ (a tampered upload) keeps its row, and nothing is copied.
    (tmp_path / "downloads" / "outside").mkdir()
    (tmp_path / "downloads" / "outside" / "planted").write_text("x")
    stray = row("stray", "1", "conformant", folder="../outside")
    shard_doc = command.fleet_document(
        [shard_row, stray], listing, None, None, "2026-12-06T00:00:00+00:00", 1.0
    )
    (shard / "fleet.json").write_text(json.dumps(shard_doc))
    # The Action's upload for b: its report folder, named after the plan's artifact.
    action = tmp_path / "downloads" / "fleet-b@2"
    action.mkdir(parents=True)
    (action / "report.json").write_text(
        json.dumps(
            {
                "verdict": {"label": "non-conformant", "explanation": "a MUST is broken"},
                "spec": {"revision": "rfd-2026-10-26"},
                "agent": {"agentInfo": {"name": "b-agent", "version": "2"}, "protocolVersion": 1},
                "prompts": {"sent": 3},
                "cases": [{"id": "status.result.shape", "outcome": "fail"}, {"id": "x", "outcome": "pass"}],
            }
        )
    )
    out = tmp_path / "merged"
    code = command.main(["merge", str(shard), str(action), "--list", listing, "--out", str(out)])
    merged = json.loads((out / "fleet.json").read_text())
    jsonschema.validate(merged, SCHEMA)
    got = {r["id"]: r for r in merged["agents"]}
    assert [r["id"] for r in merged["agents"]] == ["a", "b", "c", "mac", "stray"], (
        "the list's order, then the rest"
    )
    assert not (tmp_path / "outside").exists() and not list(out.rglob("planted"))
    assert got["a"]["verdict"] == "unimplemented" and (out / got["a"]["report"]).is_file()
    assert got["b"]["verdict"] == "non-conformant" and got["b"]["failing"] == ["status.result.shape"]
    assert (out / got["b"]["report"]).parent.joinpath("report.json").is_file()
    assert got["c"]["status"] == "no-verdict" and "no report folder came back" in got["c"]["reason"]
    assert got["mac"]["status"] == "unsupported"
    assert code == merged["exitCode"] == 1
    assert command.main(["merge", str(tmp_path / "nothing-here"), "--out", str(out)]) == 2


def test_a_list_at_a_url_is_read_once(tmp_path: Path) -> None:
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # the test's output stays quiet
            pass

    registry(tmp_path, [{"id": "a", "version": "1", "distribution": {"npx": {"package": "a@1"}}}])
    handler = partial(Quiet, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        (entry,) = load_list(f"{base}/registry.json")
        assert entry.package == "a@1"
        with pytest.raises(ListError, match="cannot read the fleet list"):
            load_list(f"{base}/missing.json")
    finally:
        server.shutdown()
        server.server_close()


def test_a_package_that_needs_a_newer_node_gets_one_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.fleet import install

    monkeypatch.setattr(install, "_node_major", lambda: 20)
    assert install._node_needed({"engines": {"node": ">=22.0.0"}}) == "22"
    assert install._node_needed({"engines": {"node": ">=18"}}) == ""
    assert install._node_needed({"engines": {"node": "^20 || ^22"}}) == "", "only a lower bound is read"
    assert install._node_needed({}) == ""
    (entry,) = load_list(
        write(
            tmp_path, "f.toml", '[[agent]]\nid = "q"\nversion = "1"\nnpx = { package = "q@1" }\nnode = "24"\n'
        )
    )
    assert entry.node == "24"
    (bad,) = load_list(
        write(
            tmp_path,
            "g.toml",
            '[[agent]]\nid = "q"\nversion = "1"\nnpx = { package = "q@1" }\nnode = "latest"\n',
        )
    )
    assert "node is not a version" in bad.problem


def test_an_entrys_python_is_one_that_runs_on_the_path_or_among_pyenvs_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pyenv shim of a version that is not selected is on the PATH and does not run (exit 127):
    the version's own interpreter is taken instead; a version nowhere on the machine is None."""
    shims, root = tmp_path / "shims", tmp_path / "pyenv"
    shims.mkdir()
    shim = shims / "python3.12"
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n")
    older, own = (root / "versions" / v / "bin" / "python3.12" for v in ("3.12.9", "3.12.10"))
    for program in (older, own):
        program.parent.mkdir(parents=True)
        program.write_text("#!/bin/sh\nexit 0\n")
    for program in (shim, older, own):
        program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYENV_ROOT", str(root))
    assert interpreter("python3.12") == str(own)
    assert interpreter("3.12") == str(own)
    assert interpreter(str(own)) == str(own)
    assert interpreter("python9.7") is None


def test_a_venv_moved_into_the_cache_runs_its_script_through_its_own_python(tmp_path: Path) -> None:
    """A venv is made in a temporary folder and renamed into the cache: its scripts' shebangs still
    name the temporary folder, which is gone."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    script = bin_dir / "agent-acp"
    script.write_text(f"#!{tmp_path}.part-1/venv/bin/python\nimport sys\nprint('ran', *sys.argv[1:])\n")
    script.chmod(0o755)
    entry = Entry("agent", "agent", "1", "uvx", package="agent-acp==1", args=("-x",))
    argv = uv_command(entry, tmp_path)
    assert argv[0] == str(bin_dir / "python")
    assert subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout == "ran -x\n"
    # A path too long for a shebang: pip's and uv's /bin/sh launcher, which execs the same gone path.
    script.write_text(
        f"#!/bin/sh\n'''exec' '{tmp_path}.part-1/venv/bin/python' \"$0\" \"$@\"\n' '''\n"
        "import sys\nprint('ran', *sys.argv[1:])\n"
    )
    argv = uv_command(entry, tmp_path)
    assert argv[0] == str(bin_dir / "python")
    assert subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout == "ran -x\n"
