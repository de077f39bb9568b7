"""The MCP twin sequences' judgement on plain data: what a twin's answer shows, how two compare,
the arguments built from a tool's inputSchema, a resource template filled (no server)."""

from __future__ import annotations

from conformance.targets.mcp.probe import ABSENT
from conformance.targets.mcp.reading import Instruction
from conformance.targets.mcp.twinseq import View, arguments_for, compare, fill_template, view_of

TEXTS = ["conformance twin 1 aa", "conformance twin 2 bb", "conformance twin 3 cc"]


def item(text: str, iid: str) -> Instruction:
    return Instruction({"id": iid, "text": text}, iid, "/id")


def test_a_view_names_the_enqueued_texts_in_delivery_order() -> None:
    view = view_of(True, [item(TEXTS[2], "x"), item(TEXTS[0], "y")], TEXTS, cursor=True)
    assert view == View(True, (2, 0), True)
    assert "#3, #1" in view.describe() and "a cursor" in view.describe()


def test_twins_answered_alike_do_not_differ_whatever_their_ids() -> None:
    nudged = view_of(True, [item(TEXTS[0], "id-of-twin-a")], TEXTS, cursor=False, value="v")
    control = view_of(True, [item(TEXTS[0], "id-of-twin-b")], TEXTS, cursor=False, value="v")
    assert compare(nudged, control) is None
    assert compare(View(True, (), False), View(True, (), False)) is None  # neither read a value


def test_each_difference_is_named() -> None:
    differ = compare(View(True, (), False, "blocked"), View(True, (0, 1), True, "active"))
    assert differ is not None
    assert "delivered [] / [#1, #2]" in differ
    assert "a cursor False / True" in differ
    assert "'blocked' / 'active'" in differ
    assert compare(View(False, (), False), View(True, (), False)) == "accepted False / True"
    assert "nothing" in (compare(View(True, (), False, ABSENT), View(True, (), False, 3)) or "")


def test_arguments_are_drawn_from_the_schema_with_the_twins_session() -> None:
    schema = {
        "type": "object",
        "properties": {
            "sessionId": {"type": "string"},
            "idempotencyKey": {"type": "string"},
            "mode": {"enum": ["fast", "slow"]},
            "count": {"type": "integer", "minimum": 3},
            "ratio": {"type": ["number", "null"], "exclusiveMinimum": 0},
            "flag": {"type": "boolean"},
            "tags": {"type": "array"},
            "extra": {"type": "object"},
            "note": {"type": "string"},
            "anything": {},
        },
    }
    args = arguments_for(schema, "conformance-twin")
    assert args["sessionId"] == "conformance-twin"
    assert args["idempotencyKey"].startswith("idem-")
    assert (args["mode"], args["count"], args["ratio"], args["flag"]) == ("fast", 3, 1, False)
    assert (args["tags"], args["extra"]) == ([], {})
    assert args["note"].startswith("conformance-") and args["note"] != "conformance-twin"
    assert "anything" not in args  # no type said: left out
    assert arguments_for({"type": "object"}, "s") == {} and arguments_for("not a schema", "s") == {}


def test_a_resource_template_is_filled_with_the_twins_id() -> None:
    assert fill_template("heartbeat://sessions/{sessionId}/state", "t1") == "heartbeat://sessions/t1/state"
    assert fill_template("x://{session_id}/{kind}", "t1") == "x://t1/conformance"
    assert fill_template("x://{+sessionPath*}", "t1") == "x://t1"
