"""How the MCP target reads a server's results and schema, on plain data (no server): where the
instructions, their ids and the cursor are, what an omitted list means, and which schema
spellings say the same thing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.core.outcomes import MissingInput
from conformance.reference.mcp.store import INPUT_SCHEMA
from conformance.targets.mcp.options import McpOptions
from conformance.targets.mcp.queue import QueueTiming
from conformance.targets.mcp.schema import compare_properties, is_closed, normalized
from conformance.targets.mcp.target import (
    Instruction,
    McpTarget,
    NoInstructionList,
    ToolReply,
    carries,
    raise_if_elsewhere,
)
from conformance.transport.peer import Reply


def target(**options: Any) -> McpTarget:
    config = SimpleNamespace(target_options=McpOptions(**options), timeout=10.0)
    return McpTarget(SimpleNamespace(config=config))  # type: ignore[arg-type]  # a stand-in harness: these tests reach only its config


def result(data: Any) -> ToolReply:
    return ToolReply(Reply(1, "tools/call", {"content": [], "structuredContent": data}))


# -- instructions, their ids and the cursor ------------------------------------------------------


def test_an_instruction_id_is_found_under_the_names_servers_use() -> None:
    mcp = target()
    items = mcp.instructions(result({"instructions": [{"instructionId": "a", "text": "x"}]}))
    assert [i.id for i in items] == ["a"] and items[0] == {"instructionId": "a", "text": "x"}
    assert carries(items[0], "x") and not carries(items[0], "a")  # the id is not the text


def test_items_without_a_common_id_ask_for_the_option() -> None:
    with pytest.raises(MissingInput, match="--instruction-id-path"):
        target().instructions(result({"instructions": [{"ref": "a", "text": "x"}]}))
    told = target(instruction_id_path="/ref").instructions(
        result({"instructions": [{"ref": "a", "text": "x"}]})
    )
    assert [i.id for i in told] == ["a"]
    with pytest.raises(MissingInput, match="--instruction-id-path"):  # one id name for every item
        target().instructions(result({"instructions": [{"id": "a"}, {"instructionId": "b"}]}))


def test_a_page_object_holds_the_list_and_its_cursor() -> None:
    mcp = target()
    page = result({"instructions": {"items": [{"id": "a", "text": "x"}], "nextCursor": "c2"}})
    assert [i.id for i in mcp.instructions(page)] == ["a"]
    assert mcp.cursor(page) == "c2"


@pytest.mark.parametrize("name", ["nextCursor", "next_cursor", "instructionCursor", "nextPageToken"])
def test_cursors_are_found_under_common_names(name: str) -> None:
    assert target().cursor(result({"instructions": [], name: "c"})) == "c"


def test_a_cursor_like_field_the_suite_does_not_follow_is_named() -> None:
    mcp = target()
    reply = result(
        {"instructions": [{"id": "a", "text": "x"}], "continuationHandle": "c", "status": "active"}
    )
    assert mcp.cursor(reply) is None and mcp.unfollowed_cursor(reply) == "/continuationHandle"
    assert mcp.unfollowed_cursor(result({"instructions": [], "nextCursor": "c", "currentStep": "s"})) is None
    assert target(cursor_path="/x").unfollowed_cursor(reply) is None  # told where it is


def test_an_omitted_list_is_empty_once_a_list_was_seen_there() -> None:
    mcp = target()
    with pytest.raises(NoInstructionList):
        mcp.instructions(result({"status": "active"}))
    mcp.instructions(result({"instructions": []}))
    assert mcp.instructions(result({"status": "active"})) == []
    assert mcp.instructions(result({"instructions": None})) == []
    assert target(instructions_path="/queue").instructions(result({"status": "active"})) == []


def test_a_list_that_is_no_list_is_not_testable_not_a_failure() -> None:
    with pytest.raises(MissingInput, match="--instructions-path"):
        target().instructions(result({"instructions": "follow the operator"}))


def test_an_instruction_elsewhere_in_the_result_is_pointed_at() -> None:
    reply = result({"queue": {"items": [{"id": "a", "text": "conformance x 1"}]}})
    with pytest.raises(NoInstructionList) as missing:
        target().instructions(reply)
    with pytest.raises(MissingInput, match="--instructions-path /queue/items"):
        raise_if_elsewhere(missing.value, [reply], ["conformance x 1"])


def test_an_instruction_carries_its_text_within_a_longer_string() -> None:
    item = Instruction({"id": "1", "text": "Instruction from operator: conformance t 9"}, "1", "/id")
    assert carries(item, "conformance t 9") and not carries(item, "conformance t 8")


# -- the sequences' timing -----------------------------------------------------------------------


def test_the_sequences_wait_only_for_a_server_that_took_time_to_show_one() -> None:
    assert QueueTiming(0.0, 10.0).settle == 0
    assert QueueTiming(0.5, 10.0).settle == pytest.approx(1.05)
    timing = QueueTiming(0.0, 10.0)
    assert timing.window == 10.0  # the first loss is confirmed over the whole wait
    timing.confirmed = True
    assert timing.window == 0.25  # shrinking it only looks for a shorter sequence


# -- schema spellings ----------------------------------------------------------------------------


def schema_with(**props: Any) -> dict[str, Any]:
    return {**INPUT_SCHEMA, "properties": {**INPUT_SCHEMA["properties"], **props}}


@pytest.mark.parametrize(
    "status",
    [
        {"$ref": "#/$defs/Status"},
        {"anyOf": [{"const": "active"}, {"const": "waiting"}, {"const": "blocked"}]},
        {"oneOf": [{"const": v, "type": "string"} for v in ("active", "waiting", "blocked")]},
        {"type": ["string"], "enum": ["active", "waiting", "blocked"]},
        {"allOf": [{"type": "string"}, {"enum": ["active", "waiting", "blocked"]}]},
    ],
)
def test_equivalent_spellings_of_the_status_enum_pass(status: dict[str, Any]) -> None:
    schema = schema_with(status=status) | {"$defs": {"Status": {"enum": ["active", "waiting", "blocked"]}}}
    assert compare_properties(schema) == []


def test_equivalent_spellings_of_bounds_and_types_pass() -> None:
    schema = schema_with(
        progressPercent={"type": ["number"], "allOf": [{"minimum": 0}, {"maximum": 100}]},
        stepCount={"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1001},
        sessionId={"type": ["string"]},
    )
    assert compare_properties(schema) == []


def test_what_differs_is_still_named_whichever_the_spelling() -> None:
    looser = schema_with(
        status={"anyOf": [{"const": v} for v in ("active", "waiting", "blocked", "done")]},
        progressPercent={"anyOf": [{"type": "number", "minimum": 0, "maximum": 100}, {"type": "null"}]},
        stepIndex={"type": "number", "minimum": 1},
        stepCount={"type": "integer", "minimum": 1, "exclusiveMaximum": 1000},
    )
    found = {str(d) for d in compare_properties(looser)}
    assert "status: looser: enum also allows ['done']" in found
    assert "progressPercent: looser: type ['null', 'number'] (spec: 'number')" in found
    assert "stepIndex: looser: type 'number' (spec: 'integer')" in found
    assert "stepCount: stricter: maximum 999 (spec: 1000)" in found
    strict = schema_with(progressPercent={"type": "integer", "minimum": 0, "exclusiveMaximum": 100})
    assert {str(d) for d in compare_properties(strict)} == {
        "progressPercent: stricter: integer (spec: number)",
        "progressPercent: stricter: exclusiveMaximum 100 (spec: 100)",
    }


def test_a_closed_schema_in_any_spelling() -> None:
    assert is_closed({"additionalProperties": False})
    assert is_closed({"additionalProperties": {"not": {}}})
    assert is_closed({"additionalProperties": {"not": True}})
    assert not is_closed({}) and not is_closed({"additionalProperties": {"type": "string"}})
    assert normalized({"const": 3}) == {"enum": [3]}
