"""Field-by-field comparison of a server's `session_heartbeat` inputSchema with the spec's.

Each difference is one :class:`SchemaDifference`: a property the tool lacks, a constraint it
leaves out or loosens (it accepts calls the spec rejects), or one it tightens (it rejects calls
the spec allows, e.g. requiring more than ``sessionId`` and ``idempotencyKey``). Both kinds
break "This schema is shared with tools/list"; the report says which way each one goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.core.validation import load

__all__ = ["SPEC_SCHEMA", "SchemaDifference", "compare_properties", "compare_required", "spec_schema"]

SPEC_SCHEMA = "mcp-session-heartbeat.input.json"
BOUNDS = (("minimum", "lower"), ("maximum", "upper"))


@dataclass(frozen=True)
class SchemaDifference:
    field: str
    kind: str  # missing | looser | stricter
    detail: str

    def __str__(self) -> str:
        return f"{self.field}: {self.kind}: {self.detail}"


def spec_schema() -> dict[str, Any]:
    schema = dict(load(SPEC_SCHEMA))
    for key in ("$schema", "$id", "title", "description"):
        schema.pop(key, None)
    return schema


def compare_required(actual: dict[str, Any]) -> list[SchemaDifference]:
    spec = set(spec_schema()["required"])
    required = actual.get("required")
    have = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    out = [
        SchemaDifference(name, "looser", "required by the spec, optional in the tool's schema")
        for name in sorted(spec - have)
    ]
    out += [
        SchemaDifference(name, "stricter", "required by the tool's schema, optional (or unknown) in the spec")
        for name in sorted(have - spec)
    ]
    return out


def compare_properties(actual: dict[str, Any]) -> list[SchemaDifference]:
    props = actual.get("properties")
    props = props if isinstance(props, dict) else {}
    out: list[SchemaDifference] = []
    for name, want in spec_schema()["properties"].items():
        have = props.get(name)
        if not isinstance(have, dict):
            out.append(SchemaDifference(name, "missing", "the spec has it, the tool's schema does not"))
            continue
        out += _compare_field(name, want, have)
    return out


def _compare_field(name: str, want: dict[str, Any], have: dict[str, Any]) -> list[SchemaDifference]:
    out: list[SchemaDifference] = []
    if "type" in want and have.get("type") != want["type"]:
        if "type" not in have and "enum" not in have:
            out.append(SchemaDifference(name, "looser", f"no type (spec: {want['type']})"))
        elif want["type"] == "number" and have.get("type") == "integer":
            out.append(SchemaDifference(name, "stricter", "integer (spec: number)"))
        elif have.get("type") is not None:
            out.append(
                SchemaDifference(name, "looser", f"type {have.get('type')!r} (spec: {want['type']!r})")
            )
    if "enum" in want:
        spec_values, values = set(want["enum"]), have.get("enum")
        if not isinstance(values, list):
            out.append(SchemaDifference(name, "looser", f"no enum (spec: {sorted(spec_values)})"))
        else:
            extra, lacking = set(map(str, values)) - spec_values, spec_values - set(map(str, values))
            if extra:
                out.append(SchemaDifference(name, "looser", f"enum also allows {sorted(extra)}"))
            if lacking:
                out.append(SchemaDifference(name, "stricter", f"enum lacks {sorted(lacking)}"))
    for key, side in BOUNDS:
        if key not in want:
            continue
        bound = have.get(key)
        if not isinstance(bound, int | float) or isinstance(bound, bool):
            out.append(SchemaDifference(name, "looser", f"no {key} (spec: {want[key]})"))
        elif bound != want[key]:
            looser = bound < want[key] if side == "lower" else bound > want[key]
            out.append(
                SchemaDifference(
                    name, "looser" if looser else "stricter", f"{key} {bound} (spec: {want[key]})"
                )
            )
    if "items" in want:
        items = have.get("items")
        item_type = items.get("type") if isinstance(items, dict) else None
        if item_type != want["items"].get("type"):
            out.append(
                SchemaDifference(
                    name, "looser", f"items of type {item_type!r} (spec: {want['items']['type']!r})"
                )
            )
    return out
