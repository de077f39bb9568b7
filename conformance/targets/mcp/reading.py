"""How the suite reads an MCP server's heartbeat results: tool replies, the instruction items in
them and their ids, and the next-page cursor. The spec names none of these fields, so the reader
looks where servers commonly put them (or where the user's --instructions-path,
--instruction-id-path and --cursor-path point) and remembers, per run, where it found them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.core.outcomes import MissingInput
from conformance.core.validation import strict_loads
from conformance.targets.mcp.options import McpOptions
from conformance.transport.peer import Reply

__all__ = [
    "Instruction",
    "NoInstructionList",
    "ResultReader",
    "ToolReply",
    "carries",
    "has",
    "ids_for",
    "pointer_get",
    "raise_if_elsewhere",
    "unfollowed_message",
]

# The spec names neither the result's fields nor an instruction's: the names servers commonly use.
INSTRUCTION_LISTS = ("/instructions", "/pendingInstructions", "/pending_instructions", "/pending")
PAGE_ITEMS = ("items", "instructions", "data", "results", "entries")  # a page object's list
CURSOR_NAMES = (
    "nextCursor",
    "instructionCursor",
    "nextInstructionCursor",
    "next_cursor",
    "instruction_cursor",
    "next_instruction_cursor",
    "cursor",
    "nextPageToken",
    "next_page_token",
    "continuationToken",
    "continuation_token",
)
CURSOR_HOMES = ("", "/pagination", "/page", "/paging")  # and the page object that holds the list
ID_NAMES = ("id", "instructionId", "instruction_id", "instructionID", "ID", "Id", "uuid")
# A string field named like this, that the suite does not follow, may be a cursor under a name it
# does not know: missing instructions are then not testable, not lost.
CURSOR_LIKE = re.compile(r"cursor|token|continu|next|page|after|marker|offset", re.IGNORECASE)
MAX_PAGES = 50
_NOTHING: Any = object()


def pointer_get(document: Any, pointer: str) -> Any:
    """RFC 6901: the value at ``pointer``, or a sentinel when there is none."""
    if pointer == "":
        return document
    node = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _NOTHING
    return node


@dataclass
class ToolReply:
    """A tools/call answer: a JSON-RPC error, a tool error (isError), or a result."""

    reply: Reply

    @property
    def rpc_error(self) -> bool:
        return not self.reply.ok

    @property
    def result(self) -> dict[str, Any]:
        return self.reply.result if self.reply.ok and isinstance(self.reply.result, dict) else {}

    @property
    def tool_error(self) -> bool:
        return self.reply.ok and self.result.get("isError") is True

    @property
    def rejected(self) -> bool:
        return self.rpc_error or self.tool_error

    @property
    def succeeded(self) -> bool:
        return self.reply.ok and isinstance(self.reply.result, dict) and not self.tool_error

    @property
    def text(self) -> str:
        content = self.result.get("content")
        parts = (
            [c.get("text", "") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
        )
        return "\n".join(p for p in parts if isinstance(p, str))

    @property
    def data(self) -> Any:
        """structuredContent, else the JSON of the text content, else None."""
        structured = self.result.get("structuredContent")
        if structured is not None:
            return structured
        try:
            return strict_loads(self.text)
        except (ValueError, RecursionError):
            return None

    def describe(self) -> str:
        if self.rpc_error:
            return self.reply.describe()
        if self.tool_error:
            return f"a tool error (isError: true): {self.text[:200]!r}"
        return f"a result: {json.dumps(self.data, ensure_ascii=True)[:300]}"


class Instruction(dict[str, Any]):
    """An instruction item as the server sent it (a dict, as JSON), and the id found in it."""

    def __init__(self, item: dict[str, Any], iid: str, id_path: str) -> None:
        super().__init__(item)
        self.id = iid
        self.id_path = id_path


class NoInstructionList(MissingInput):
    """No instruction list anywhere the suite looks, and none seen before in this run."""


def raise_if_elsewhere(missing: NoInstructionList, replies: list[ToolReply], texts: list[str]) -> None:
    """Where no list is where the suite looks but an awaited text is in the result: say where."""
    for reply in replies:
        for path, value in _strings(reply.data):
            if any(t in value for t in texts):
                tokens = path.split("/")
                numeric = [n for n, t in enumerate(tokens) if t.isdigit()]
                where = "/".join(tokens[: numeric[-1]]) if numeric else path
                raise MissingInput(
                    f"{missing.message}; an instruction the suite enqueued is at {path}: try --instructions-path "
                    f"{where}"
                )


def _list_at(data: Any, path: str) -> tuple[str, Any]:
    """The list at ``path``, or inside the page object there; where it is."""
    found = pointer_get(data, path)
    if isinstance(found, dict):
        for name in PAGE_ITEMS:
            if name in found:
                return f"{path}/{name}", found[name]
        return path, None  # a page object without its list: nothing pending
    return path, found


def unfollowed_message(pointer: str, missing: int) -> str:
    return (
        f"{missing} instruction(s) did not come while the results carry {pointer}, a next-page cursor under a "
        f"name the suite does not know (sent back as instructionCursor, it brought them); pass --cursor-path "
        f"{pointer}"
    )


def carries(item: dict[str, Any], text: str) -> bool:
    """Whether an instruction item carries this text, in whatever field the server puts it
    (``text``, ``message``, ``content`` …; the spec does not name it), verbatim or within a longer
    string (a server may render it for the agent: the suite's texts are unique tokens)."""
    skip = item.id_path if isinstance(item, Instruction) else "/id"
    return any(text in v for p, v in _strings(item) if p != skip)


def has(items: list[Instruction], text: str) -> bool:
    return any(carries(i, text) for i in items)


def ids_for(items: list[Instruction], texts: list[str]) -> list[str]:
    """The ids of the items that carry any of these texts, in delivery order."""
    return [i.id for i in items if any(carries(i, t) for t in texts)]


def _strings(node: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(node, str):
        return [(path, node)]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings(v, f"{path}/{k}")]
    if isinstance(node, list):
        return [s for i, v in enumerate(node) for s in _strings(v, f"{path}/{i}")]
    return []


def _keys(data: Any) -> str:
    if isinstance(data, dict):
        return ", ".join(sorted(str(k) for k in data)[:20]) or "none"
    return f"none: the result carries {type(data).__name__ if data is not None else 'no JSON'}"


class ResultReader:
    """Where one run's results keep their instructions, ids and cursor: by the user's pointers,
    else found by name and then kept (later results are read at the same place)."""

    def __init__(self, options: Callable[[], McpOptions]) -> None:
        self._options = options
        self.list_seen: str | None = None  # where an instruction list was found
        self.id_path: str | None = None  # where an item's id was found

    def instructions(self, reply: ToolReply) -> list[Instruction]:
        """The instructions of a result (items with a string id), by --instructions-path or by name;
        a list found inside a page object too. Where a list was seen before in this run (or where
        --instructions-path points), none there means none pending: servers omit empty fields."""
        data = reply.data
        explicit = self._options().instructions_path
        paths = (explicit,) if explicit is not None else INSTRUCTION_LISTS
        for path in paths:
            where, found = _list_at(data, path)
            if found is _NOTHING or found is None:
                continue
            if not isinstance(found, list):
                raise MissingInput(
                    f"the result's {where} is not a list of instructions: {json.dumps(found)[:200]}; pass "
                    "--instructions-path POINTER to the list in your results"
                )
            items = self._identified(found, where)
            if explicit is None:
                self.list_seen = where
            return items
        if explicit is not None or self.list_seen is not None:
            return []
        raise NoInstructionList(
            f"the heartbeat result has no instruction list at {' or '.join(paths)} (its keys: "
            f"{_keys(data)}); pass --instructions-path POINTER to the list in your results"
        )

    def _identified(self, found: list[Any], where: str) -> list[Instruction]:
        if not found:
            return []
        if not all(isinstance(i, dict) for i in found):
            raise MissingInput(
                f"the result's {where} is not a list of instruction objects: {json.dumps(found)[:200]}"
            )
        explicit = self._options().instruction_id_path
        if explicit is not None:
            paths: tuple[str, ...] = (explicit,)
        else:
            paths = tuple(
                dict.fromkeys(([self.id_path] if self.id_path else []) + [f"/{n}" for n in ID_NAMES])
            )
        for path in paths:
            ids = [pointer_get(item, path) for item in found]
            if all(isinstance(i, str) and i for i in ids):
                self.id_path = path
                return [Instruction(item, iid, path) for item, iid in zip(found, ids, strict=True)]
        raise MissingInput(
            f"the instructions at {where} do not all carry a string id at {', '.join(paths)} (an item: "
            f"{json.dumps(found[0])[:200]}); pass --instruction-id-path POINTER to the id inside an item"
        )

    def cursor(self, reply: ToolReply) -> str | None:
        data = reply.data
        for path in self._cursor_paths(data):
            found = pointer_get(data, path)
            if isinstance(found, str) and found:
                return found
        return None

    def _cursor_paths(self, data: Any) -> tuple[str, ...]:
        options = self._options()
        if options.cursor_path is not None:
            return (options.cursor_path,)
        homes: list[str] = list(CURSOR_HOMES)
        lists = (options.instructions_path,) if options.instructions_path else INSTRUCTION_LISTS
        for path in lists:
            home = path if isinstance(pointer_get(data, path), dict) else path.rpartition("/")[0]
            if home and home not in homes:
                homes.append(home)
        return tuple(f"{home}/{name}" for home in homes for name in CURSOR_NAMES)

    def unfollowed_cursor(self, reply: ToolReply) -> str | None:
        """A non-empty string field, outside the instruction items, named like a cursor and not one
        the suite follows: a cursor under a name it does not know, perhaps."""
        if self._options().cursor_path is not None:
            return None
        data = reply.data
        followed = set(self._cursor_paths(data))
        for path, value in _strings(data):
            tokens = path.split("/")[1:]
            if path in followed or not value or len(tokens) > 3 or any(t.isdigit() for t in tokens):
                continue
            if CURSOR_LIKE.search(tokens[-1]):
                return path
        return None
