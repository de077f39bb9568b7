"""Fuzz campaigns end to end, against a real Redis (Debian's redis-server, started here on a free
127.0.0.1 port): two campaigns, standing in for two machines, share one example database; a
later normal run given the same --db replays what they found first. And the faults: Redis
unreachable at the start, Ctrl-C mid-campaign."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance.campaign.command import read_json
from tests.conftest import AGENTS, REFERENCE_MODULE, ROOT, agent_command, python_command
from tests.e2e.test_chromium import browser, open_page  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
SEQ = "sequence.status.model-based"


def rare() -> str:
    """Found by the model-based sequences now and then: the ci run at seed 7 alone misses it.
    Agents start through the fork server: a round of a campaign is a run of its own, and would
    otherwise pay a second of SDK imports per agent."""
    return agent_command("rare_meta_attaches")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(redis_server: tuple[str, subprocess.Popen]) -> str:
    return redis_server[0]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    if not Path(REDIS).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{REDIS} is missing; .ci/run installs Debian's redis-server package")
        pytest.skip(f"{REDIS} is missing (apt-get install redis-server); .ci/run installs it")
    port = free_port()
    server = subprocess.Popen(
        [
            REDIS,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("redis-server did not start")
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", server
    finally:
        server.terminate()
        server.wait(timeout=10)


def conformance(cwd: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


# Ctrl-C's default action for the campaign, as a terminal gives it: a CI step run in the background
# inherits SIGINT ignored, and the test's SIGINT would then never arrive.
WITH_CTRL_C = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def start_campaign(folder: Path, *args: str) -> subprocess.Popen:
    folder.parent.mkdir(parents=True, exist_ok=True)
    campaign = [sys.executable, "-m", "conformance", "campaign", "--report-dir", str(folder), *args]
    return subprocess.Popen(
        [sys.executable, "-c", WITH_CTRL_C, *campaign],
        cwd=folder.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def sequence_outcome(run: subprocess.CompletedProcess, folder: Path) -> str:
    report = json.loads((folder / "report.json").read_text())
    return next(c["outcome"] for c in report["cases"] if c["id"] == SEQ)


def reports(folder: Path) -> list[dict]:
    """The reports the campaign's rounds have written so far."""
    read = (read_json(path) for path in folder.glob("worker-*/round-*/report.json"))
    return [report for report in read if report is not None]  # None: a round still writing it


def failed(report: dict, case_id: str) -> bool:
    return any(c["id"] == case_id and c["outcome"] == "fail" for c in report["cases"])


def wait_until(
    campaign: subprocess.Popen,
    ready: Callable[[], bool],
    within: float,
    what: str = "the campaign never got there",
) -> None:
    """Until ``ready()``: the test waits for what it needs, not for a duration a loaded machine
    may not fit it into."""
    deadline = time.monotonic() + within
    while not ready():
        assert time.monotonic() < deadline and campaign.poll() is None, what
        time.sleep(0.2)


def round_started(folder: Path, number: int) -> Callable[[], bool]:
    return lambda: (folder / "worker-0" / f"round-{number:03d}" / "progress.json").is_file()


def round_ran_examples(folder: Path, number: int) -> Callable[[], bool]:
    progress = folder / "worker-0" / f"round-{number:03d}" / "progress.json"
    return lambda: sum(((read_json(progress) or {}).get("examples") or {}).values()) > 0


def interrupt_once(campaign: subprocess.Popen, ready: Callable[[], bool], within: float = 180) -> None:
    """Ctrl-C for the campaign once ``ready()``."""
    wait_until(campaign, ready, within)
    campaign.send_signal(signal.SIGINT)


def test_two_machines_share_a_finding_through_redis(redis_url: str, tmp_path: Path, browser) -> None:  # noqa: F811
    # The ci profile at seed 7 misses the bug on its own (calibration); campaigns draw as ci does.
    normal = ("--seed", "7", "-k", "model-based", "--agent", rare())
    alone = conformance(tmp_path, *normal, "--report-dir", str(tmp_path / "alone"))
    assert sequence_outcome(alone, tmp_path / "alone") == "pass", alone.stderr[-2000:]

    args = ("-k", "model-based", "--duration", "75s", "--round", "25s", "--workers", "1", "--db", redis_url)
    args += ("--agent", rare())
    # The bug is rare by design (the ci run finds it at about one seed in four): a round of 25 s
    # finds it about every other time, fewer on a loaded machine, so each campaign may run three
    # rounds and a second try keeps an unlucky draw from failing the build (it is the sharing that
    # is tested here). Both are stopped (Ctrl-C) once a round has reported the finding and each has
    # run a round: what they do then is what they do at their end.
    for attempt in ("first", "second"):
        names = [f"{attempt}-a", f"{attempt}-b"]
        machines = [start_campaign(tmp_path / name, *args) for name in names]
        stop_when_found(machines, [tmp_path / name for name in names])
        data = []
        for machine, name in zip(machines, names, strict=True):
            _, err = machine.communicate(timeout=300)
            data.append(json.loads((tmp_path / name / "campaign.json").read_text()))
            # 1 when this campaign holds a finding not shown flaky, else 0 (never a harness error, 2).
            held = [f for f in data[-1]["findings"] if f["confirmed"] != "flaky"]
            assert machine.returncode == (1 if held else 0), err[-3000:]
        found = [f for d in data for f in d["findings"] if f["case_id"] == SEQ]
        if found:
            break
    assert found, "neither campaign found the rare bug, twice"
    assert "reproduced" in {f["confirmed"] for f in found}, found
    assert all(f["replay_file"] and Path(f["replay_file"]).is_file() for f in found)
    assert all(d["database"]["given"] == redis_url and d["database"]["lost"] is None for d in data)
    assert all(d["examples"] > 0 and d["coverage"]["transitions"] for d in data)

    import redis

    assert redis.Redis.from_url(redis_url).dbsize() > 0  # the finding is in the shared database

    # The next pull request's run, given the same --db: the same run now replays it first.
    after = conformance(tmp_path, *normal, "--db", redis_url, "--report-dir", str(tmp_path / "after"))
    assert sequence_outcome(after, tmp_path / "after") == "fail", after.stderr[-2000:]
    assert after.returncode == 1

    finder = next(n for n, d in zip(names, data, strict=True) if d["findings"])
    page, requests = open_page(browser, tmp_path / finder / "campaign.html")
    assert page.locator("h1").inner_text().startswith("Fuzz campaign")
    assert page.locator("svg").count() == 2
    assert SEQ in page.locator("section.finding").first.inner_text()
    assert all(url.startswith("file:") for url in requests)
    page.close()


def stop_when_found(machines: list[subprocess.Popen], folders: list[Path]) -> None:
    """Ctrl-C for every machine once one has reported the sequence failure and each has run
    examples in a round; nothing if they all end first (their duration)."""

    def ran_examples(folder: Path) -> bool:
        return any(
            sum((read_json(path) or {}).get("examples", {}).values()) > 0
            for path in folder.glob("worker-*/round-*/progress.json")
        )

    while any(m.poll() is None for m in machines):
        found = any(failed(r, SEQ) for folder in folders for r in reports(folder))
        if found and all(ran_examples(folder) for folder in folders):
            for machine in machines:
                if machine.poll() is None:
                    machine.send_signal(signal.SIGINT)
            return
        time.sleep(0.2)


def test_unreachable_redis_is_a_one_line_usage_error(tmp_path: Path) -> None:
    run = conformance(
        tmp_path,
        "campaign",
        "--duration",
        "10s",
        "--db",
        f"redis://127.0.0.1:{free_port()}/0",
        "--agent",
        rare(),
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith("error: --db redis://127.0.0.1:")
    assert "cannot reach Redis" in run.stderr


@pytest.mark.parametrize(
    ("keyword", "says"),
    [
        ("sequence(x=1)", "keyword expressions take no call parameters"),
        ("nomatchword", "selects none of fuzz.status.params"),
        ("sequence and (", "-k 'sequence and ('"),
    ],
)
def test_a_keyword_a_campaign_cannot_use_is_a_one_line_usage_error(
    tmp_path: Path, keyword: str, says: str
) -> None:
    """-k as pytest takes it: a call's parameters, a word no case has and a broken expression are
    each one line and exit 2, before any agent starts."""
    run = conformance(tmp_path, "campaign", "--duration", "10s", "-k", keyword, "--agent", rare())
    assert run.returncode == 2, run.stderr
    last = run.stderr.strip().splitlines()
    assert len(last) == 1 and last[0].startswith("error: ") and says in last[0], run.stderr


def test_an_http_campaign_finds_and_replays_a_fuzz_finding(tmp_path: Path) -> None:
    """`campaign --http-cmd`: the generated session-id forms find a status route that folds ids
    to NFKC; the finding's replay file (its shrunk form) confirms it. The campaign is stopped
    once a round has reported the finding (what it then does is the same as at its end)."""
    folder = tmp_path / "http"
    nfkc = agent_command("http/status_id_nfkc", "--listen", "127.0.0.1:0")
    campaign = start_campaign(
        folder, "--duration", "10m", "--round", "4s", "--workers", "1", "--http-cmd", nfkc
    )
    interrupt_once(campaign, lambda: any(failed(r, "http.fuzz.session-id-forms") for r in reports(folder)))
    _, err = campaign.communicate(timeout=120)
    assert campaign.returncode == 1, err[-3000:]
    data = json.loads((folder / "campaign.json").read_text())
    (finding,) = data["findings"]
    assert finding["case_id"] == "http.fuzz.session-id-forms" and "messages answer 404" in finding["message"]
    assert finding["confirmed"] == "reproduced", finding["confirmation"]
    replay = json.loads(Path(finding["replay_file"]).read_text())
    assert replay["target"] == "http" and replay["input"]["edits"]
    schema = json.loads((ROOT / "schemas" / "replay.schema.json").read_text())
    Draft202012Validator(schema).validate(replay)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "SIGTERM"])
def test_ctrl_c_ends_the_campaign_with_a_partial_report(tmp_path: Path, sig: int) -> None:
    """Ctrl-C, and SIGTERM (a CI job's timeout) alike."""
    folder = tmp_path / "stopped"
    # A plain agent process, as for every test about signals: the Ctrl-C reaches the round's
    # whole process group, agent included.
    plain = f"{sys.executable} {AGENTS / 'acp' / 'rare_meta_attaches.py'}"
    campaign = start_campaign(
        folder, "--duration", "10m", "--round", "30s", "--workers", "1", "--agent", plain
    )
    wait_until(campaign, round_ran_examples(folder, 1), 120, "no round ran an example")
    campaign.send_signal(sig)
    stopped = time.monotonic()
    _, err = campaign.communicate(timeout=60)
    took = time.monotonic() - stopped
    assert took < 40, f"{took:.1f} s after Ctrl-C"  # a generous bound on a hang, not a timing test
    data = json.loads((folder / "campaign.json").read_text())
    log = (folder / "worker-0" / "round-001" / "round.log").read_text(errors="replace")[-3000:]
    assert "campaign interrupted" in err.strip().splitlines()[-1], f"{err[-1000:]}\n{data['workers']}\n{log}"
    assert data["stoppedBy"] == "interrupt"
    assert data["examples"] > 0
    assert ROOT.exists()


def test_redis_lost_mid_campaign_goes_on_with_the_local_copy(
    redis_server: tuple[str, subprocess.Popen], tmp_path: Path
) -> None:
    url, server = redis_server
    folder = tmp_path / "lost"
    # A fuzz case on the reference: rounds that use the database and find nothing (a finding would
    # add its confirmation runs, which this test is not about).
    campaign = start_campaign(
        folder,
        *("-k", "params", "--duration", "5m", "--round", "3s", "--workers", "1", "--db", url),
        *("--agent", python_command("-m", REFERENCE_MODULE)),
    )
    wait_until(campaign, round_started(folder, 1), 60, "no round started")
    server.kill()
    server.wait(timeout=10)
    # The next round finds Redis gone; the one after it runs on the local copy. Then Ctrl-C: the
    # test waits for what it needs, not for a duration a loaded machine may not fit it into.
    wait_until(campaign, round_started(folder, 3), 180, "no third round started")
    campaign.send_signal(signal.SIGINT)
    _, err = campaign.communicate(timeout=120)
    data = json.loads((folder / "campaign.json").read_text())
    assert campaign.returncode == 0 and data["findings"] == [], err[-3000:]  # the reference: nothing found
    assert data["database"]["lost"] and "redis://127.0.0.1" in data["database"]["lost"]
    assert err.count("the campaign goes on with") == 1
    # A later round ran examples (it may end cut short by the campaign's end: exit 2, partial report).
    later = [r for w in data["workers"] for r in w["rounds"] if r["number"] > 1 and r["examples"] > 0]
    assert later, "no round ran on the local copy after Redis was lost"
    assert "lost mid-campaign" in (folder / "campaign.html").read_text()


def test_an_agent_that_dies_is_a_finding_and_the_next_round_starts_it_again(tmp_path: Path) -> None:
    folder = tmp_path / "dies"
    campaign = start_campaign(
        folder,
        *("-k", "params", "--duration", "10m", "--round", "2s", "--workers", "1"),
        *("--agent", agent_command("crash_on_control_chars")),
    )
    # Stopped once a second round has reported: the agent the first round's finding killed was
    # started again, and ran examples.
    interrupt_once(campaign, lambda: (folder / "worker-0" / "round-002" / "report.json").is_file())
    _, err = campaign.communicate(timeout=120)
    assert campaign.returncode == 1, err[-3000:]
    data = json.loads((folder / "campaign.json").read_text())
    (finding,) = data["findings"]
    assert finding["case_id"] == "fuzz.status.params" and "agent died" in finding["message"]
    assert finding["confirmed"] == "reproduced"
    # The rounds that reported before the interrupt ran examples (a third one the interrupt cut may
    # have ended before its first).
    rounds = data["workers"][0]["rounds"]
    assert len(rounds) >= 2 and all(r["examples"] > 0 for r in rounds[:2] if r["exit"] in (0, 1))


def rounds_of(folder: Path) -> list[dict]:
    """The rounds so far, read from their progress files (campaign.json lists each round's case
    only once the campaign ends): the examples each ran, by case."""
    found = []
    for path in folder.glob("worker-*/round-*/progress.json"):
        data = read_json(path) or {}
        found.append({"folder": path.parent, "examples": data.get("examples", {})})
    return found


def test_a_one_minute_campaign_runs_every_case_and_finds_a_sequence_only_bug(tmp_path: Path) -> None:
    """The campaign's time is shared among its cases from the first minute, those that find the
    most first: a 1-minute campaign on 2 workers finds the bug a ci run finds (a sequence-only one)
    and runs every case, and its progress line counts each case's examples. It is stopped (Ctrl-C)
    once it has shown that, rather than waiting out its minute."""
    folder = tmp_path / "short"
    campaign = start_campaign(
        folder, "--duration", "60s", "--workers", "2", "--agent", agent_command("third_status_loads")
    )
    every = {
        "sequence.status.model-based",
        "fuzz.status.params",
        "fuzz.frames.survives",
        "fuzz.frames.error-codes",
    }

    def shown() -> bool:
        ran = {case for r in rounds_of(folder) for case in r["examples"]}
        return ran >= every and any(failed(r, SEQ) for r in reports(folder))

    wait_until(campaign, shown, 180, "the campaign did not run every case and find the sequence bug")
    campaign.send_signal(signal.SIGINT)
    _, err = campaign.communicate(timeout=120)
    assert campaign.returncode == 1, err[-3000:]
    data = json.loads((folder / "campaign.json").read_text())
    assert data["cases"][0] == SEQ, "the cases that find the most come first"
    assert {r["case"] for w in data["workers"] for r in w["rounds"]} == every
    (finding,) = [f for f in data["findings"] if f["case_id"] == SEQ]
    assert finding["confirmed"] == "reproduced", finding["confirmation"]
    assert "by case: sequence.status.model-based " in err, "the progress line counts each case's examples"


def test_the_confirmation_replays_with_the_campaigns_own_options(tmp_path: Path) -> None:
    """An agent whose bug shows only with a variable the campaign passes (named like a secret, so
    the replay file does not keep its value): the confirmation replays with the campaign's own
    options and reproduces it, never calling it flaky."""
    folder = tmp_path / "env"
    agent = agent_command("harness/env_status_loads")
    campaign = start_campaign(
        folder,
        *("-k", "model-based", "--duration", "10m", "--round", "20s", "--workers", "1"),
        *("--agent", agent, "--secret-env", "AGENT_BUG_TOKEN=load-sk-0123456789"),
    )
    interrupt_once(campaign, lambda: any(failed(r, SEQ) for r in reports(folder)))
    _, err = campaign.communicate(timeout=180)
    assert campaign.returncode == 1, err[-3000:]
    data = json.loads((folder / "campaign.json").read_text())
    (finding,) = data["findings"]
    assert finding["confirmed"] == "reproduced" and "STILL FAILING" in finding["confirmation"], finding
    replay = Path(finding["replay_file"]).read_text()
    assert "AGENT_BUG_TOKEN=[REDACTED]" in replay and "load-sk-0123456789" not in replay
