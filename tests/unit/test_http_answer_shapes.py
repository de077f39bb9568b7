"""The HTTP target's judgement of an answer's form, on data: the media type the spec's 200 and
422 content name, the 422 body as the spec's HTTPValidationError (no stricter), and where its
detail names a field (shown, not judged)."""

from __future__ import annotations

import conformance.cases as cases
import httpx
from conformance.cases.http.status import JSON, SCHEMA, names_field

from conformance.core.validation import schema_errors
from conformance.targets.http.target import StatusProbe

cases.load_all()


def media(content_type: str | None) -> str | None:
    headers = {} if content_type is None else {"content-type": content_type}
    return StatusProbe(httpx.Response(200, content=b"{}", headers=headers)).media_type


def test_the_media_type_is_read_without_its_parameters_and_case() -> None:
    assert media("application/json") == JSON
    assert media("Application/JSON; charset=utf-8") == JSON
    assert media("text/html; charset=utf-8") == "text/html"
    assert media("application/problem+json") != JSON  # another media type than the spec names
    assert media(None) is None


def test_an_http_validation_error_is_what_the_spec_says_and_no_more() -> None:
    def valid(body: object) -> bool:
        return schema_errors("HTTPValidationError", body, name=SCHEMA) == []

    assert valid({}) and valid({"error": "x-user-id required"}) and valid({"detail": []})
    assert valid({"detail": [{"loc": ["header", "x-user-id"], "msg": "Field required", "type": "missing"}]})
    assert not valid({"detail": "x-user-id header is required"})
    assert not valid({"detail": [{"loc": ["header", "x-user-id"]}]})  # msg and type are required
    assert not valid([]) and not valid("Unprocessable")


def test_a_header_is_named_in_any_letter_case_a_query_parameter_exactly() -> None:
    def body(*loc: str) -> dict:
        return {"detail": [{"loc": list(loc), "msg": "Field required", "type": "missing"}]}

    assert names_field(body("header", "X-User-Id"), "x-user-id", header=True)
    assert not names_field(body("query", "Agent_Id"), "agent_id", header=False)
    assert names_field(body("query", "agent_id"), "agent_id", header=False)
    assert not names_field({"error": "x"}, "x-user-id", header=True)
    assert not names_field({"detail": "x-user-id"}, "x-user-id", header=True)
