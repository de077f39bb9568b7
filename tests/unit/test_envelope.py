"""Envelope checks on single frames."""

import pytest

from conformance.transport.envelope import classify_frame


@pytest.mark.parametrize(
    ("frame", "kind", "problem"),
    [
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, "response", None),
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "m", "data": {}}},
            "response",
            None,
        ),
        ({"jsonrpc": "2.0", "method": "session/update", "params": {}}, "notification", None),
        ({"jsonrpc": "2.0", "id": "a", "method": "fs/read_text_file", "params": {}}, "request", None),
        ({"id": 1, "result": {}}, "response", '"jsonrpc" is None'),
        ({"jsonrpc": "2.0", "id": 1}, "response", "exactly one of"),
        (
            {"jsonrpc": "2.0", "id": 1, "result": 1, "error": {"code": 1, "message": ""}},
            "response",
            "exactly one of",
        ),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}, "response", "error.code"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": 1}}, "response", "error.message"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "m"}}, "response", "error.code"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "extra": 1}}, "response", "beyond"),
        ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, "response", "expected an object"),
        ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "m"}, "request", "not a string, number or null"),
        ({"jsonrpc": "2.0"}, "invalid", "neither"),
        ([{"jsonrpc": "2.0", "id": 1, "result": {}}], "invalid", "batch"),
        ("hello", "invalid", "JSON str"),
    ],
)
def test_classify_frame(frame, kind, problem) -> None:
    got_kind, problems = classify_frame(frame)
    assert got_kind == kind
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems
