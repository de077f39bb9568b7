"""Certifies one installed agent: the suite's own console script as a subprocess, in a fresh HOME
and working directory, with a prompt budget and a time limit, and nothing left running after it.

The suite runs in a session of its own; every process it starts (the agent, the agent's children)
inherits a marker variable, so a process that escaped the agent's process group (a daemon, a
``setsid`` child) is still found afterwards, named in the row and ended.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.fleet.entries import Entry

__all__ = ["Limits", "certify_entry", "row_from_report", "suite_command", "sweep"]

MARKER = "SESSION_STATUS_CONFORMANCE_FLEET_RUN"
# Names of variables a fresh HOME must not carry over from the machine: an agent certified here gets
# only the dummy keys its entry gives it.
_CREDENTIAL_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
LOG_TAIL = 4000


@dataclass(frozen=True)
class Limits:
    max_prompts: int = 20
    time_limit: float = 900.0
    grace: float = 20.0  # after SIGTERM, the suite's time to write its partial report
    # The suite's --timeout: a released agent's first initialize in a fresh HOME can take 10 s and
    # more on a loaded machine (the registry's own matrix waits 120 s for it).
    timeout: float = 30.0


def suite_command() -> list[str]:
    """The suite's console script beside this Python, or ``python -m conformance``."""
    script = Path(sys.executable).with_name("session-status-conformance")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "conformance"]


def suite_argv(entry: Entry, agent: list[str], report_dir: Path, cwd: Path, limits: Limits) -> list[str]:
    max_prompts = entry.max_prompts if entry.max_prompts is not None else limits.max_prompts
    time_limit = entry.time_limit if entry.time_limit is not None else limits.time_limit
    argv = [
        *suite_command(),
        "--agent",
        shlex.join(agent),
        "--report-dir",
        str(report_dir),
        "--cwd",
        str(cwd),
        "--max-prompts",
        str(max_prompts),
        # The suite's own budget ends the run with a report before the fleet's hard limit does.
        "--run-budget",
        str(max(10.0, time_limit - limits.grace - 10.0)),
        "--protocol",
        str(entry.protocol),
        "-q",
    ]
    if entry.transport != "stdio":
        argv += ["--transport", entry.transport]
    if "--timeout" not in entry.suite_args:
        argv += ["--timeout", str(limits.timeout)]
    if entry.auth_method:
        argv += ["--auth-method", entry.auth_method]
    for key, value in entry.env:
        argv += ["--env", f"{key}={value}"]
    return argv + list(entry.suite_args)


def fresh_environment(home: Path, mark: str, entry: Entry, path: str = "") -> dict[str, str]:
    given = {key for key, _ in entry.env}
    env = {
        k: v
        for k, v in os.environ.items()
        if (not any(w in k.upper() for w in _CREDENTIAL_WORDS) and not k.startswith(("PYTEST_", "XDG_")))
        or k in given
    }
    env |= {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        MARKER: mark,
        "NO_COLOR": "1",
    }
    if path:
        env["PATH"] = os.pathsep.join([path, env.get("PATH", "")])
    return env


def certify_entry(
    entry: Entry, agent: list[str], folder: Path, limits: Limits, path: str = ""
) -> dict[str, Any]:
    """Runs the suite on one agent into ``folder`` (report/, suite.log); what the row says of it."""
    report_dir = folder / "report"
    work = folder / "work"
    shutil.rmtree(report_dir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    home, cwd = work / "home", work / "cwd"
    home.mkdir(parents=True)
    cwd.mkdir(parents=True)
    mark = uuid.uuid4().hex
    argv = suite_argv(entry, agent, report_dir, cwd, limits)
    time_limit = entry.time_limit if entry.time_limit is not None else limits.time_limit
    log_path = folder / "suite.log"
    started = time.monotonic()
    timed_out = False
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=fresh_environment(home, mark, entry, path),
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            # SIGTERM: the suite stops as on Ctrl-C (its partial report, the agent's group ended).
            _signal_group(process.pid, signal.SIGTERM)
            try:
                code = process.wait(timeout=limits.grace)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
                code = process.wait()
    seconds = time.monotonic() - started
    _signal_group(process.pid, signal.SIGKILL)  # anything of the suite's own session still there
    left = sweep(mark)
    shutil.rmtree(work, ignore_errors=True)
    row = row_from_report(report_dir / "report.json")
    row["exitCode"] = code
    row["seconds"] = round(seconds, 1)
    row["suiteCommand"] = argv
    row["log"] = "suite.log"
    if left:
        row["leftProcesses"] = left
    last = _last_line(log_path)
    if timed_out:
        row["status"] = "no-verdict" if row.get("verdict") is None else row["status"]
        row["reason"] = f"the certification did not end within the time limit ({time_limit:.0f} s)" + (
            f"; the suite's partial report says: {row['reason']}" if row.get("reason") else ""
        )
    elif row.get("verdict") is None and not row.get("reason"):
        row["reason"] = last or f"the suite ended with exit code {code} and no report"
    if left:
        names = ", ".join(f"{p['pid']} {p['name']}" for p in left[:5])
        note = f"left {len(left)} process(es) running after the run, ended by the fleet: {names}"
        row["reason"] = f"{row['reason']}; {note}" if row.get("reason") else note
    return row


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _last_line(path: Path) -> str:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_TAIL))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""


def sweep(mark: str) -> list[dict[str, Any]]:
    """Every process that still carries this run's marker, ended (SIGKILL); what they were."""
    found: list[dict[str, Any]] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    needle = f"{MARKER}={mark}".encode()
    for _ in range(3):  # a process may fork while the first pass ends its parent
        pids = []
        for entry in proc.iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
        if not pids:
            break
        for pid in pids:
            try:
                name = (proc / str(pid) / "comm").read_text().strip()
            except OSError:
                name = "?"
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                if all(p["pid"] != pid for p in found):
                    found.append({"pid": pid, "name": name[:40]})
        time.sleep(0.2)
    return found


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def row_from_report(path: Path) -> dict[str, Any]:
    """What a fleet row takes from a run's report.json (absent or unreadable: a row without a verdict)."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"status": "no-verdict", "verdict": None}
    except (OSError, ValueError) as exc:
        return {"status": "no-verdict", "verdict": None, "reason": f"the report is unreadable: {exc}"}
    if not isinstance(report, dict):
        return {"status": "no-verdict", "verdict": None, "reason": "the report is not an object"}
    verdict, spec, prompts = (_object(report.get(k)) for k in ("verdict", "spec", "prompts"))
    # A fleet certifies ACP agents: initialize's fields are the report's `acp` block (report@1: `agent`).
    agent = _object(report.get("acp")) or _object(report.get("agent"))
    wire = report.get("wire") if isinstance(report.get("wire"), dict) else None
    cases: list[Any] = report["cases"] if isinstance(report.get("cases"), list) else []
    label = verdict.get("label") if isinstance(verdict.get("label"), str) else None
    failing = sorted(
        {
            str(c.get("id"))[:200]
            for c in cases
            if isinstance(c, dict) and c.get("outcome") in ("fail", "error")
        }
    )
    warned = sorted(
        {str(c.get("id"))[:200] for c in cases if isinstance(c, dict) and c.get("outcome") == "warn"}
    )
    row: dict[str, Any] = {
        "status": "certified" if label and label != "error" else "no-verdict",
        "verdict": label if label != "error" else None,
        "explanation": str(verdict.get("explanation") or "")[:1000],
        "revision": spec.get("revision"),
        "revisionWhy": str(spec.get("why") or "")[:300],
        "wire": wire,
        "initialize": {
            "protocolVersion": agent.get("protocolVersion"),
            "agentInfo": agent.get("agentInfo"),
            "agentCapabilities": agent.get("agentCapabilities"),
        },
        "promptsSent": prompts.get("sent"),
        "failing": failing,
        "warnings": warned,
        "counts": (report.get("counts") or {}).get("by_outcome")
        if isinstance(report.get("counts"), dict)
        else None,
        "report": "report/report.html",
        "incomplete": bool(report.get("incomplete")),
    }
    fatal = report.get("fatal")
    if label in (None, "error"):
        row["reason"] = str(fatal or verdict.get("explanation") or "the run gave no verdict")[:1000]
    return row
