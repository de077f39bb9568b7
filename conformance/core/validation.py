"""JSON Schemas the suite validates against, loaded from the top-level ``schemas/`` folder."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["REVISION_SCHEMA", "load", "schema_errors"]

REVISION_SCHEMA = "acp-session-status.rfd-2026-10-26.json"


@functools.cache
def load(name: str) -> dict[str, Any]:
    return json.loads(resources.files("conformance.schemas").joinpath(name).read_text(encoding="utf-8"))


@functools.cache
def _validator(name: str, definition: str | None) -> Draft202012Validator:
    schema = load(name)
    if definition is not None:
        if definition not in schema.get("$defs", {}):
            raise KeyError(f"{name} has no definition {definition!r}")
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(definition: str | None, instance: Any, *, name: str | None = None) -> list[str]:
    """Validation errors of ``instance`` against ``definition`` of schema file ``name`` (default:
    the schema of the revision being checked)."""
    if name is None:
        from conformance.core import revisions

        name = revisions.current().schema or REVISION_SCHEMA
    errors = sorted(_validator(name, definition).iter_errors(instance), key=lambda e: list(e.absolute_path))
    out = []
    for e in errors[:10]:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        out.append(f"{where}: {e.message[:200]}")
    return out


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON (RFC 8259 section 6: numbers have no NaN or Infinity)")


def strict_loads(text: str | bytes) -> Any:
    """JSON as RFC 8259 defines it: Python's parser also takes NaN, Infinity and -Infinity, which
    browsers and most clients refuse (the whole body with them); here they are a ValueError."""
    return json.loads(text, parse_constant=_reject_constant)
