"""Session creation's optional parameters, read from a service's OpenAPI document, and the
shrinking of a failing step list (the HTTP twin sequence's), on data."""

from __future__ import annotations

import importlib
import random
import sys

import anyio

from conformance.core.shrinking import shrink_steps
from conformance.targets.http.creation import creation_parameters, draw_options
from tests.conftest import AGENTS

HTTP_AGENTS = AGENTS / "http"


def test_sessions_are_created_with_the_optional_parameters_the_openapi_document_names() -> None:
    sys.path.insert(0, str(HTTP_AGENTS))
    try:
        extra = importlib.import_module("extra_creation_parameters")  # a variant script, by its folder
    finally:
        sys.path.remove(str(HTTP_AGENTS))
    from conformance.reference.http.service import ReferenceService, create_app

    app = create_app(ReferenceService())
    assert [p.name for p in creation_parameters(app.openapi())] == ["workspace_id"]
    extra.extend(app, None)
    found = {p.name: p for p in creation_parameters(app.openapi())}
    # A pattern the suite cannot fill is left alone; the driver's own fields are never varied.
    assert sorted(found) == ["archived", "label", "max_turns", "mode", "priority", "workspace_id"]
    assert found["priority"].values == ("low", "high")  # the default is not a variation
    assert found["archived"].values == (True,)
    first, second = (draw_options(list(found.values()), random.Random(7)) for _ in range(2))
    # One draw, two sessions: the same values but each its own free string (a workspace apiece).
    assert {k: v for k, v in first.items() if k not in ("workspace_id", "label")} == {
        k: v for k, v in second.items() if k not in ("workspace_id", "label")
    }
    assert first["workspace_id"] != second["workspace_id"]
    assert any(c.isdigit() for c in first["workspace_id"]) and len(first["label"]) <= 64


def test_a_hostile_creation_schema_is_read_bounded() -> None:
    loop = {"$ref": "#/components/schemas/A"}
    document = {
        "paths": {
            "/sessions/": {"post": {"requestBody": {"content": {"application/json": {"schema": loop}}}}}
        },
        "components": {"schemas": {"A": loop}},
    }
    assert creation_parameters(document) == []
    assert creation_parameters({"paths": []}) == [] and creation_parameters({}) == []


def test_a_failing_step_list_is_shrunk_to_one_minimal_among_the_lists_allowed() -> None:
    # Fails when "b" comes before "d" (needs the steps up to "d"); "c" must follow an "a".
    def valid(steps: list[str]) -> bool:
        return all(i > 0 and "a" in steps[:i] for i, s in enumerate(steps) if s == "c")

    async def fails(steps: list[str]) -> int | None:
        if "b" in steps and "d" in steps[steps.index("b") :]:
            return steps.index("d", steps.index("b")) + 1
        return None

    async def main() -> tuple[list[str], int]:
        return await shrink_steps(["a", "c", "b", "a", "c", "d", "e", "a"], fails, valid=valid)

    shrunk, replays = anyio.run(main)
    assert shrunk == ["b", "d"] and replays <= 12


def test_shrinking_stops_at_its_deadline_with_what_it_has() -> None:
    async def fails(steps: list[str]) -> int | None:
        return len(steps)

    shrunk, replays = anyio.run(lambda: shrink_steps(["a", "b", "c"], fails, deadline=0.0))
    assert shrunk == ["a", "b", "c"] and replays == 0
