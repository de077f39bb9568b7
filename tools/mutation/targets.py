"""What each campaign mutates and how the suite is run against the mutated reference."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTATION = ROOT / "mutation"


@dataclass(frozen=True)
class Campaign:
    target: str
    # Suite runs per mutant, each a list of command-line words; "{root}" is the checkout the
    # mutant lives in (a worker's copy, or this one), so the reference runs from its file path,
    # and "{python}" the interpreter running the campaign.
    runs: tuple[tuple[str, ...], ...]

    @property
    def config(self) -> Path:
        return MUTATION / f"{self.target}.toml"

    @property
    def triage(self) -> Path:
        return MUTATION / f"{self.target}-triage.toml"


FIXED = ("--profile", "ci", "--seed", "0")
CAMPAIGNS = {
    "acp": Campaign(
        "acp",
        (
            ("--agent", "{python} {root}/conformance/reference/acp/agent.py", *FIXED),
            (
                "--protocol",
                "2",
                "--agent",
                "{python} {root}/conformance/reference/acp/agent.py --protocol 2",
                *FIXED,
            ),
        ),
    ),
    # Over Streamable HTTP with two callers and the operator endpoint, every heartbeat case runs;
    # over stdio, the server's other half runs (the operator's spool instead of the endpoint).
    "mcp": Campaign(
        "mcp",
        (
            (
                "--mcp-cmd",
                "{python} {root}/conformance/reference/mcp/server.py --http 127.0.0.1:0",
                *("--transport", "http", "--instruct-url", "{baseUrl}/operator/instructions"),
                *(
                    "--header",
                    "Authorization=Bearer caller-a",
                    "--other-header",
                    "Authorization=Bearer caller-b",
                ),
                *FIXED,
            ),
            (
                "--mcp-cmd",
                "{python} {root}/conformance/reference/mcp/server.py",
                "--instruct-cmd",
                "{python} -m conformance.reference.mcp.instruct {sessionId} {text}",
                *FIXED,
            ),
        ),
    ),
    "http": Campaign(
        "http",
        (
            (
                "--http-cmd",
                "{python} {root}/conformance/reference/http/service.py --listen 127.0.0.1:0",
                # A run longer than the reference's 10 s run lease (renewed while the run works).
                *("--http-long-run", "12"),
                *FIXED,
            ),
        ),
    ),
}
