"""The ACP target's own options: the protocol version the suite initializes with (--protocol 1|2),
the authentication method it calls after initialize (--auth-method ID), and the agent's session
policy: how many sessions it keeps in memory (--memory-cap N) and after how long an unused session
leaves memory (--idle-evict-after S).

With them the suite can put an agent under the pressure its own policy reacts to (more sessions
than it holds, a wait past its idle delay) and compare what happens to a session status was asked
about with what happens to its twin (conformance/targets/acp/twins.py). Without them those cases
are not testable, unless the thorough profile's discovery finds the policy (cases/acp/pressure.py);
what a discovery found is kept here for the rest of the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.core.config import UsageError

__all__ = ["MAX_MEMORY_CAP", "AcpOptions"]

# Each memory round creates about twice the cap in sessions (conformance/targets/acp/twins.py);
# past this, a run would spend minutes creating sessions.
MAX_MEMORY_CAP = 2000


@dataclass
class AcpOptions:
    protocol: int = 1  # --protocol: the ACP version the suite initializes with
    auth_method: str | None = None  # --auth-method: called with authenticate after initialize
    memory_cap: int | None = None  # --memory-cap: sessions the agent holds in memory at most
    idle_evict_after: float | None = None  # --idle-evict-after: seconds until an unused session leaves memory
    # What the thorough profile's discovery found (and how), when the options were not given:
    # set once per run by the first case that needs it.
    discovered_cap: int | None = None
    cap_discovery: str | None = None  # why it found what it found (or nothing)
    discovered_idle: float | None = None
    idle_discovery: str | None = None
    # The idle delay a calibration measured (the agent's own sweep may lag the declared delay).
    calibrated_idle: float | None = None

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> AcpOptions:
        cap, idle = values.get("memory_cap"), values.get("idle_evict_after")
        protocol = values.get("agent_protocol") or 1
        if protocol not in (1, 2):
            raise UsageError(f"--protocol {protocol} is not 1 or 2")
        if cap is not None and not 1 <= cap <= MAX_MEMORY_CAP:
            raise UsageError(
                f"--memory-cap {cap} is not a number of sessions from 1 to {MAX_MEMORY_CAP} (the sessions your "
                "agent holds in memory at most)"
            )
        if idle is not None and not idle > 0:
            raise UsageError(f"--idle-evict-after {idle:g} must be a positive number of seconds")
        return cls(
            protocol=protocol, auth_method=values.get("auth_method"), memory_cap=cap, idle_evict_after=idle
        )
