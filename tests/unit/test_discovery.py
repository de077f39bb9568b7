"""Targets are found through their entry points on first use, and one that does not load (a
broken or half-uninstalled distribution, a name that is not its declaration's) is left out and
named on one line: the runs of the other targets go on."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from conformance import targets
from conformance.core.errors import UsageError

BROKEN = [
    EntryPoint(name="gone", value="no_such_module_of_a_target:Gone", group=targets.GROUP),
    EntryPoint(name="web", value="conformance.targets.http.declaration:Http", group=targets.GROUP),
    EntryPoint(name="odd", value="json:loads", group=targets.GROUP),
]


def test_a_target_that_does_not_load_is_left_out_and_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed, loaded = targets.registered(), targets.TARGETS
    monkeypatch.setattr(targets, "registered", lambda: [*BROKEN, *installed])
    monkeypatch.setattr(targets, "BROKEN", {})
    found = targets.discover()
    assert found == loaded and {"acp", "http", "mcp"} <= {t.name for t in found}
    assert targets.BROKEN == {
        "gone": "gone = no_such_module_of_a_target:Gone: ModuleNotFoundError: No module named "
        "'no_such_module_of_a_target'",
        "web": "web = conformance.targets.http.declaration:Http: declares the target 'http'",
        "odd": "odd = json:loads: AttributeError: 'function' object has no attribute 'name'",
    }
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and all(line.startswith("warning: the target '") for line in lines), lines
    with pytest.raises(UsageError, match=r"^the target 'gone' is not available: gone = no_such_module"):
        targets.named("gone")


def test_a_third_partys_message_is_one_bounded_line() -> None:
    line = targets._one_line("\x1b[31mred\x1b[0m\nsecond line " + "x" * 500)
    assert "\x1b" not in line and "\n" not in line and len(line) == 300
    assert line.startswith("\\x1b[31mred\\x1b[0m second line")


class SecondMcp:
    """Another distribution's target that takes a name the suite's has."""

    name = "mcp"


def test_a_name_two_distributions_register_is_left_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Which of the two a run would certify is not the suite's to guess: neither runs, both named."""
    installed = targets.registered()
    second = EntryPoint(name="mcp", value=f"{__name__}:SecondMcp", group=targets.GROUP)
    monkeypatch.setattr(targets, "registered", lambda: [*installed, second])
    monkeypatch.setattr(targets, "BROKEN", {})
    names = {t.name for t in targets.discover()}
    assert "mcp" not in names and {"acp", "http"} <= names
    why = targets.BROKEN["mcp"]
    assert why.startswith("two targets of that name, mcp = conformance.targets.mcp.declaration:Mcp from ")
    assert why.endswith(f" and mcp = {__name__}:SecondMcp: uninstall one"), why
    assert capsys.readouterr().err.count("\n") == 1
