"""The optional parameters of session creation, read from the service's own OpenAPI document.

A session created with every parameter left at its default is one kind of session; a service
also makes sessions in another workspace, with another mode or priority, and its status must be
as right for those. The request body schema of ``POST /sessions/`` names what the service
accepts: each optional property the suite can give a value without inventing a resource
(an enum, a free string, a boolean, a bounded number) is a parameter to vary. Model
configurations, agents and names stay the driver's: they name resources the suite made.

Plain data here (the schema is hostile input: bounded, never recursive past a few references);
:meth:`HttpStatusTarget.new_session` sends what :func:`draw_options` makes.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

__all__ = ["Parameter", "creation_parameters", "draw_options"]

SESSIONS_PATH = "/sessions/"
DRIVER_FIELDS = frozenset({"agent_id", "name", "chat_model_config"})  # what the driver sends itself
MAX_PARAMETERS = 12
MAX_ENUM = 16
MAX_REFS = 4  # $ref hops followed for one schema
MAX_STRING = 40  # a free string longer than a service's maxLength is refused, not varied


@dataclass(frozen=True)
class Parameter:
    """One optional body field of session creation and the values the suite may give it; a free
    string (``values`` empty, ``kind`` "string") gets a fresh value per session: a service may keep
    one session per value (AgentScope upserts on user, agent and workspace), and twins must be two."""

    name: str
    kind: str  # "enum", "string", "boolean", "integer", "number"
    values: tuple[Any, ...] = ()
    max_length: int | None = None

    def value(self, rng: random.Random) -> Any:
        if self.kind == "string":
            # A digit in every value: the twins' views compare values that name one session by kind.
            made = f"conformance-{self.name[:12]}-{rng.randrange(10)}{uuid.uuid4().hex[:7]}"
            return made[: self.max_length] if self.max_length else made
        return rng.choice(self.values)


def _resolve(document: dict[str, Any], schema: Any) -> dict[str, Any]:
    for _ in range(MAX_REFS):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            break
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return {}
        found: Any = document
        for part in ref[2:].split("/")[:8]:
            found = found.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(found, dict) else None
        schema = found
    return schema if isinstance(schema, dict) else {}


def _alternatives(document: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema's non-null forms (``anyOf`` / ``oneOf`` of a ``X | None`` field, or itself)."""
    forms = schema.get("anyOf") or schema.get("oneOf")
    found = [_resolve(document, s) for s in forms[:8]] if isinstance(forms, list) else [schema]
    return [s for s in found if s and s.get("type") != "null"]


def _parameter(document: dict[str, Any], name: str, schema: dict[str, Any]) -> Parameter | None:
    default = schema.get("default")
    for form in _alternatives(document, schema):
        if isinstance(form.get("enum"), list):
            values = tuple(
                v for v in form["enum"][:MAX_ENUM] if isinstance(v, str | int | bool) and v != default
            )
            if values:
                return Parameter(name, "enum", values)
            continue
        kind = form.get("type")
        if kind == "string" and not any(k in form for k in ("pattern", "format", "const")):
            limit = form.get("maxLength")
            if isinstance(limit, int) and limit < 8:
                continue
            return Parameter(name, "string", max_length=limit if isinstance(limit, int) else MAX_STRING)
        if kind == "boolean":
            return Parameter(name, "boolean", tuple(v for v in (True, False) if v != default) or (True,))
        if kind in ("integer", "number"):
            low, high = form.get("minimum"), form.get("maximum")
            low = low if isinstance(low, int | float) and not isinstance(low, bool) else 0
            candidates = [int(low) + 1, int(low)]
            if isinstance(high, int | float) and not isinstance(high, bool):
                candidates = [c for c in candidates if c <= high]
            values = tuple(c for c in candidates if c != default)
            if values:
                return Parameter(name, kind, values)
    return None


def creation_parameters(document: dict[str, Any]) -> list[Parameter]:
    """The optional fields of ``POST /sessions/``'s JSON body the suite can vary, in the document's
    order (none when the service documents no such body)."""
    paths = document.get("paths") if isinstance(document.get("paths"), dict) else {}
    item = paths.get(SESSIONS_PATH) if isinstance(paths, dict) else None
    operation = item.get("post") if isinstance(item, dict) else None
    body = operation.get("requestBody") if isinstance(operation, dict) else None
    content = body.get("content") if isinstance(body, dict) else None
    media = content.get("application/json") if isinstance(content, dict) else None
    schema = _resolve(document, media.get("schema") if isinstance(media, dict) else None)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
    found = []
    for name, spec in list(properties.items())[:64]:
        if not isinstance(name, str) or name in DRIVER_FIELDS or name in required:
            continue
        parameter = _parameter(document, name, _resolve(document, spec))
        if parameter is not None:
            found.append(parameter)
        if len(found) >= MAX_PARAMETERS:
            break
    return found


def draw_options(parameters: list[Parameter], rng: random.Random) -> dict[str, Any]:
    """A value for every parameter (none left at its default): the session the defaults never make."""
    return {p.name: p.value(rng) for p in parameters}
