"""What each campaign mutates and how the suite is run against the mutated reference."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTATION = ROOT / "mutation"


@dataclass(frozen=True)
class Campaign:
    name: str  # the campaign: mutation/NAME.toml, mutation/NAME-triage.toml, reports/mutation/NAME.*
    target: str  # the suite's target the runs certify (acp, mcp, http)
    # Suite runs per mutant, each a list of command-line words; "{root}" is the checkout the
    # mutant lives in (a worker's copy, or this one), so the reference runs from its file path,
    # and "{python}" the interpreter running the campaign.
    runs: tuple[tuple[str, ...], ...]

    @property
    def config(self) -> Path:
        return MUTATION / f"{self.name}.toml"

    @property
    def triage(self) -> Path:
        return MUTATION / f"{self.name}-triage.toml"


FIXED = ("--profile", "ci", "--seed", "0")
ACP = "{python} {root}/conformance/reference/acp/agent.py"
MCP = "{python} {root}/conformance/reference/mcp/server.py"
HTTP = "{python} {root}/conformance/reference/http/service.py --listen 127.0.0.1:0"
# Over Streamable HTTP, two callers and the operator endpoint: every heartbeat case runs.
MCP_HTTP = (
    *("--transport", "http", "--instruct-url", "{baseUrl}/operator/instructions"),
    *("--header", "Authorization=Bearer caller-a", "--other-header", "Authorization=Bearer caller-b"),
)
# Over stdio, the server's other half: the operator's spool instead of the endpoint.
MCP_STDIO = ("--instruct-cmd", "{python} -m conformance.reference.mcp.instruct {sessionId} {text}")
# The operator hook from the mutant's checkout (it refuses texts past the server's --max-length).
MCP_STDIO_HOOK = (
    "--instruct-cmd",
    "{python} {root}/conformance/reference/mcp/instruct.py {sessionId} {text}",
)
# A run longer than the HTTP reference's 10 s run lease (renewed while the run works).
HTTP_LONG_RUN = ("--http-long-run", "12")

# The machinery the references have and real agents have (memory caps with least-recently-used
# eviction, idle eviction, request allowances, serialised or overlapping requests, length limits, a
# store), each part switched on by its flag, with the suite told the policy where it has an
# option for it, so the twin, eviction, allowance, boundary and overlap cases are judged.
# ACP: the memory cap on v1, idle eviction on v2 (the policies apart: under a cap of 4, the sessions
# the idle cases create would leave memory by the cap, which the cases would take for idle
# eviction), each told to the suite. v1 also handles one request at a time, each slow (its front
# handler lets a prompt's turn run beside later requests); v2's requests overlap while one waits on
# storage. Both with an allowance of 2 prompts a session (twins-use meets it: both twins are refused
# alike) and a storage layer that refuses what it cannot hold.
ACP_V1_POLICY = ("--memory-cap", "4")
ACP_V1_MACHINERY = (
    *("--session-request-limit", "2", "--serialise", "--request-delay", "0.005"),
    *("--storage-delay", "0.005", "--max-length", "4096"),
)
ACP_V2_POLICY = ("--idle-evict-after", "1")
ACP_V2_MACHINERY = ("--session-request-limit", "2", "--storage-delay", "0.005", "--max-length", "1024")
MCP_MACHINERY = (
    *("--session-cap", "24", "--session-ttl", "2", "--request-limit", "60"),
    *("--io-delay", "0.005", "--max-length", "1024"),
)
MCP_POLICY = ("--mcp-session-cap", "24", "--mcp-session-ttl", "2", "--mcp-request-limit", "60")
HTTP_MACHINERY = (
    *("--memory-cap", "4", "--idle-evict-after", "2", "--request-limit", "60"),
    # The store is a file in the run's own temporary working directory, which a restart keeps.
    *("--max-id-length", "255", "--max-concurrent", "2", "--store", "sessions.json"),
)
HTTP_POLICY = ("--http-memory-cap", "4", "--http-idle-evict-after", "2", "--http-request-limit", "60")

CAMPAIGNS = {
    "acp": Campaign(
        "acp",
        "acp",
        (
            ("--agent", ACP, *FIXED),
            ("--protocol", "2", "--agent", f"{ACP} --protocol 2", *FIXED),
        ),
    ),
    "mcp": Campaign(
        "mcp",
        "mcp",
        (
            ("--mcp-cmd", f"{MCP} --http 127.0.0.1:0", *MCP_HTTP, *FIXED),
            ("--mcp-cmd", MCP, *MCP_STDIO, *FIXED),
        ),
    ),
    "http": Campaign("http", "http", (("--http-cmd", HTTP, *HTTP_LONG_RUN, *FIXED),)),
    "acp-features": Campaign(
        "acp-features",
        "acp",
        (
            ("--agent", " ".join((ACP, *ACP_V1_POLICY, *ACP_V1_MACHINERY)), *ACP_V1_POLICY, *FIXED),
            (
                "--protocol",
                "2",
                "--agent",
                " ".join((ACP, "--protocol", "2", *ACP_V2_POLICY, *ACP_V2_MACHINERY)),
                *ACP_V2_POLICY,
                *FIXED,
            ),
        ),
    ),
    # The server speaks both protocol eras over HTTP, only the stateless one on stdio
    # (--modern-only): the middleware that refuses the handshake era is machinery too.
    "mcp-features": Campaign(
        "mcp-features",
        "mcp",
        (
            (
                "--mcp-cmd",
                " ".join((MCP, "--http 127.0.0.1:0", *MCP_MACHINERY)),
                *MCP_HTTP,
                *MCP_POLICY,
                *FIXED,
            ),
            (
                "--mcp-cmd",
                " ".join((MCP, "--modern-only", *MCP_MACHINERY)),
                *MCP_STDIO_HOOK,
                *MCP_POLICY,
                *FIXED,
            ),
        ),
    ),
    "http-features": Campaign(
        "http-features",
        "http",
        (("--http-cmd", " ".join((HTTP, *HTTP_MACHINERY)), *HTTP_LONG_RUN, *HTTP_POLICY, *FIXED),),
    ),
}
