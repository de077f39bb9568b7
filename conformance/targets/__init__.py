"""The systems the suite certifies. This list is the only place that names them all: adding a
target is a package here (its Target class, see base.py), one line below, and its cases
(cases/<name>/), revision files, schemas, reference implementation and tests."""

from __future__ import annotations

from typing import Any

from conformance.targets.acp.target import AcpTarget
from conformance.targets.base import Target
from conformance.targets.http.target import HttpStatusTarget
from conformance.targets.mcp.target import McpTarget

__all__ = ["DEFAULT", "TARGETS", "Target", "chosen", "named"]

TARGETS: tuple[type[Target], ...] = (AcpTarget, McpTarget, HttpStatusTarget)
DEFAULT = "acp"


def named(name: str) -> type[Target]:
    for target in TARGETS:
        if target.name == name:
            return target
    raise KeyError(f"no target named {name!r}: one of {', '.join(t.name for t in TARGETS)}")


def chosen(values: dict[str, Any]) -> type[Target]:
    """The target these option values (dest -> value) pick: --target, else the target whose own
    command or URL option is given, else ACP."""
    if values.get("conformance_target"):
        return named(values["conformance_target"])
    for target in TARGETS:
        if target.name != DEFAULT and (values.get(target.command_option) or values.get(target.url_option)):
            return target
    return named(DEFAULT)
