"""The wire transcript: every frame in either direction, bounded in size.

Frames are kept as the raw text that crossed the wire (truncated past a limit, and said so),
with a monotonic timestamp, so a report shows exactly what the agent sent, hostile bytes
included, and a reader can replay what the suite sent.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Entry", "StderrTail", "Transcript", "agent_made_ids", "printed_instead", "reproduction_lines"]

SEND = "send"  # suite -> agent
RECV = "recv"  # agent -> suite
NOTE = "note"  # the harness's own remark (agent exit, envelope problem)


@dataclass(frozen=True)
class Entry:
    index: int
    direction: str
    t: float  # seconds since the transcript started (monotonic)
    frame: str
    truncated: bool = False
    conn: str = ""  # a second connection to the same agent ("B"); "" is the main one

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "index": self.index,
            "dir": self.direction,
            "t": round(self.t, 6),
            "frame": self.frame,
        }
        if self.truncated:
            out["truncated"] = True
        if self.conn:
            out["conn"] = self.conn
        return out


class Transcript:
    """Append-only frame log for one agent connection; cases read slices of it."""

    def __init__(self, *, max_frame_chars: int = 4096, max_entries: int = 50_000) -> None:
        self._t0 = time.monotonic()
        self._entries: list[Entry] = []  # entries[i].index == self._first + i
        self._first = 0
        self._count = 0
        self.max_entries = max_entries
        self.max_frame_chars = max_frame_chars

    def add(self, direction: str, frame: str, conn: str = "") -> Entry:
        truncated = len(frame) > self.max_frame_chars
        if truncated:
            frame = frame[: self.max_frame_chars] + f"…[{len(frame) - self.max_frame_chars} more chars]"
        entry = Entry(self._count, direction, time.monotonic() - self._t0, frame, truncated, conn)
        self._count += 1
        self._entries.append(entry)
        if len(self._entries) > self.max_entries:  # drop the older half; memory stays bounded
            drop = len(self._entries) // 2
            del self._entries[:drop]
            self._first += drop
        return entry

    @contextlib.contextmanager
    def frames_cut_at(self, chars: int) -> Iterator[None]:
        """Frames added meanwhile keep at most ``chars`` characters (a burst of hundreds of frames
        would otherwise fill the report)."""
        kept = self.max_frame_chars
        self.max_frame_chars = min(kept, chars)
        try:
            yield
        finally:
            self.max_frame_chars = kept

    def for_connection(self, conn: str) -> ConnectionLog:
        return ConnectionLog(self, conn)

    def mark(self) -> int:
        return self._count

    def since(self, mark: int) -> list[Entry]:
        return self._entries[max(0, mark - self._first) :]

    def __len__(self) -> int:
        return self._count


def agent_made_ids(segments: list[dict[str, Any]]) -> bool:
    """Whether a reproduction's lines name session ids the agent made (its session/new answers):
    piped as they are into a fresh agent, which makes its own, they would ask about sessions it
    never made (`reproduce` maps them instead)."""
    return any(segment.get("sessionIds") for segment in segments)


def reproduction_lines(
    segments: list[dict[str, Any]], *, max_lines: int = 0, command: str | None = None
) -> list[str]:
    """A case's reproduction as text that works as printed: ``command`` (the one command that
    reproduces it), then the lines to send, each segment under a heading that says where it goes (a
    fresh agent's stdin, the agent restarted in the same working directory, a second connection,
    a shell). Lines that name ids the agent made are left out: they would not work as printed
    (report.json keeps them). ``max_lines`` bounds the frames shown per segment (0: all)."""
    lines: list[str] = [f"# run: {command}"] if command else []
    if agent_made_ids(segments):
        if command:
            lines.append(
                "# (it maps the session ids this run's agent made to the ones a fresh agent makes; "
                "the requests themselves are in report.json)"
            )
        return lines
    for segment in segments:
        body = segment.get("lines") or []
        if not body:
            continue
        if body[0].startswith("curl "):
            heading = "run these commands"
        elif segment.get("start") == "second-process":
            heading = (
                f"pipe into a second agent process's stdin ({segment['connection']}; same command and working "
                "directory, the first one still running)"
            )
        elif segment.get("connection", "main") != "main":
            heading = f"on a second connection ({segment['connection']}) to the same agent, send"
        elif segment.get("start") == "restart":
            heading = "then restart the agent (same command and working directory) and pipe into its stdin"
        else:
            heading = "pipe into a fresh agent's stdin"
        lines.append(f"# {heading}:")
        shown = body[:max_lines] if max_lines else body
        lines += shown
        if len(shown) < len(body):
            lines.append(f"# … {len(body) - len(shown)} more lines in report.json")
    return lines


class StderrTail:
    """The last bytes the agent wrote to stderr; older bytes are counted, not kept."""

    def __init__(self, max_bytes: int = 8192) -> None:
        self._buf = bytearray()
        self._max = max_bytes
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self._buf += data
        if len(self._buf) > self._max:
            del self._buf[: len(self._buf) - self._max]

    def text(self) -> str:
        return self._buf.decode("utf-8", errors="replace")

    def mark(self) -> int:
        return self.total

    def since(self, mark: int) -> str:
        new = self.total - mark
        if new <= 0:
            return ""
        return bytes(self._buf[-min(new, len(self._buf)) :]).decode("utf-8", errors="replace")


class ConnectionLog:
    """The transcript as one more connection to the agent writes it: every entry labelled."""

    def __init__(self, transcript: Transcript, conn: str) -> None:
        self.transcript = transcript
        self.conn = conn

    def add(self, direction: str, frame: str) -> Entry:
        return self.transcript.add(direction, frame, self.conn)

    # Marks index the whole transcript, as they do through the main connection's peer.
    def mark(self) -> int:
        return self.transcript.mark()

    def since(self, mark: int) -> list[Entry]:
        return self.transcript.since(mark)


# How much of the first line an agent printed instead of JSON is shown.
SHOWN_LINE_CHARS = 120


def printed_instead(entries: list[Entry]) -> str:
    """What an agent that answered nothing printed on stdout instead, from the frames it wrote
    (``entries``): the number of lines and the first one, escaped and cut, when none of them is a
    JSON-RPC message; "" when it printed nothing, or JSON (then something else is wrong)."""
    lines = [e.frame for e in entries if e.direction == RECV and not e.conn]
    if not lines:
        return ""
    for line in lines:
        try:
            if isinstance(json.loads(line), dict):
                return ""
        except ValueError:
            continue
    first = lines[0].encode("unicode_escape").decode("ascii")
    if len(first) > SHOWN_LINE_CHARS:
        first = first[:SHOWN_LINE_CHARS] + "…"
    some = "1 line" if len(lines) == 1 else f"{len(lines)} lines"
    return f"it printed {some} on stdout, none of them JSON (stdout is for JSON-RPC messages only); the first: '{first}'"
