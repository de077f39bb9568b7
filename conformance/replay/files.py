"""Replay files: write the minimal failing sequence, and re-send it to the same or another agent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conformance import __version__
from conformance.core.redact import redact, redacted_options

__all__ = ["FORMAT", "frame_line", "load_replay", "numbered_steps", "write_replay"]

FORMAT = "session-status-conformance/replay@1"


def frame_line(entry: dict[str, Any], max_frame: int = 400) -> str:
    """One transcript entry (``dir``, ``frame``) as an indented line: --> sent, <-- received, ! a note."""
    arrow = {"send": "-->", "recv": "<--"}.get(str(entry.get("dir")), " ! ")
    text = str(entry.get("frame", ""))
    return f"     {arrow} {text[:max_frame]}{'…' if len(text) > max_frame else ''}"


def numbered_steps(steps: list[Any], max_frame: int = 400, *, frames: bool = True) -> list[str]:
    """The shrunk sequence as numbered lines: each step (any target's: it has label(), answer and
    frames) with the requests and responses it made (``frames``), or only what it answered."""
    lines = []
    for n, step in enumerate(steps, start=1):
        lines.append(f"{n}. {step.label()} -> {step.answer or '(failed here)'}")
        if frames:
            lines += [frame_line(frame, max_frame) for frame in step.frames]
    return lines


def write_replay(
    directory: Path,
    *,
    case_id: str,
    command: list[str],
    cwd: str,
    agent_info: Any,
    spec_revision: str,
    seed: int,
    profile: str,
    failure: str,
    steps: list[dict[str, Any]],
    target: str,
    extra_agent: dict[str, Any] | None = None,
    fuzz_input: dict[str, Any] | None = None,
    config: Any = None,
    reproduced: dict[str, Any] | None = None,
    pace: dict[str, Any] | None = None,
) -> Path:
    """A replay file: a sequence's steps, or (``fuzz_input``) a fuzz case's shrunk input, which
    `replay` checks again alone. ``config`` (the run's AgentConfig): its option values are
    recorded, secrets redacted, so that `replay` starts the agent as the run did (its --env, its
    timeouts, its transport, its target's options)."""
    directory.mkdir(parents=True, exist_ok=True)
    frames = [f for s in steps for f in s.get("frames", [])]
    secrets = list(getattr(config, "secrets", None) or [])
    body = {
        "format": FORMAT,
        "suite": {"name": "session-status-conformance", "version": __version__},
        "target": target,
        "spec": {"revision": spec_revision},
        "agent": redact(
            {"command": command, "cwd": cwd, "agentInfo": agent_info, **(extra_agent or {})}, secrets
        ),
        "case": case_id,
        "seed": seed,
        "profile": profile,
        "failure": failure,
        **({"reproduced": reproduced} if reproduced is not None else {}),
        **({"pace": pace} if pace is not None else {}),
        "steps": [{k: v for k, v in s.items() if k != "frames"} for s in steps],
        **({"input": fuzz_input} if fuzz_input is not None else {}),
        **(
            {"options": redacted_options(config.options, secrets)} if getattr(config, "options", None) else {}
        ),
        "frames": redact(
            {
                "sent": [f["frame"] for f in frames if f["dir"] == "send"],
                "received": [f["frame"] for f in frames if f["dir"] == "recv"],
            },
            secrets,
        ),
    }
    path = directory / f"{re.sub(r'[^a-z0-9.-]+', '-', case_id)}.replay.json"
    text = json.dumps(body, indent=2, ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a fuzzed string): only a \uXXXX escape carries it
        data = json.dumps(body, indent=2, ensure_ascii=True).encode("ascii")
    path.write_bytes(data)
    return path


def load_replay(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read replay file {str(path)!r}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a replay file (format {FORMAT})")
    return data
