"""The certificate, decided on outcomes alone: it rests on evidence (a run in which no MUST case
could be tested certifies nothing), and a broken prerequisite counts at its case's level."""

from __future__ import annotations

from conformance.core.outcomes import NotTestable, Outcome, Verdict, classify, verdict
from conformance.core.registry import Level

MUST, SHOULD = Level.MUST, Level.SHOULD


def test_no_must_case_tested_is_no_certificate() -> None:
    outcomes = [(Outcome.NOT_TESTABLE, MUST), (Outcome.NOT_APPLICABLE, MUST), (Outcome.PASS, SHOULD)]
    assert verdict(outcomes, status_advertised=True) is Verdict.UNTESTED
    assert Verdict.UNTESTED.exit_code == 2


def test_one_must_case_tested_is_a_certificate_with_its_coverage() -> None:
    outcomes = [(Outcome.NOT_TESTABLE, MUST), (Outcome.PASS, MUST)]
    assert verdict(outcomes, status_advertised=True) is Verdict.CONFORMANT


def test_a_selection_without_must_cases_is_judged_on_what_it_has() -> None:
    assert verdict([(Outcome.PASS, SHOULD)], status_advertised=True) is Verdict.CONFORMANT


def test_failures_and_unimplemented_come_first() -> None:
    assert verdict([(Outcome.NOT_TESTABLE, MUST), (Outcome.FAIL, MUST)], status_advertised=True) is (
        Verdict.NON_CONFORMANT
    )
    assert verdict([(Outcome.UNIMPLEMENTED, MUST)], status_advertised=False) is Verdict.UNIMPLEMENTED


def test_a_broken_prerequisite_counts_at_its_cases_level() -> None:
    broken = NotTestable("session/close of a live session failed")
    assert classify(broken, MUST).outcome is Outcome.FAIL
    assert classify(broken, SHOULD).outcome is Outcome.WARN
    assert classify(broken, SHOULD, strict=True).outcome is Outcome.FAIL
    assert classify(broken, MUST).message.startswith("not testable: ")
