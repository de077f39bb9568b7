"""Where a run keeps Hypothesis' files: the user's cache, shared by runs (each new report folder
rebuilt its Unicode tables: seconds of CPU per run), else the run's report folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.pytest.plugin import hypothesis_home


def test_runs_share_the_users_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first, second = hypothesis_home(tmp_path / "run-1"), hypothesis_home(tmp_path / "run-2")
    assert first == second == tmp_path / "cache" / "session-status-conformance" / "hypothesis"
    assert first.is_dir() and not (tmp_path / "run-1").exists()


def test_a_cache_that_cannot_be_made_leaves_them_in_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert hypothesis_home(tmp_path / "run") == tmp_path / "run" / ".hypothesis"
