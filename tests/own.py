"""The suite's own targets and revision files. The unit tests check these, not whatever other
distributions installed beside the suite: a fourth target's cases and revisions are its own
distribution's to check (tests/e2e/test_toy_target.py runs the unit tests with one installed)."""

from __future__ import annotations

import tomllib

from conformance.core import revisions
from conformance.core.traceability import revision_files, revisions_dir
from conformance.targets import GROUP, Target, named
from tests.conftest import ROOT

TARGET_NAMES: tuple[str, ...] = tuple(
    sorted(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"][GROUP]
    )
)


def targets() -> tuple[type[Target], ...]:
    return tuple(named(name) for name in TARGET_NAMES)


def revision_names(target: str | None = None) -> list[str]:
    """The names of the revision files the suite ships (of one target's, if given)."""
    own = revisions_dir()
    return [n for n in revisions.available(target) if revision_files()[n].parent == own]
