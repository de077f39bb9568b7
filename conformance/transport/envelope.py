"""JSON-RPC 2.0 envelope checks for every frame the agent sends.

Cases never check envelopes; the peer runs these on every frame and the plugin fails the case
during which a broken frame arrived. Each function returns a list of problems (empty: fine).
"""

from __future__ import annotations

from typing import Any

__all__ = ["classify_frame", "error_object_problems", "response_problems"]

JSONRPC = "2.0"


def _is_id(value: Any) -> bool:
    # JSON-RPC 2.0: "String, Number, or NULL"; bool is a JSON literal, not a Number.
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))


def classify_frame(frame: Any) -> tuple[str, list[str]]:
    """Kind of frame ('response', 'request', 'notification', 'invalid') and envelope problems."""
    if not isinstance(frame, dict):
        kind = "batch" if isinstance(frame, list) else type(frame).__name__
        return "invalid", [f"frame is a JSON {kind}, not an object"]
    problems: list[str] = []
    if frame.get("jsonrpc") != JSONRPC:
        problems.append(f'"jsonrpc" is {frame.get("jsonrpc")!r}, expected "2.0"')
    if "method" in frame:
        if not isinstance(frame["method"], str):
            problems.append(f'"method" is {type(frame["method"]).__name__}, expected string')
        if "params" in frame and not isinstance(frame["params"], (dict, list)):
            problems.append('"params" must be an object or array when present')
        if "result" in frame or "error" in frame:
            problems.append('a request or notification carries "result"/"error"')
        if "id" in frame:
            if not _is_id(frame["id"]):
                problems.append(f'"id" {frame["id"]!r} is not a string, number or null')
            return "request", problems
        return "notification", problems
    if "id" not in frame:
        problems.append('frame has neither "method" nor "id"')
        return "invalid", problems
    return "response", problems + response_problems(frame)


def response_problems(frame: dict[str, Any]) -> list[str]:
    has_result, has_error = "result" in frame, "error" in frame
    if has_result == has_error:
        return ['a response must carry exactly one of "result" and "error"']
    if has_error:
        return error_object_problems(frame["error"])
    return []


def error_object_problems(error: Any) -> list[str]:
    if not isinstance(error, dict):
        return [f'"error" is {type(error).__name__}, expected an object']
    problems = []
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        problems.append(f'"error.code" is {code!r}, expected an integer')
    if not isinstance(error.get("message"), str):
        problems.append(f'"error.message" is {error.get("message")!r}, expected a string')
    extra = set(error) - {"code", "message", "data"}
    if extra:
        problems.append(f'"error" has members beyond code/message/data: {sorted(extra)}')
    return problems
