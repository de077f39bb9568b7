"""The commands of the README and of the documentation site (docs/), as written, for the tests that
run them (neither can drift).

`commands()` reads every command of each page's `sh` blocks and every `run:` line of its CI
(`yaml`) blocks. Each block is named by a comment on the line above it, `<!-- test: NAME -->`
(hidden on GitHub and in the site): its commands' tests go by that name (NAME-1, NAME-2, … for a
block of several), so editing a page above a block renames no test. `CLAIMS` says which test
runs each command; tests/unit/test_readme.py checks that the two agree both ways and that each
claiming test file holds the command's text. A command a page gains, changes or loses therefore
fails the tests until a test runs what it now says.

`StandIns` makes the programs the examples name (`my-agent`, `node dist/my-agent.js`, `npx
@zed-industries/codex-acp`, ...) real, as thin wrappers around the reference implementations, so
that the commands run byte for byte as the README prints them. Servers the examples assume are
"already running" cannot keep the README's example addresses (a port may be taken, a host does not
exist): `URLS` lists the only words a test replaces, and with what.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.conftest import ROOT, python_command

README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The commands run with the smoke budget, set through pytest's own PYTEST_ADDOPTS: the command line
# stays as written, and a conforming reference's verdict does not depend on the budget.
SMOKE = {"PYTEST_ADDOPTS": "--profile smoke"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# A block's test name, on the line right above its fence: <!-- test: quick-start -->
TAG = re.compile(r"<!-- test: ([a-z0-9][a-z0-9-]*) -->\s*$")
PROGRAMS = {
    "session-status-conformance",
    "pytest",
    "python",
    "python3",
    "pip",
    "cat",
    "node",
    "npx",
    "mkdocs",
}


@dataclass(frozen=True)
class Command:
    name: str  # the stable name its test goes by: the block's tag, "-2" for its second command, …
    page: str  # README.md or docs/…md
    text: str  # as written (continuation lines joined as the shell joins them)


def pages() -> list[Path]:
    """Every page whose commands the tests run: the README and each page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def _blocks(path: Path) -> list[tuple[str | None, str, str]]:
    """(tag, language, body) of each fenced block of a page; tag None when no name is above it."""
    text = path.read_text()
    found = []
    for fence in FENCE.finditer(text):
        above = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        tag = TAG.search(above)
        found.append((tag.group(1) if tag else None, fence.group(1), fence.group(2)))
    return found


def _block_commands(lang: str, body: str) -> list[str]:
    found: list[str] = []
    if lang == "sh":
        pending = ""
        for line in body.splitlines():
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            logical = (pending + line).strip()
            pending = ""
            if logical and not logical.startswith("#"):
                found.append(logical)
    elif lang == "yaml":
        for run in _runs(yaml.safe_load(body)):
            found += [line.strip() for line in str(run).splitlines() if line.strip()]
    return found


def _runs(node: object) -> list[object]:
    """The `run:` values anywhere in a CI block: a list of steps, or a whole workflow."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "run"] + [r for v in node.values() for r in _runs(v)]
    if isinstance(node, list):
        return [r for item in node for r in _runs(item)]
    return []


def commands() -> list[Command]:
    """Every command of every page's sh and CI (yaml) blocks, named by its block's tag."""
    found: list[Command] = []
    for path in pages():
        page = str(path.relative_to(ROOT))
        for tag, lang, body in _blocks(path):
            if tag is None:  # untagged_blocks() names it: a command's test needs a name
                continue
            texts = _block_commands(lang, body)
            for number, text in enumerate(texts, 1):
                name = tag if len(texts) == 1 else f"{tag}-{number}"
                found.append(Command(name, page, text))
    return found


def untagged_blocks() -> list[str]:
    """Blocks that hold commands but no test name above them (their tests would have no name)."""
    return [
        f"{path.relative_to(ROOT)}: {body.splitlines()[0] if body else ''}"
        for path in pages()
        for tag, lang, body in _blocks(path)
        if tag is None and _block_commands(lang, body)
    ]


def unfenced_commands() -> list[str]:
    """Lines of blocks without a language that look like commands (they would escape the tests)."""
    return [
        f"{path.relative_to(ROOT)}: {line}"
        for path in pages()
        for _, lang, body in _blocks(path)
        if lang == ""
        for line in body.splitlines()
        if line.split() and (line.split()[0] in PROGRAMS or line.split()[0].startswith(".venv/bin/"))
    ]


def source_file(page: str, name: str) -> str:
    """The code block a tutorial marks `<!-- file: NAME -->`, as the page shows it."""
    text = (ROOT / page).read_text()
    marker = f"<!-- file: {name} -->\n"
    assert text.count(marker) == 1, f"{page} marks no single block as {name}"
    fence = FENCE.match(text, text.index(marker) + len(marker))
    assert fence, f"{page}: no code block right below the {name} marker"
    return fence.group(2)


def command(text: str) -> str:
    """``text``, checked to be a command of the README or the site as written: what a test runs."""
    written = {c.text for c in commands()}
    assert text in written, f"the README and the site no longer say: {text}"
    return text


# The README command -> the test that runs it. A test file listed here must contain the text.
RUNNER = "tests/e2e/test_readme_commands.py"
CLAIMS: dict[str, str] = {
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/session-status-conformance": RUNNER,
    # The project's test command: .ci/run runs it (tests/unit/test_readme.py checks that).
    ".venv/bin/pip install -e '.[test,agentscope,mutation,campaign]' && .venv/bin/python -m pytest -n auto": ".ci/run",
    # The install runs as written, from a copy of the checkout (its dependencies from this
    # environment), then the recipe's certification and summary lines.
    "pip install ./session-status-conformance": "tests/e2e/test_install.py",
    'session-status-conformance --agent "node dist/agent.js" --report-dir conformance-report': (
        "tests/e2e/test_install.py"
    ),
    'cat conformance-report/summary.md >> "$GITHUB_STEP_SUMMARY"': "tests/e2e/test_install.py",
    # A fourth target, installed beside the suite and certified every way (README, "Adding a target").
    **dict.fromkeys(
        [
            "pip install ./session-status-conformance ./toy-status-target",
            "session-status-conformance --target toy --report-dir reference",
            'session-status-conformance --toy-cmd "python -m toy_target.reference --forgetful" --report-dir bad',
            'python -m pytest --pyargs toy_target.cases --toy-cmd "python -m toy_target.reference --forgetful"',
            "session-status-conformance matrix reference bad",
            "session-status-conformance replay bad/replays/toy.status.unknown-is-error.replay.json",
            "session-status-conformance replay bad/replays/toy.status.unknown-is-error.replay.json "
            '--toy-cmd "python -m toy_target.reference"',
        ],
        "tests/e2e/test_toy_target.py",
    ),
    # The site, served as the README says; the tutorials' agents, certified from their pages.
    **dict.fromkeys(
        [
            ".venv/bin/pip install -e '.[docs]' && .venv/bin/mkdocs serve -a 127.0.0.1:8000",
            'session-status-conformance --agent "python my_agent.py"',
            "npm install @agentclientprotocol/sdk@2.4.0",
            'session-status-conformance --agent "node my-agent.mjs"',
        ],
        "tests/e2e/test_docs.py",
    ),
    # The fleet: the example list with real released agents (CONFORMANCE_FLEET_REAL=1), and its plan.
    "session-status-conformance fleet examples/fleet.toml --workers 2 --out reports/fleet": "tests/e2e/test_fleet.py",
    "session-status-conformance fleet plan examples/fleet.toml": "tests/e2e/test_fleet.py",
    # MCP's protocol eras: both eras and a matrix, modern-only and stateless servers.
    "session-status-conformance --target mcp --mcp-protocol both": "tests/targets/mcp/test_eras.py",
    'session-status-conformance --mcp-cmd "node dist/server.js --modern-only" --instruct-cmd '
    '"node dist/ops.js instruct {sessionId} {text}"': "tests/targets/mcp/test_eras.py",
    'session-status-conformance --transport http --mcp-cmd "node dist/server.js --http 127.0.0.1:0 --modern-only"': (
        "tests/targets/mcp/test_eras.py"
    ),
    'session-status-conformance --transport http --mcp-cmd "node dist/server.js --http 127.0.0.1:0 --stateless-http" '
    "--mcp-protocol 2025-06-18": "tests/targets/mcp/test_eras.py",
}


def claim(path: str, *texts: str) -> None:
    for text in texts:
        CLAIMS.setdefault(text, path)


class StandIns:
    """A folder to run README commands in: `dist/*.js` and a `bin/` of programs the examples name,
    each a thin wrapper around a reference implementation (started through this worker's fork
    server, as every test agent is), plus the environment the commands expect (the venv's
    programs on PATH as if activated, a HOME with `~/project`, the tokens the MCP example reads)."""

    def __init__(self, folder: Path, venv_bin: Path) -> None:
        self.folder = folder
        self.bin = folder / "bin"
        self.bin.mkdir(parents=True)
        (folder / "dist").mkdir()
        (folder / "home" / "project").mkdir(parents=True)
        acp = python_command("-m", "conformance.reference.acp.agent")
        mcp = python_command("-m", "conformance.reference.mcp.server")
        instruct = python_command("-m", "conformance.reference.mcp.instruct")
        self.script(
            "my-agent",
            f"""#!/bin/sh
# The README's "my-agent": the ACP reference agent, with the flags the README gives it.
# What the agent was started with, for the test of --cwd and --env.
[ -z "$LOG_LEVEL" ] || echo "LOG_LEVEL=$LOG_LEVEL cwd=$(pwd)" >> "$HOME/my-agent.log"
args=""
while [ $# -gt 0 ]; do
    case "$1" in
        --acp) ;;
        --acp-v2) args="$args --protocol 2" ;;
        --listen) args="$args --listen $2"; shift ;;
        --http) args="$args --listen-http $2"; shift ;;
        --memory-cap|--idle-evict-after) args="$args $1 $2"; shift ;;
        *) echo "my-agent (a stand-in): unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
exec {acp} $args
""",
        )
        self.script(
            "npx",
            f"""#!/bin/sh
# Only the README's codex-acp example: the reference agent (it accepts any authenticate).
[ "$1" = "@zed-industries/codex-acp" ] || {{ echo "npx (a stand-in): only @zed-industries/codex-acp" >&2; exit 2; }}
[ "$OPENAI_API_KEY" = "dummy" ] || {{ echo "npx (a stand-in): OPENAI_API_KEY not passed" >&2; exit 2; }}
exec {acp}
""",
        )
        for name, argv in (
            ("my-agent.js", shlex.split(acp)),
            ("agent.js", shlex.split(acp)),
            ("server.js", shlex.split(mcp)),
            # `node dist/ops.js instruct SESSION TEXT`: the reference's operator hook.
            ("ops.js", shlex.split(instruct)),
        ):
            skip = 1 if name == "ops.js" else 0
            (folder / "dist" / name).write_text(
                "// A stand-in for the README's example: runs a reference implementation.\n"
                "const { spawnSync } = require('child_process');\n"
                f"const argv = {json.dumps(argv)}.concat(process.argv.slice({2 + skip}));\n"
                "const done = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit' });\n"
                "process.exit(done.status === null ? 1 : done.status);\n"
            )
        self.env = {
            **os.environ,
            "PATH": os.pathsep.join([str(self.bin), str(venv_bin), os.environ["PATH"]]),
            "VIRTUAL_ENV": str(venv_bin.parent),
            "HOME": str(folder / "home"),
            "TOKEN_A": "caller-a",
            "TOKEN_B": "caller-b",
            "GITHUB_STEP_SUMMARY": str(folder / "step-summary.md"),
        }

    def run(self, text: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """``text`` run by the shell in the folder, as a user types it (the smoke budget)."""
        return subprocess.run(
            ["/bin/sh", "-c", text],
            cwd=self.folder,
            env=self.env | SMOKE,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def script(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def name_of(text: str) -> str:
    """The stable name of the command ``text`` (its test's id)."""
    return next(c.name for c in commands() if c.text == text)
