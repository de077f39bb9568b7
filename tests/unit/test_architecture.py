"""The architecture holds: layers import only downwards, no import cycles, the reference
implementations import nothing of the harness, targets are listed once and their cases are
their packages, and every package folder is installed."""

from __future__ import annotations

import ast
import tomllib

import conformance.cases as cases
import pytest

from conformance.core import revisions
from conformance.core.registry import CASES
from tests import own
from tests.conftest import ROOT

cases.load_all()

# What a case may import of the suite: the targets it drives, the replies they return, the core
# and replay files (never the harness that runs it, the plugin, the reports or the command line).
CASES_MAY_IMPORT = (
    "conformance.core",
    "conformance.targets",
    "conformance.transport",
    "conformance.cases",
    "conformance.replay.files",
)


def test_import_contracts_hold() -> None:
    """pyproject.toml's [tool.importlinter] contracts: layers, reference independence, targets
    independent of each other, and no import cycles between the files of a package (acyclic
    siblings; imports inside functions count)."""
    importlinter = pytest.importorskip("importlinter.cli", reason="import-linter comes with the [test] extra")
    assert importlinter.lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_cases_import_only_targets_and_core() -> None:
    wrong = []
    for path in sorted((ROOT / "cases").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.startswith("conformance") and not name.startswith(CASES_MAY_IMPORT):
                    wrong.append(f"{path.relative_to(ROOT)}: imports {name}")
                # Installed, the folder is conformance.cases: a top-level `cases` is there only
                # when the run starts in a checkout, and a second copy of a module registers its
                # cases twice.
                if name == "cases" or name.startswith("cases."):
                    wrong.append(f"{path.relative_to(ROOT)}: imports {name}, not conformance.{name}")
    assert wrong == []


def test_each_target_has_its_cases_package_and_revisions() -> None:
    names = list(own.TARGET_NAMES)
    folders = sorted(p.name for p in (ROOT / "cases").iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(names), "cases/<target>/ for every target the suite registers (pyproject.toml)"
    for target in own.targets():
        assert any(c.target == target.name for c in CASES.values()), f"{target.name}: no cases"
        assert revisions.available(target.name), f"{target.name}: no revision file names it"
        flags = [o.flag for o in target.options]
        assert len(set(flags)) == len(flags)
    assert {c.target for c in CASES.values() if c.module.startswith("conformance.cases.")} <= set(names)


def test_every_case_needs_only_what_its_target_declares() -> None:
    """A need is its target's to declare (ACP's capabilities and protocol versions, MCP's tool, the
    HTTP route): a misspelt one would leave its case unimplemented on every agent."""
    declared = {t.name: t.needs for t in own.targets()}
    unknown = {
        c.id: sorted(set(c.needs) - declared[c.target])
        for c in CASES.values()
        if c.target in declared and set(c.needs) - declared[c.target]
    }
    assert unknown == {}


def test_every_package_folder_is_installed() -> None:
    """setuptools installs only the packages pyproject.toml lists: a new folder left out would
    work from a checkout and be missing from a pip install."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapped = {v: k for k, v in config["package-dir"].items()}
    found = set()
    for init in ROOT.glob("**/__init__.py"):
        rel = init.parent.relative_to(ROOT)
        top = rel.parts[0]
        if top == "conformance":
            found.add(".".join(rel.parts))
        elif top in mapped:
            found.add(".".join((mapped[top], *rel.parts[1:])))
    assert sorted(found) == sorted(config["packages"])
