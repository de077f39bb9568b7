"""The judgement behind the calibrated probes, on plain data (no server)."""

from __future__ import annotations

import itertools
from typing import Any, cast

import anyio

from conformance.targets.mcp.probe import (
    ABSENT,
    StateProbe,
    execution_fields,
    leaves,
    pointers_to,
    read,
    read_untouched,
    same,
)
from conformance.targets.mcp.target import McpTarget, ToolReply, carries


def test_leaves_are_json_pointers() -> None:
    data = {"a": {"b": [1, {"c": "x"}]}, "d/e": None, "empty": {}}
    assert leaves(data) == {"/a/b/0": 1, "/a/b/1/c": "x", "/d~1e": None, "/empty": {}}


def test_json_equality_keeps_booleans_apart_from_numbers() -> None:
    assert same(1, 1.0) and same("a", "a") and same(ABSENT, ABSENT)
    assert not same(True, 1) and not same(0, False) and not same("1", 1) and not same(None, ABSENT)


def test_a_written_value_is_found_wherever_the_result_puts_it() -> None:
    result = {"session": {"status": "waiting", "step": "probe 1"}, "echo": "waiting"}
    assert pointers_to(result, "waiting") == {"/session/status", "/echo"}
    probe = StateProbe("currentStep", "/session/step")
    assert probe.value_in(result) == "probe 1" and probe.value_in({}) is ABSENT


def test_execution_fields_leave_out_what_every_answer_changes() -> None:
    first = {"heartbeatId": "hb-1", "respondedAt": 1.0, "status": "active"}
    other = {"heartbeatId": "hb-2", "respondedAt": 2.0, "status": "active"}
    replay = {"heartbeatId": "hb-1", "respondedAt": 3.0, "status": "active", "replayed": True}
    assert execution_fields(first, other, replay) == {"/heartbeatId"}
    # A server that executes the retry again: nothing tells executions apart.
    again = {"heartbeatId": "hb-3", "respondedAt": 3.0, "status": "active"}
    assert execution_fields(first, other, again) == set()


def test_an_instruction_carries_its_text_in_any_field_but_its_id() -> None:
    assert carries({"id": "1", "text": "do it"}, "do it")
    assert carries({"id": "1", "message": {"body": "do it"}}, "do it")
    assert not carries({"id": "do it", "text": "other"}, "do it")


def test_reads_in_a_row_never_repeat_their_arguments() -> None:
    """A server that takes a call with an earlier one's arguments for its retry (whatever its key)
    would answer a repeated read from its cache, and the calibration would lose the probe."""
    sent: list[dict[str, Any]] = []

    class Recorder:
        async def ok_heartbeat(self, session_id: str, **arguments: Any) -> ToolReply:
            sent.append(arguments)
            return cast(ToolReply, None)

    mcp = cast(McpTarget, Recorder())

    async def reads() -> None:
        for _ in range(300):
            await read(mcp, "sess", "currentStep")
            await read_untouched(mcp, "sess")

    anyio.run(reads)
    progress = [a["progressPercent"] for a in sent[0::2]]
    steps = [a["stepCount"] for a in sent[1::2]]
    assert all(a != b for a, b in itertools.pairwise(progress))
    assert all(a != b for a, b in itertools.pairwise(steps))
    assert all(1 <= p <= 99 for p in progress) and all(2 <= s <= 1000 for s in steps)
