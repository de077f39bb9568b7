"""--max-prompts holds for the run, whichever worker sends the prompt."""

from __future__ import annotations

from pathlib import Path

from conformance.targets.turns import PromptLedger, new_ledger


def test_no_cap_counts_and_always_allows() -> None:
    ledger = PromptLedger(None)
    assert all(ledger.take() for _ in range(5))


def test_a_cap_in_one_process() -> None:
    ledger = PromptLedger(2)
    assert [ledger.take() for _ in range(3)] == [True, True, False]
    assert not PromptLedger(0).take()


def test_workers_share_one_cap_through_the_ledger_file(tmp_path: Path) -> None:
    path = new_ledger(tmp_path / "sandbox" / "prompts.ledger")
    first, second = PromptLedger(3, path), PromptLedger(3, path)
    taken = [first.take(), second.take(), first.take(), second.take(), first.take()]
    assert taken == [True, True, True, False, False]
    assert Path(path).read_text() == "3"
