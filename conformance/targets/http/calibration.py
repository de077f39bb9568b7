"""Judging what the HTTP target's probes show, on plain data (no I/O; tested in tests/targets/http/test_http.py).

A case that infers a hidden effect through a probe first proves the probe observes it: it reads
twice (what differs between two reads is the probe's own drift: clocks, request ids, read
markers, never evidence), writes a known value and reads it back (a part that does not show the
write cannot show a probe's write either). Only what is stable and shown to observe counts.

- :func:`flatten` turns a body into ``{path: leaf}`` so answers are compared field by field;
- :func:`differing` lists the paths where two flattened views differ;
- :func:`shaped_like` makes an id that has never been created in the shape of the ones that have
  (a service that validates its ids' format answers a malformed id 422, not 404);
- :func:`body_view` is a 404 body with the probed id taken out, for comparing two 404s.
"""

from __future__ import annotations

import collections
import math
import random
import re
import string
import uuid
from collections.abc import Collection, Sequence
from typing import Any

import regex

from conformance.core.validation import strict_loads

__all__ = [
    "body_view",
    "differing",
    "flatten",
    "listed",
    "parsed",
    "parts_of",
    "schema_refuses",
    "shaped_like",
]

_HEX = re.compile(r"^[0-9a-fA-F-]+$")
MIN_SHAPED = 16  # shorter ids are too easy to hit by chance: fall back to a long, named id
MAX_DEPTH = 64  # deeper nesting (hostile data) is one leaf


def flatten(value: Any, prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """``{"a.b[0].c": leaf}`` for a JSON value (a leaf at ``prefix`` itself for scalars)."""
    out: dict[str, Any] = {}
    if depth > MAX_DEPTH and isinstance(value, dict | list):
        out[prefix] = f"<nested deeper than {MAX_DEPTH}>"
    elif isinstance(value, dict):
        if not value:
            out[prefix] = {}
        for key, sub in value.items():
            out.update(flatten(sub, f"{prefix}.{key}" if prefix else str(key), depth + 1))
    elif isinstance(value, list):
        if not value:
            out[prefix] = []
        for i, sub in enumerate(value):
            out.update(flatten(sub, f"{prefix}[{i}]", depth + 1))
    else:
        out[prefix] = value
    return out


def differing(a: dict[str, Any], b: dict[str, Any]) -> set[str]:
    """Paths present in either flattened view whose values differ (or that one lacks)."""
    missing = object()
    return {k for k in a.keys() | b.keys() if a.get(k, missing) != b.get(k, missing)}


def parts_of(paths: set[str]) -> set[str]:
    """The top-level parts ("messages", "listing") the paths belong to."""
    return {re.split(r"[.\[]", p, maxsplit=1)[0] for p in paths}


def listed(paths: list[str], most: int = 4) -> str:
    """A few paths, and how many more: for a message."""
    more = f" and {len(paths) - most} more fields" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more


def parsed(text: str) -> Any:
    """A body as JSON if it is JSON, else the text itself (one leaf)."""
    try:
        return strict_loads(text)
    except (ValueError, RecursionError):
        return text


def body_view(text: str, probed_id: str) -> dict[str, Any]:
    """A 404 body, flattened, with the probed id (and its URL-encoded form) replaced by ``<id>``."""
    pattern = re.compile("|".join(re.escape(v) for v in {probed_id, _quoted(probed_id)} if v))
    value = parsed(text)

    def scrub(node: Any) -> Any:
        if isinstance(node, str):
            return pattern.sub("<id>", node)
        if isinstance(node, dict):
            return {k: scrub(v) for k, v in node.items()}
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return flatten(scrub(value), "body")


def _quoted(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def shaped_like(
    models: str | Sequence[str] | None,
    rng: random.Random | None = None,
    fallback_prefix: str = "conformance",
    avoid: Collection[str] = (),
) -> str:
    """A fresh id in the shape of ``models`` (real ids of the service), so a service that
    validates its ids' format sees a well-formed id that was never created.

    From several ids of one length, the shape is learned position by position: a character the
    same in all of them stays (a prefix, a UUID's version digit), the others are drawn from the
    characters seen there (a UUID's variant digit stays one of 8, 9, a, b). From one id, or ids
    too alike to draw enough variety from (sequential ids), each character keeps its class (hex
    digits stay hex, letters keep their case, separators stay), and so do a leading word prefix
    (``sess_``) and a UUID's version and variant digits. Never one of ``models`` or ``avoid``. A
    short or unusual model gives a long, named id instead (``<fallback_prefix>-missing-<hex>``)."""
    rng = rng or random.SystemRandom()
    given = [models] if isinstance(models, str) else list(models or ())
    usable = [m for m in given if len(m) >= MIN_SHAPED and re.fullmatch(r"[A-Za-z0-9_-]+", m)]
    taken = set(given) | set(avoid)
    if usable:
        length = collections.Counter(len(m) for m in usable).most_common(1)[0][0]
        group = list(dict.fromkeys(m for m in usable if len(m) == length))
        for alphabets in (_learned(group), _by_class(group[0])):
            if alphabets is None or _bits(alphabets) < MIN_BITS:
                continue
            for _ in range(8):
                candidate = "".join(rng.choice(a) for a in alphabets)
                if candidate not in taken:
                    return candidate
    return f"{fallback_prefix}-missing-{rng.getrandbits(48):012x}"


MIN_BITS = 30  # choices enough that a drawn id meets none of the service's ids by chance
_UUID = re.compile(r"[0-9a-fA-F]{8}(-?)[0-9a-fA-F]{4}\1[0-9a-fA-F]{4}\1[0-9a-fA-F]{4}\1[0-9a-fA-F]{12}")
_WORD_PREFIX = re.compile(r"(?:[A-Za-z]+[-_])+")


def _learned(group: list[str]) -> list[str] | None:
    """Per position, the characters the ids show there (None from fewer than two ids)."""
    if len(group) < 2:
        return None
    return ["".join(sorted({m[i] for m in group})) for i in range(len(group[0]))]


def _by_class(model: str) -> list[str]:
    """Per position, the characters of the class the model's character is in."""
    upper = any(c.isupper() for c in model) and not any(c.islower() for c in model)
    hex_digits = "0123456789ABCDEF" if upper else "0123456789abcdef"
    if _UUID.fullmatch(model):
        alphabets = [c if c == "-" else hex_digits for c in model]
        digits = [i for i, c in enumerate(model) if c != "-"]
        alphabets[digits[12]] = model[digits[12]]  # the version
        variant = model[digits[16]]
        if variant.lower() in "89ab":  # RFC 9562's variant: the digit's two high bits are 10
            alphabets[digits[16]] = "89AB" if upper else "89ab"
        return alphabets
    prefix = _WORD_PREFIX.match(model)
    kept = prefix.end() if prefix else 0
    rest = model[kept:]
    hexish = bool(_HEX.match(rest)) and any(c in "abcdefABCDEF" for c in rest)  # digits alone: a number
    alphabets = []
    for i, c in enumerate(model):
        if i < kept or c in "-_":
            alphabets.append(c)
        elif hexish:
            alphabets.append(hex_digits)
        elif c.isdigit():
            alphabets.append(string.digits)
        elif c.isupper():
            alphabets.append(string.ascii_uppercase)
        else:
            alphabets.append(string.ascii_lowercase)
    return alphabets


def _bits(alphabets: list[str]) -> float:
    return sum(math.log2(len(a)) for a in alphabets)


def schema_refuses(openapi: Any, path: str, name: str, value: str) -> str | None:
    """Why the service's own OpenAPI document refuses ``value`` for the parameter ``name`` of
    ``GET path`` (a uuid format, a pattern, a length or an enum it declares), or None: the value
    is valid by what it publishes (no document, or the spec's plain string, refuses nothing)."""
    schema = parameter_schema(openapi, path, name)
    if not isinstance(schema, dict):
        return None
    form = schema.get("format")
    if isinstance(form, str) and form:
        version = _UUID_FORMAT.fullmatch(form)
        if version is None:
            # A format the suite does not check (ulid, hex, a vendor's own): the service may
            # validate it, and its refusal is not held against it.
            return f"its OpenAPI declares format {form[:40]!r}, which the suite does not check"
        if not _is_uuid(value, version[1]):
            return f"its OpenAPI declares format {form}"
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and (refusal := _pattern_refuses(pattern, value)) is not None:
        return refusal
    longest, shortest = schema.get("maxLength"), schema.get("minLength")
    if isinstance(longest, int) and len(value) > longest:
        return f"its OpenAPI declares maxLength {longest}"
    if isinstance(shortest, int) and len(value) < shortest:
        return f"its OpenAPI declares minLength {shortest}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return "its OpenAPI declares an enum"
    return None


def _pattern_refuses(pattern: str, value: str) -> str | None:
    """Why a published ``pattern`` may refuse ``value``, or None where it surely matches. JSON
    Schema reads patterns as ECMA-262, whose ``\\d`` and ``\\w`` are ASCII and whose ``$`` never
    matches before a final newline, while validators differ (pydantic's Rust regex is Unicode): a
    value matches only where an ASCII and a Unicode reading both match and it holds no line break
    (the ASCII reading's ``\\s`` is narrower than ECMA's: it only excuses more). A pattern the
    suite cannot read, or cannot match in time, may refuse it."""
    if len(pattern) > 1000:
        return "its OpenAPI declares a pattern longer than the suite reads"
    if "\n" in value or "\r" in value:
        return f"its OpenAPI declares the pattern {pattern[:100]!r}, which validators read differently at a line break"
    try:
        for flags in (0, regex.ASCII):
            if regex.search(pattern, value, flags=flags, timeout=PATTERN_SECONDS) is None:
                return f"its OpenAPI declares the pattern {pattern[:100]!r}"
    except TimeoutError:
        return f"its OpenAPI declares a pattern the suite could not match within {PATTERN_SECONDS:g} s"
    except (regex.error, RecursionError):
        return f"its OpenAPI declares a pattern the suite cannot read ({pattern[:100]!r})"
    return None


PATTERN_SECONDS = 1.0  # a published pattern that backtracks for longer is given the benefit of the doubt
_UUID_FORMAT = re.compile(r"uuid([1-8]?)")  # pydantic's UUID1 … UUID8 publish uuid1 … uuid8


def _is_uuid(value: str, version: str) -> bool:
    try:
        parsed = uuid.UUID(value)
    except (ValueError, TypeError):
        return False
    return not version or parsed.version == int(version)


def parameter_schema(openapi: Any, path: str, name: str) -> Any:
    """The schema of a GET parameter, its $refs into the document's components followed once."""
    paths = openapi.get("paths") if isinstance(openapi, dict) else None
    item = paths.get(path) if isinstance(paths, dict) else None
    operation = item.get("get") if isinstance(item, dict) else None
    if not isinstance(operation, dict) or not isinstance(item, dict):
        return None
    parameters = [*_listed(operation.get("parameters")), *_listed(item.get("parameters"))]
    for parameter in (_resolved(openapi, p) for p in parameters):
        if isinstance(parameter, dict) and parameter.get("name") == name:
            schema = _resolved(openapi, parameter.get("schema"))
            # A nullable or union schema (anyOf / oneOf): the string branch is what a path carries.
            for key in ("anyOf", "oneOf", "allOf"):
                branches = schema.get(key) if isinstance(schema, dict) else None
                if isinstance(branches, list):
                    strings = [
                        b for b in map(lambda b: _resolved(openapi, b), branches) if isinstance(b, dict)
                    ]
                    if key != "allOf" and len(strings) != 1:
                        return None  # more than one way to be valid: not judged
                    merged: dict[str, Any] = {}
                    for branch in strings:
                        merged |= branch
                    schema = merged
            return schema
    return None


def _listed(value: Any) -> list[Any]:
    return value[:200] if isinstance(value, list) else []


def _resolved(openapi: Any, node: Any) -> Any:
    """A ``{"$ref": "#/components/..."}`` replaced by what it names (once), anything else as is."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    found: Any = openapi
    for step in ref[2:].split("/")[:8]:
        found = found.get(step.replace("~1", "/").replace("~0", "~")) if isinstance(found, dict) else None
    return found
