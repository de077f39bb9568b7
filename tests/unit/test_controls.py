"""The ACP control sessions' judgement, on canned notifications and list entries: what an asked
session got that its control, treated alike and never asked about, did not get too."""

from __future__ import annotations

from conformance.targets.acp.controls import (
    changed_fields,
    notification_kind,
    unexplained_changes,
    unexplained_notifications,
)
from conformance.transport.peer import Notification

CONTROLS = {"asked": "control"}


def update(index: int, session: object, kind: str = "session_info_update") -> Notification:
    return Notification(index, "session/update", {"sessionId": session, "update": {"sessionUpdate": kind}})


def test_the_kind_is_the_update_kind_else_the_method() -> None:
    assert notification_kind(update(0, "asked")) == "session/update:session_info_update"
    assert notification_kind(Notification(0, "_x/ping", None)) == "_x/ping"
    assert (
        notification_kind(Notification(0, "session/update", {"update": {"sessionUpdate": 3}}))
        == "session/update"
    )


def test_an_update_the_control_also_got_is_the_agents_own() -> None:
    window = [update(1, "asked")]
    # The control's title came a moment after the window closed: still explains the asked one's.
    assert unexplained_notifications(CONTROLS, window, [*window, update(2, "control")]) == []


def test_an_update_the_control_did_not_get_is_blamed() -> None:
    window = [update(1, "asked"), update(2, "control", "available_commands_update")]
    assert unexplained_notifications(CONTROLS, window, window) == [window[0]]


def test_another_kind_is_not_explained_by_the_controls_own() -> None:
    window = [update(1, "asked", "agent_message_chunk"), update(2, "control")]
    assert unexplained_notifications(CONTROLS, window, window) == [window[0]]


def test_notifications_about_no_session_or_other_sessions_are_never_blamed() -> None:
    sessionless = Notification(1, "session/update", {"sessionId": 42})  # not a string: about no session
    heartbeat = Notification(2, "_vendor.example/heartbeat", {"at": 1})
    window = [sessionless, heartbeat, update(3, "an-earlier-case's")]
    assert unexplained_notifications(CONTROLS, window, window) == []


def test_an_extension_notification_is_never_blamed_even_about_the_asked_session() -> None:
    """`_`-prefixed methods are the implementation's to send whenever it likes (a progress beacon
    about the session on a timer): nothing ties one to a status call."""
    beacon = Notification(1, "_vendor.example/session_beacon", {"sessionId": "asked"})
    assert unexplained_notifications(CONTROLS, [beacon], [beacon]) == []


def test_changed_fields_of_a_list_entry() -> None:
    assert changed_fields({"title": "a", "updatedAt": 1}, {"title": "a", "updatedAt": 2}) == {"updatedAt"}
    assert changed_fields({"title": "a"}, {"title": "a", "x": 1}) == {"x"}
    assert changed_fields(None, {"title": "a"}) == {"(entry)"}
    assert changed_fields(None, None) == set()


def test_a_list_change_the_control_shows_a_moment_later_is_the_agents_own() -> None:
    before = {"asked": {"title": None, "updatedAt": 1}, "control": {"title": None, "updatedAt": 1}}
    after = {"asked": {"title": "T", "updatedAt": 2}, "control": {"title": None, "updatedAt": 1}}
    later = {"asked": {"title": "T", "updatedAt": 2}, "control": {"title": "T", "updatedAt": 3}}
    assert unexplained_changes(CONTROLS, before, after, later) == {}


def test_a_list_change_beyond_the_controls_is_blamed() -> None:
    before = {
        "asked": {"title": None, "updatedAt": 1, "n": 0},
        "control": {"title": None, "updatedAt": 1, "n": 0},
    }
    after = {
        "asked": {"title": "T", "updatedAt": 2, "n": 1},
        "control": {"title": "T", "updatedAt": 2, "n": 0},
    }
    assert unexplained_changes(CONTROLS, before, after, after) == {"asked": {"n"}}


def test_a_control_the_list_does_not_show_explains_nothing() -> None:
    before = {"asked": {"updatedAt": 1}}
    after = {"asked": {"updatedAt": 2}, "control": {"updatedAt": 2}}
    assert unexplained_changes(CONTROLS, before, after, after) == {"asked": {"updatedAt"}}
