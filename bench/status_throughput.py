"""`session/status` throughput over stdio: the harness ÷ a raw newline-JSON client, same agent.

Both sides start the agent (the embedded reference ACP agent unless --agent says otherwise),
initialize, create one session with session/new, then send N `session/status` calls for it:
sequentially (one in flight, the latency a case sees) and pipelined (--window calls in flight).
The harness side is the suite's own machinery as a case uses it: a ``Runtime`` started as the
command line starts it, and ``AcpTarget.status()`` through its JSON-RPC peer (transcript,
envelope checks and all), timed on the runtime's event loop. The raw side is a blocking
subprocess client of about twenty lines, the least any client must do. Each side's CPU time per
call (the harness's on its event-loop thread) is printed too: the gap between the two is the
harness's own cost, the rest of a call is waiting for the agent.

Goal: harness calls/s ÷ raw calls/s ≥ 0.7. The machine is noisy, so the two sides alternate for
--rounds rounds and the medians are compared; nothing is asserted, the ratios are printed.

    python bench/status_throughput.py --calls 2000 --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from _shared import table

from conformance.direct import option_values
from conformance.runtime import Runtime
from conformance.targets import configure
from conformance.targets.acp.target import AcpTarget, reference_command


class RawNewlineJsonClient:
    """The baseline: write one JSON-RPC line, read lines until the one with its id."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C is the benchmark's to handle; close() stops the agent
        )
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any]) -> int:
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.process.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]
        return self.next_id

    def receive(self) -> dict[str, Any]:
        """The next response (notifications are skipped)."""
        while True:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise RuntimeError(f"the agent closed stdout (exit code {self.process.poll()})")
            message = json.loads(line)
            if "id" in message and "method" not in message:
                return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        sent = self.send(method, params)
        while (message := self.receive())["id"] != sent:
            pass
        if "result" not in message:
            raise RuntimeError(f"{method} failed: {message}")
        return message["result"]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=5)


def raw_sequential(client: RawNewlineJsonClient, session_id: str, calls: int) -> float:
    """Seconds for ``calls`` status calls, one at a time."""
    start = time.perf_counter()
    for _ in range(calls):
        client.request("session/status", {"sessionId": session_id})
    return time.perf_counter() - start


def raw_pipelined(client: RawNewlineJsonClient, session_id: str, calls: int, window: int) -> float:
    """Seconds for ``calls`` status calls with ``window`` in flight. A window, not all at once: an
    agent whose stdout pipe is full stops reading stdin, and both sides would block writing."""
    params = {"sessionId": session_id}
    start = time.perf_counter()
    sent = 0
    for _ in range(min(window, calls)):
        client.send("session/status", params)
        sent += 1
    for _ in range(calls):
        if "result" not in client.receive():
            raise RuntimeError("a status call failed")
        if sent < calls:
            client.send("session/status", params)
            sent += 1
    return time.perf_counter() - start


async def harness_sequential(acp: AcpTarget, session_id: str, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        reply = await acp.status(session_id)
        if not reply.ok:  # the same check the raw client makes
            raise RuntimeError(f"session/status failed: {reply.describe()}")
    return time.perf_counter() - start


async def harness_pipelined(acp: AcpTarget, session_id: str, calls: int, window: int) -> float:
    """``window`` tasks, each sending its share of the calls one after another: as many in flight
    as the raw client keeps."""

    async def caller(count: int) -> None:
        for _ in range(count):
            reply = await acp.status(session_id)
            if not reply.ok:
                raise RuntimeError(f"session/status failed: {reply.describe()}")

    shares = [calls // window + (1 if i < calls % window else 0) for i in range(window)]
    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for share in shares:
            tg.start_soon(caller, share)
    return time.perf_counter() - start


def measure_raw(
    client: RawNewlineJsonClient, session_id: str, calls: int, window: int
) -> tuple[float, float]:
    """Wall seconds and this thread's CPU seconds for ``calls`` status calls (``window`` 0: one at a
    time)."""
    cpu_before = time.thread_time()
    spent = (
        raw_pipelined(client, session_id, calls, window)
        if window
        else raw_sequential(client, session_id, calls)
    )
    return spent, time.thread_time() - cpu_before


def measure_harness(
    runtime: Runtime, acp: AcpTarget, session_id: str, calls: int, window: int
) -> tuple[float, float]:
    """The same for the harness, timed on its event loop; the CPU time is the loop thread's, where
    the peer, the transcript and the envelope checks run (the gap to the raw client's CPU time per
    call is the harness's own cost)."""
    cpu_before = runtime.call(time.thread_time)
    if window:
        spent = runtime.call(harness_pipelined, acp, session_id, calls, window)
    else:
        spent = runtime.call(harness_sequential, acp, session_id, calls)
    return spent, runtime.call(time.thread_time) - cpu_before


def start_harness(agent: str | None, folder: Path) -> tuple[Runtime, AcpTarget, str]:
    """A runtime as the command line builds one (same option table and defaults), started."""
    words = ["--agent", agent] if agent else []
    config = configure(option_values(words), folder / "sandbox", folder)
    runtime = Runtime(config)
    runtime.start()
    acp = runtime.target
    assert isinstance(acp, AcpTarget)
    session_id = runtime.call(acp.new_session)
    return runtime, acp, session_id


def start_raw(command: list[str], cwd: Path) -> tuple[RawNewlineJsonClient, str]:
    client = RawNewlineJsonClient(command, cwd)
    client.request(
        "initialize",
        {"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    )
    session = client.request("session/new", {"cwd": str(cwd), "mcpServers": []})
    return client, session["sessionId"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="status calls per measurement (default 2000)")
    parser.add_argument(
        "--window", type=int, default=16, help="calls in flight when pipelined; 0 skips it (default 16)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="alternating measurements per side; medians compared (default 3)",
    )
    parser.add_argument("--agent", help="the agent's command (default: the embedded reference agent)")
    args = parser.parse_args()
    if args.calls < 1 or args.rounds < 1 or args.window < 0:
        parser.error("--calls and --rounds must be at least 1, --window at least 0")
    command = shlex.split(args.agent) if args.agent else reference_command()
    modes = ["sequential"] + ([f"pipelined ({args.window} in flight)"] if args.window else [])
    keys = [(side, m) for side in ("harness", "raw") for m in modes]
    seconds: dict[tuple[str, str], list[float]] = {key: [] for key in keys}  # wall time per round
    cpu: dict[tuple[str, str], list[float]] = {key: [] for key in keys}  # the client thread's CPU time

    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        folder = Path(tmp)
        (folder / "raw").mkdir()
        runtime: Runtime | None = None
        client: RawNewlineJsonClient | None = None
        try:
            runtime, acp, harness_session = start_harness(args.agent, folder / "harness")
            client, raw_session = start_raw(command, folder / "raw")
            # A warm-up on each side: imports, first-call paths and the agent's caches are not
            # what is measured.
            raw_sequential(client, raw_session, 50)
            runtime.call(harness_sequential, acp, harness_session, 50)
            for n in range(args.rounds):
                # Which side goes first alternates, so a burst of load elsewhere does not always
                # land on the same one.
                order = ("raw", "harness") if n % 2 == 0 else ("harness", "raw")
                for side in order:
                    for mode in modes:
                        window = 0 if mode == "sequential" else args.window
                        if side == "raw":
                            measured = measure_raw(client, raw_session, args.calls, window)
                        else:
                            measured = measure_harness(runtime, acp, harness_session, args.calls, window)
                        seconds[(side, mode)].append(measured[0])
                        cpu[(side, mode)].append(measured[1])
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            if client is not None:
                client.close()
            if runtime is not None:
                runtime.close()

    rows = []
    ratios = []
    for mode in modes:
        harness_rate = args.calls / statistics.median(seconds[("harness", mode)])
        raw_rate = args.calls / statistics.median(seconds[("raw", mode)])
        ratios.append((mode, harness_rate / raw_rate))
        rows.append(
            [
                mode,
                f"{harness_rate:,.0f}",
                f"{raw_rate:,.0f}",
                f"{harness_rate / raw_rate:.2f}",
                f"{1e6 * statistics.median(cpu[('harness', mode)]) / args.calls:.0f}",
                f"{1e6 * statistics.median(cpu[('raw', mode)]) / args.calls:.0f}",
                " ".join(f"{args.calls / s:,.0f}" for s in seconds[("harness", mode)]),
                " ".join(f"{args.calls / s:,.0f}" for s in seconds[("raw", mode)]),
            ]
        )
    print(
        f"session/status over stdio, {args.calls} calls per measurement, {args.rounds} round(s), agent: {shlex.join(command)}"
    )
    print(
        table(
            [
                "mode",
                "harness calls/s",
                "raw calls/s",
                "ratio",
                "harness CPU us/call",
                "raw CPU us/call",
                "harness per round",
                "raw per round",
            ],
            rows,
        )
    )
    for mode, ratio in ratios:
        print(f"ratio harness/raw, {mode}: {ratio:.2f} (goal >= 0.7)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
