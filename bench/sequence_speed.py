"""Examples per second of the two model-based sequence machines, and where their time goes.

The machines: the ACP one (`sequence.status.model-based`, ``run_sequences`` in
conformance/targets/acp/machine.py) against the embedded reference ACP agent, and the MCP
instruction-queue one (`heartbeat.instructions.model-based`, ``run_queue_sequences`` in
conformance/targets/mcp/queue.py) against the embedded reference MCP server and its operator
command. Each case runs in this process through ``conformance.direct.certify``, the same harness
as the command line, with the campaign profile: Hypothesis generates for --seconds and then stops,
so every example counted ran its steps (the ci profile's budget instead lets late examples run
none, which would flatter the rate). The ACP count includes the steered scenarios that run before
Hypothesis generates (about 120 short sequences, the same at every seed): with a short --seconds
they are most of it.

Where the time goes, from a stack sampler (every --sample-ms, the case's threads are looked at):
- hypothesis: the Hypothesis engine's own code runs (generation, the state machine's bookkeeping);
- harness: the suite's code runs, on the Hypothesis thread (the rules, the driver, the model) or
  on the event loop (the peer, the transcript, envelope checks, anyio/asyncio itself);
- agent: the Hypothesis thread waits for the loop and the loop is idle, i.e. waiting for the
  agent's replies; two kinds of agent waiting are shown apart: the ACP machine's drawn restarts
  (stopping and starting the agent process), and for MCP the operator command that enqueues an
  instruction (``--instruct-cmd``, a process start per enqueue). Waiting also holds the time the
  operating system takes to wake the loop once a reply is there: on a loaded machine, a lot.
A sampler rather than cProfile: a case runs on two threads (Hypothesis in a worker thread, the
requests on the runtime's event loop) and cProfile sees only the thread that enabled it; it would
also slow Hypothesis's many small calls far more than the rest.

There is no goal figure: the output says which of the three to work on.

    python bench/sequence_speed.py --seconds 20
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from _shared import PYTHON, table

MACHINES = {
    # name -> (case id, the function the case's Hypothesis thread runs, extra command-line words)
    "acp": ("sequence.status.model-based", "run_sequences", []),
    "mcp": ("heartbeat.instructions.model-based", "run_queue_sequences", ["--target", "mcp"]),
}
# The embedded MCP reference's operator command, passed explicitly so that the sampler knows the
# processes it starts (the same words the suite uses when none is given).
OPERATOR_WORDS = [PYTHON, "-m", "conformance.reference.mcp.instruct"]
# Frames a waiting thread ends in: Hypothesis's thread waiting on the loop (anyio.from_thread.run
# waits on a concurrent.futures result), an idle worker thread.
WAITING_MODULES = ("threading", "concurrent.futures._base", "queue")
# The ACP machine's restart rule: waiting below it is waiting for an agent process to stop and
# start again, not for a reply.
RESTART_RULE = ("conformance.targets.acp.machine", "restart")


@dataclass
class TimeSplit:
    """Seconds sampled per category, and per suite module for the harness share."""

    seconds: Counter[str] = field(default_factory=Counter)
    harness_modules: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


def stack(frame: FrameType | None) -> list[tuple[str, str]]:
    """(module, function) of each frame, innermost first."""
    frames = []
    while isinstance(frame, FrameType):  # a thread's stack changes while it is read
        frames.append((str(frame.f_globals.get("__name__", "?")), frame.f_code.co_name))
        frame = frame.f_back
    return frames


def owner(frames: list[tuple[str, str]]) -> tuple[str, str]:
    """Whose code a running thread is in: the innermost frame of Hypothesis or of the suite
    (library and standard-library frames count for whoever called them)."""
    for module, _ in frames:
        if module.startswith("hypothesis"):
            return "hypothesis", module
        if module.startswith(("conformance", "cases")):
            return "harness", module
    return "other", "?"


class StackSampler(threading.Thread):
    """Samples the case's threads while the machine runs (its function is on a thread's stack).
    Each sample's weight is the time since the previous one, so a late wake-up (the sampler
    needs the GIL too) still counts the time it covers."""

    def __init__(self, machine_function: str, interval: float) -> None:
        super().__init__(name="bench-sampler", daemon=True)
        self.machine_function = machine_function
        self.interval = interval
        self.split = TimeSplit()
        self.halt = threading.Event()
        self._operator_pids: dict[int, bool] = {}

    def run(self) -> None:
        last = time.perf_counter()
        while not self.halt.wait(self.interval):
            now = time.perf_counter()
            weight, last = now - last, now
            category, module = self.classify()
            if category is None:
                continue
            self.split.seconds[category] += weight
            if category == "harness":
                self.split.harness_modules[module] += weight

    def classify(self) -> tuple[str | None, str]:
        stacks = {
            ident: stack(frame)
            for ident, frame in sys._current_frames().items()
            if ident not in (threading.main_thread().ident, self.ident)
        }
        machine = next((s for s in stacks.values() if any(fn == self.machine_function for _, fn in s)), None)
        if machine is None:
            return None, ""  # the case has not reached its machine yet, or is done
        loop = next(
            (
                s
                for s in stacks.values()
                if any(fn == "run_forever" and m == "asyncio.base_events" for m, fn in s)
            ),
            None,
        )
        if machine[0][0] not in WAITING_MODULES:
            return owner(machine)
        if loop is not None and loop[0] != ("selectors", "select"):
            category, module = owner(loop)
            return "harness", module if category == "harness" else "(event loop: asyncio, anyio)"
        if any(frame == RESTART_RULE for frame in machine):
            return "agent restart", ""
        return ("operator command" if self.operator_running() else "agent"), ""

    def operator_running(self) -> bool:
        """Whether a child of this process runs the operator command (Linux /proc; elsewhere
        its time stays in the agent's share)."""
        for children in Path("/proc/self/task").glob("*/children"):
            with contextlib.suppress(OSError):
                for word in children.read_text().split():
                    pid = int(word)
                    if pid not in self._operator_pids:
                        self._operator_pids[pid] = self._runs_operator(pid)
                    if self._operator_pids[pid]:
                        return True
        return False

    @staticmethod
    def _runs_operator(pid: int) -> bool:
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return [w.decode(errors="replace") for w in words[1:3]] == OPERATOR_WORDS[1:3]


def run_machine(name: str, seconds: float, seed: int | None, interval: float, folder: Path) -> dict[str, Any]:
    """Run one machine's case in this process, sampled; its figures."""
    from conformance.direct import certify

    case_id, machine_function, words = MACHINES[name]
    args = [*words, "--profile", "campaign"]
    if name == "mcp":
        args += ["--instruct-cmd", shlex.join(OPERATOR_WORDS) + " {sessionId} {text}"]
    if seed is not None:
        args += ["--seed", str(seed)]
    sampler = StackSampler(machine_function, interval)
    sampler.start()
    try:
        report = certify(args, case_ids=[case_id], report_dir=folder / name)
    finally:
        sampler.halt.set()
        sampler.join()
    case = report.cases[0]
    details = case.get("details") or {}
    return {
        "case": case_id,
        "outcome": case["outcome"],
        "message": case.get("message", ""),
        "examples": int(details.get("examples") or 0),
        "seed": details.get("seed"),
        "duration": float(case["duration"]),
        "split": sampler.split,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="seconds of generating per machine (default 20)"
    )
    parser.add_argument("--machines", default="acp,mcp", help="which: acp, mcp or both (default acp,mcp)")
    parser.add_argument("--seed", type=int, help="Hypothesis seed (default: a fresh one, printed)")
    parser.add_argument("--sample-ms", type=float, default=5.0, help="sampling interval (default 5 ms)")
    args = parser.parse_args()
    machines = [m.strip() for m in args.machines.split(",") if m.strip()]
    if not machines or set(machines) - set(MACHINES):
        parser.error(f"--machines: a comma-separated list of {', '.join(MACHINES)}")
    if args.seconds <= 0 or args.sample_ms <= 0:
        parser.error("--seconds and --sample-ms must be positive")
    # The campaign profile reads its per-case budget from the environment when the suite is
    # imported (conformance.core.profiles), so it is set before the first import of it.
    os.environ["CONFORMANCE_ROUND_SECONDS"] = f"{args.seconds:g}"
    # A finer GIL switch interval: the sampler then wakes on time even while Hypothesis computes
    # (the default 5 ms would make it see mostly the moments another thread blocks).
    sys.setswitchinterval(0.0005)

    results = []
    with tempfile.TemporaryDirectory(prefix="bench-sequences-") as tmp:
        try:
            for name in machines:
                results.append(run_machine(name, args.seconds, args.seed, args.sample_ms / 1000, Path(tmp)))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130

    categories = ["hypothesis", "harness", "agent", "agent restart", "operator command", "other"]
    rows = []
    for r in results:
        split: TimeSplit = r["split"]
        total = split.total or 1.0
        rows.append(
            [
                r["case"],
                r["outcome"],
                r["examples"],
                f"{r['duration']:.1f}",
                f"{r['examples'] / r['duration']:.1f}" if r["duration"] else "-",
                *(f"{100 * split.seconds[c] / total:.0f}%" for c in categories),
            ]
        )
    print(f"model-based sequences, campaign profile, {args.seconds:g} s of generating each")
    print(table(["case", "outcome", "examples", "seconds", "examples/s", *categories], rows))
    for r in results:
        split = r["split"]
        top = ", ".join(
            f"{module} {100 * s / (split.total or 1):.0f}%"
            for module, s in split.harness_modules.most_common(4)
        )
        print(
            f"{r['case']}: seed {r['seed']}; sampled {split.total:.1f} s; harness time mostly in: {top or '-'}"
        )
        if r["outcome"] != "pass":
            print(f"  note: the case did not pass against the reference: {r['message'][:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
