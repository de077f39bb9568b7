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
    # A failure is never worded "not testable" (read as "not judged"): it says what the agent did.
    assert (
        classify(broken, MUST).message
        == "the agent made this check impossible: session/close of a live session failed"
    )


def test_an_agent_without_the_status_method_is_unimplemented_whatever_came_after() -> None:
    """Its initialize said so: a session/new that needs authentication, is slow or fails, and a
    case that errored or failed meanwhile, do not change that."""
    after = [(Outcome.ERROR, SHOULD), (Outcome.FAIL, MUST), (Outcome.NOT_TESTABLE, MUST)]
    assert verdict(after, status_advertised=False) is Verdict.UNIMPLEMENTED
    assert verdict(after, status_advertised=False, strict=True) is Verdict.UNIMPLEMENTED


def test_an_error_in_a_should_case_is_shown_not_deciding() -> None:
    outcomes = [(Outcome.PASS, MUST), (Outcome.ERROR, SHOULD), (Outcome.ERROR, Level.ROBUSTNESS)]
    assert verdict(outcomes, status_advertised=True) is Verdict.CONFORMANT
    assert verdict(outcomes, status_advertised=True, strict=True) is Verdict.ERROR
    assert verdict([(Outcome.PASS, MUST), (Outcome.ERROR, MUST)], status_advertised=True) is Verdict.ERROR
    assert (
        verdict([(Outcome.ERROR, Level.MAY), (Outcome.PASS, MUST)], status_advertised=True) is Verdict.ERROR
    )


def test_a_request_left_unanswered_is_judged_by_what_it_was() -> None:
    from conformance.core.outcomes import Unanswered, unanswered

    status = Unanswered("session/status", 7, 10.0)
    got = unanswered(status, MUST, on_status=True, status_asked=True)
    assert got.outcome is Outcome.FAIL and got.spec_key == "reply"
    assert unanswered(status, SHOULD, on_status=True, status_asked=True).outcome is Outcome.FAIL
    assert unanswered(status, Level.ROBUSTNESS, on_status=True, status_asked=True).outcome is Outcome.WARN

    turn = Unanswered("session/prompt", 3, 300.0, clock="turn")
    for asked in (False, True):  # a turn that does not end is never the agent's failure, nor an error
        got = unanswered(turn, MUST, on_status=False, status_asked=asked)
        assert got.outcome is Outcome.NOT_TESTABLE
        assert (
            "within 300 s (--turn-timeout)" in got.message and "pass a larger --turn-timeout" in got.message
        )

    new = Unanswered("session/new", 2, 10.0)
    before = unanswered(new, MUST, on_status=False, status_asked=False)
    assert before.outcome is Outcome.NOT_TESTABLE and "preconditions" in before.message and before.unprepared
    assert "(--timeout)" in before.message and "larger --timeout" in before.message
    # Once status was asked, an agent that stops answering is no precondition the case lacked.
    assert unanswered(new, MUST, on_status=False, status_asked=True).outcome is Outcome.ERROR


def test_a_must_case_the_agent_did_not_prepare_leaves_no_certificate() -> None:
    """Not testable for want of a session the agent would not create: never a failure of its status
    method, but no certificate either; a failure elsewhere still decides."""
    outcomes = [(Outcome.PASS, MUST), (Outcome.NOT_TESTABLE, MUST)]
    assert verdict(outcomes, status_advertised=True, unprepared=True) is Verdict.UNTESTED
    failed = [*outcomes, (Outcome.FAIL, MUST)]
    assert verdict(failed, status_advertised=True, unprepared=True) is Verdict.NON_CONFORMANT
    assert verdict(outcomes, status_advertised=False, unprepared=True) is Verdict.UNIMPLEMENTED


def test_a_case_that_could_not_make_its_preconditions_is_not_testable() -> None:
    from conformance.core.outcomes import NoTurn, Unprepared

    for level in (MUST, SHOULD):
        got = classify(Unprepared("session/new did not create a session: error -32603"), level)
        assert got.outcome is Outcome.NOT_TESTABLE and got.message.startswith("not testable: ")
        assert got.unprepared
    refused = NoTurn("not testable: the run's prompt budget is spent (--max-prompts 0)", "budget spent")
    assert classify(refused, MUST).outcome is Outcome.NOT_TESTABLE


def test_quotes_are_cut_with_a_visible_ellipsis() -> None:
    from conformance.core.outcomes import shorten
    from conformance.transport.peer import Reply

    assert shorten("abc", 3) == "abc" and shorten("abcd", 3) == "ab…"
    long = Reply(1, "session/new", error={"code": -32000, "message": "x" * 500})
    assert long.describe(100).endswith("…") and len(long.describe(100)) == len("error ") + 100
