"""Field-by-field comparison of a server's `session_heartbeat` inputSchema with the spec's.

Each difference is one :class:`SchemaDifference`: a property the tool lacks, a constraint it
leaves out or loosens (it accepts calls the spec rejects), or one it tightens (it rejects calls
the spec allows, e.g. requiring more than ``sessionId`` and ``idempotencyKey``). Both kinds
break "This schema is shared with tools/list"; the report says which way each one goes.

What is compared is what a schema accepts, not how it is spelt: each property is first brought
to one spelling (:func:`normalized`). Generators spell the same constraint many ways: Pydantic
puts an Enum behind a local ``$ref`` into ``$defs``, TypeBox writes a union of literals as
``anyOf`` of ``const``, a ``type`` may be a one-element list, and ``additionalProperties:
{"not": {}}`` is ``false``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote

from conformance.core.validation import load

__all__ = [
    "SPEC_SCHEMA",
    "SchemaDifference",
    "compare_properties",
    "compare_required",
    "is_closed",
    "normalized",
    "spec_schema",
]

SPEC_SCHEMA = "mcp-session-heartbeat.input.json"
BOUNDS = (("minimum", "lower"), ("maximum", "upper"))
NOTHING: dict[str, Any] = {"enum": []}  # a schema no instance passes (``false``)
NUMERIC = ("number", "integer")


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


def _resolve(pointer: str, root: Any) -> Any:
    node = root
    for token in pointer.lstrip("/").split("/") if pointer.strip("/") else []:
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _types(value: Any) -> set[str] | None:
    """A ``type`` as a set (None: any type); "integer" is left out where "number" is in."""
    if isinstance(value, str):
        found = {value}
    elif isinstance(value, list) and all(isinstance(t, str) for t in value):
        found = set(value)
    else:
        return None
    return found - {"integer"} if "number" in found else found


def _accepts_type(types: set[str], name: str) -> bool:
    return name in types or (name == "integer" and "number" in types)


def normalized(schema: Any, root: Any = None, depth: int = 0) -> dict[str, Any]:
    """What a subschema says of type, enum, bounds and items, in one spelling: local ``$ref``
    resolved, ``allOf`` intersected, ``anyOf``/``oneOf`` united (a union of literals is an enum),
    ``const`` an enum of one, ``type`` a string or a list of several, ``false`` an empty enum."""
    root = schema if root is None else root
    if schema is True or depth > 32:
        return {}
    if schema is False:
        return dict(NOTHING)
    if not isinstance(schema, dict):
        return {}
    if "not" in schema and normalized(schema["not"], root, depth + 1) == {}:
        return dict(NOTHING)
    own = {
        k: v for k, v in schema.items() if k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
    }
    if "type" in schema and _types(schema["type"]) is not None:
        own["type"] = schema["type"]
    if isinstance(schema.get("enum"), list):
        own["enum"] = list(schema["enum"])
    if "const" in schema:
        own = _intersect(own, {"enum": [schema["const"]]})
    if "items" in schema:
        own["items"] = normalized(schema["items"], root, depth + 1)
    parts = [own]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = _resolve(ref[1:], root)
        if target is not None:
            parts.append(normalized(target, root, depth + 1))
    for sub in schema.get("allOf") or []:
        parts.append(normalized(sub, root, depth + 1))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            parts.append(_union([normalized(b, root, depth + 1) for b in branches]))
    out: dict[str, Any] = {}
    for part in parts:
        out = _intersect(out, part)
    types = _types(out.get("type"))
    if types is not None:
        out["type"] = next(iter(types)) if len(types) == 1 else sorted(types)
    return out


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b and (type(a) is type(b) or (_number(a) and _number(b)))


def _intersect(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both schemas at once (allOf): the stricter of each constraint."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif key == "type":
            mine, theirs = _types(out[key]) or set(), _types(value) or set()
            both = {t for t in mine if _accepts_type(theirs, t)} | {
                t for t in theirs if _accepts_type(mine, t)
            }
            out[key] = sorted(both) if len(both) != 1 else next(iter(both))
        elif key == "enum":
            out[key] = [v for v in out[key] if any(_same_value(v, w) for w in value)]
        elif key in ("minimum", "exclusiveMinimum") and _number(value) and _number(out[key]):
            out[key] = max(out[key], value)
        elif key in ("maximum", "exclusiveMaximum") and _number(value) and _number(out[key]):
            out[key] = min(out[key], value)
        elif key == "items":
            out[key] = _intersect(out[key], value)
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _union(branches: list[dict[str, Any]]) -> dict[str, Any]:
    """Any one of the branches (anyOf, oneOf): only what every branch constrains is kept."""
    if len(branches) == 1:
        return branches[0]
    out: dict[str, Any] = {}
    types = [_types(b.get("type")) for b in branches]
    if all(t is not None for t in types):
        out["type"] = sorted(set().union(*[t for t in types if t is not None]))
    if all("enum" in b for b in branches):
        out["enum"] = [v for b in branches for v in b["enum"]]
    # Bounds constrain numbers only: a branch that holds no number (a "null") leaves them be.
    numeric = [b for b, t in zip(branches, types, strict=True) if t is None or any(n in t for n in NUMERIC)]
    for key, pick in (
        ("minimum", min),
        ("exclusiveMinimum", min),
        ("maximum", max),
        ("exclusiveMaximum", max),
    ):
        values = [b.get(key) for b in numeric]
        if numeric and all(_number(v) for v in values):
            out[key] = pick(cast("list[float]", values))  # each a number: _number said so
    arrays = [b for b, t in zip(branches, types, strict=True) if t is None or "array" in t]
    if arrays and all("items" in b for b in arrays):
        out["items"] = arrays[0]["items"] if len(arrays) == 1 else _union([b["items"] for b in arrays])
    return out


def is_closed(schema: dict[str, Any]) -> bool:
    """Whether the schema rejects properties it does not list (``additionalProperties: false`` in
    any spelling that accepts nothing, e.g. ``{"not": {}}``)."""
    extra = schema.get("additionalProperties", True)
    return normalized(extra, schema).get("enum", None) == []


def _root(actual: dict[str, Any]) -> dict[str, Any]:
    """The object schema itself, where the inputSchema is only a local ``$ref`` to it."""
    ref = actual.get("$ref")
    if "properties" not in actual and isinstance(ref, str) and ref.startswith("#"):
        target = _resolve(ref[1:], actual)
        if isinstance(target, dict):
            return target
    return actual


def compare_required(actual: dict[str, Any]) -> list[SchemaDifference]:
    spec = set(spec_schema()["required"])
    required = _root(actual).get("required")
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
    props = _root(actual).get("properties")
    props = props if isinstance(props, dict) else {}
    out: list[SchemaDifference] = []
    for name, want in spec_schema()["properties"].items():
        have = props.get(name)
        if not isinstance(have, dict) and have is not True:
            out.append(SchemaDifference(name, "missing", "the spec has it, the tool's schema does not"))
            continue
        out += _compare_field(name, normalized(want), normalized(have, actual))
    return out


def _compare_field(name: str, want: dict[str, Any], have: dict[str, Any]) -> list[SchemaDifference]:
    out: list[SchemaDifference] = []
    want_types, have_types = _types(want.get("type")), _types(have.get("type"))
    if want_types is not None:
        if have_types is None:
            if "enum" not in have:
                out.append(SchemaDifference(name, "looser", f"no type (spec: {want['type']})"))
        else:
            extra = sorted(t for t in have_types if not _accepts_type(want_types, t))
            lacking = sorted(t for t in want_types if not _accepts_type(have_types, t))
            if extra:
                out.append(
                    SchemaDifference(name, "looser", f"type {have['type']!r} (spec: {want['type']!r})")
                )
            if lacking:
                out.append(SchemaDifference(name, "stricter", f"{have['type']} (spec: {want['type']})"))
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
    integer = want_types == {"integer"}
    for key, side in BOUNDS:
        if key not in want:
            continue
        spec_bound, bound = _bound(want, side, integer), _bound(have, side, integer)
        if bound is None:
            out.append(SchemaDifference(name, "looser", f"no {key} (spec: {want[key]})"))
        elif spec_bound is not None and bound != spec_bound:
            (value, exclusive), (spec_value, spec_exclusive) = bound, spec_bound
            if side == "lower":
                looser = value < spec_value or (value == spec_value and spec_exclusive and not exclusive)
            else:
                looser = value > spec_value or (value == spec_value and spec_exclusive and not exclusive)
            shown = f"{'exclusive' + key.capitalize() if exclusive else key} {value}"
            out.append(
                SchemaDifference(name, "looser" if looser else "stricter", f"{shown} (spec: {want[key]})")
            )
    if "items" in want:
        items = have.get("items")
        item_types = _types(items.get("type")) if isinstance(items, dict) else None
        want_items = _types(want["items"].get("type"))
        if item_types != want_items:
            shown = items.get("type") if isinstance(items, dict) else None
            out.append(
                SchemaDifference(name, "looser", f"items of type {shown!r} (spec: {want['items']['type']!r})")
            )
    return out


def _bound(schema: dict[str, Any], side: str, integer: bool) -> tuple[float, bool] | None:
    """The tightest bound on one side, as (value, exclusive); for an integer, as an inclusive one."""
    plain, strict = ("minimum", "exclusiveMinimum") if side == "lower" else ("maximum", "exclusiveMaximum")
    found: list[tuple[float, bool]] = []
    if _number(schema.get(plain)):
        found.append((schema[plain], schema.get(strict) is True))  # draft 4: a boolean beside it
    if _number(schema.get(strict)):
        found.append((schema[strict], True))
    if not found:
        return None
    if integer:
        if side == "lower":
            found = [(math.floor(v) + 1 if x else math.ceil(v), False) for v, x in found]
        else:
            found = [(math.ceil(v) - 1 if x else math.floor(v), False) for v, x in found]
    if side == "lower":
        return max(found, key=lambda b: (b[0], b[1]))
    return min(found, key=lambda b: (b[0], not b[1]))
