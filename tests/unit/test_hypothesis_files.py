"""Where a run keeps Hypothesis' files: its own folder, with the tables derived from the Python
installation shared between runs (each new folder rebuilt them: seconds of CPU per run)."""

from __future__ import annotations

from pathlib import Path

from conformance.pytest.plugin import DERIVED, share_derived_files


def test_two_runs_share_the_derived_tables(tmp_path: Path) -> None:
    shared = tmp_path / "cache"
    first, second = tmp_path / "run-1" / ".hypothesis", tmp_path / "run-2" / ".hypothesis"
    share_derived_files(first, shared)
    (first / "unicode_data" / "charmap.json.gz").write_bytes(b"table")
    share_derived_files(second, shared)
    assert (second / "unicode_data" / "charmap.json.gz").read_bytes() == b"table"
    assert sorted(p.name for p in second.iterdir()) == sorted(DERIVED)
    assert not (second / "examples").exists()  # a run's examples stay its own


def test_a_cache_that_cannot_be_made_leaves_the_tables_in_the_run(tmp_path: Path) -> None:
    shared = tmp_path / "cache"
    shared.write_text("a file where the cache folder would be")
    home = tmp_path / "run" / ".hypothesis"
    share_derived_files(home, shared)
    assert not home.exists() or not any(p.is_symlink() for p in home.iterdir())


def test_a_folder_already_there_is_kept(tmp_path: Path) -> None:
    home = tmp_path / ".hypothesis"
    (home / "constants").mkdir(parents=True)
    share_derived_files(home, tmp_path / "cache")
    assert not (home / "constants").is_symlink() and (home / "unicode_data").is_symlink()
