"""What a service's own OpenAPI document excuses: a 422 for a session id it declares invalid
(schema_refuses), judged on documents as data; a published pattern is hostile input."""

from __future__ import annotations

from typing import Any

from conformance.targets.http.calibration import schema_refuses

PATH = "/sessions/{session_id}/status"


def published(schema: dict[str, Any]) -> dict[str, Any]:
    parameter = {"name": "session_id", "in": "path", "required": True, "schema": schema}
    return {"paths": {PATH: {"get": {"parameters": [parameter]}}}}


def refuses(schema: dict[str, Any], value: str) -> str | None:
    return schema_refuses(published(schema), PATH, "session_id", value)


def test_the_specs_plain_string_refuses_nothing() -> None:
    assert refuses({"type": "string"}, "no-such-session") is None
    assert schema_refuses(None, PATH, "session_id", "x") is None  # no document published


def test_what_the_service_declares_excuses_its_422() -> None:
    real = "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert refuses({"type": "string", "format": "uuid"}, "not-a-uuid") == "its OpenAPI declares format uuid"
    assert refuses({"type": "string", "format": "uuid"}, real) is None
    assert refuses({"type": "string", "pattern": "^[0-9a-f]{32}$"}, "xyz") is not None
    assert refuses({"type": "string", "maxLength": 8}, "x" * 9) == "its OpenAPI declares maxLength 8"
    assert refuses({"type": "string", "enum": ["a"]}, "b") == "its OpenAPI declares an enum"


def test_a_pattern_that_backtracks_for_ever_is_given_the_benefit_of_the_doubt() -> None:
    # (a|aa)+$ against a run of a's and a b backtracks exponentially: bounded, not held against the service
    said = refuses({"type": "string", "pattern": "^(a|aa)+$"}, "a" * 60 + "b")
    assert said is not None and "could not match within" in said
    said = refuses({"type": "string", "pattern": "(unclosed"}, "x")  # unreadable: it may refuse anything
    assert said is not None and "cannot read" in said


def test_a_pattern_is_read_as_json_schema_and_every_validator_may_read_it() -> None:
    # ECMA-262's \w is ASCII: a Go or JavaScript validator refuses a fullwidth id that Python's
    # Unicode \w takes, and pydantic's Rust regex takes it too: only what both readings take is valid.
    word = {"type": "string", "pattern": r"^[\w-]+$"}
    assert refuses(word, "3865a64d-ac95") is None
    assert refuses(word, "３８６５ａ６４ｄ") is not None
    assert refuses({"type": "string", "pattern": r"^\d+$"}, "١٢٣") is not None
    # ECMA's $ never matches before a final newline, Python's does
    assert refuses({"type": "string", "pattern": "^[a-z]+$"}, "abc\n") is not None
    assert refuses({"type": "string", "pattern": "^[a-z]+$"}, "abc") is None


def test_a_format_the_suite_does_not_check_may_refuse_anything() -> None:
    said = refuses({"type": "string", "format": "ulid"}, "not-a-ulid")
    assert said is not None and "does not check" in said
    assert refuses({"type": "string", "format": "uuid4"}, "0f8fad5b-d9cb-469f-a165-70867728950e") is None
