"""The ACP sequence machine's rules draw alike whatever the run's state outside the example: a
replay of a failure must meet the same preconditions as the example that found it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from conformance.targets.acp.machine import build_machine

RESTART_ODDS = 8
RESTARTING = RESTART_ODDS // 2 + 1  # the one ticket that restarts


class DryDriver:
    """A driver whose steps never run (a spent budget): only what the machine counts moves."""

    dry = True

    def __init__(self) -> None:
        self.counter: dict[str, int] = {}

    def count(self, kind: str) -> int:
        return self.counter.get(kind, 0)

    def next_ref(self, kind: str) -> str:
        self.counter[kind] = self.count(kind) + 1
        return f"{kind}{self.counter[kind] - 1}"


def target() -> Any:
    harness = SimpleNamespace(
        closing=False, current_url=lambda: None, config=SimpleNamespace(profile="ci", hold_seconds=3.0)
    )
    return SimpleNamespace(
        advertises=lambda name: False, policy=SimpleNamespace(memory_cap=8), harness=harness
    )


def drawn_after_a_restart(may_restart: bool) -> int:
    stub: Any = target()  # an AcpTarget's few attributes the rules read
    driver: Any = DryDriver  # a Driver's few methods the rules call
    machine: Any = build_machine(stub, driver, 3, RESTART_ODDS, may_restart=lambda: may_restart)()
    machine.restart("s0", RESTARTING)
    return machine.drawn


def test_a_restart_counts_as_a_step_whether_or_not_the_run_may_restart_again() -> None:
    # Once the run's restarts are spent an example skips them, while every replay of a failure
    # restarts: the preconditions that read the count (pressure, wait) must hold alike.
    assert drawn_after_a_restart(may_restart=False) == drawn_after_a_restart(may_restart=True) == 1
