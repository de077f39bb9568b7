"""Control sessions: what an agent does on its own to a session, seen on a twin status never asks about.

Agents send updates of their own a while after an answer, and change a session's list entry
with them: a title made by a model call after a turn, a command list after session/new. How
long after is theirs to choose, so no quiet period before a status call keeps them out of its
window. A case that blames status for what arrives in its window therefore treats a *control*
exactly like each asked session (created, prompted, closed alike, one right after the other)
and never asks status about it: what the asked session gets that its control did not get too
(in that window, or in the quiet moment after it) is status's doing. The judgements here are
pure, on the notifications and list entries a case collected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import anyio

from conformance.targets.acp.target import AcpTarget, session_of
from conformance.transport.peer import Notification

__all__ = [
    "changed_fields",
    "is_extension_method",
    "list_changes_from_status",
    "notification_kind",
    "notifications_from_status",
    "unexplained_changes",
    "unexplained_notifications",
]


def notification_kind(note: Notification) -> str:
    """What a notification is, for comparing one session's with another's: a session/update's
    ``sessionUpdate`` kind, else the method."""
    update = note.params.get("update") if isinstance(note.params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return f"{note.method}:{kind}" if isinstance(kind, str) else note.method


def is_extension_method(method: str) -> bool:
    """An extension method (its name begins with `_`): ACP leaves when and why an agent sends one
    to the implementation, so it is no evidence of what a status call did."""
    return method.startswith("_")


def unexplained_notifications(
    controls: Mapping[str, str], window: Iterable[Notification], control_seen: Iterable[Notification]
) -> list[Notification]:
    """Notifications in ``window`` about an asked session (a key of ``controls``) whose kind its
    control (the value) did not also get in ``control_seen`` (the window and the moment after
    it). Notifications about other sessions, about no session (a heartbeat of the agent's own) and
    extension notifications (methods beginning with `_`, sent whenever the agent likes) are not
    the window's: nothing ties them to the asked session, and charging them to status failed
    conforming agents that send them on a timer."""
    kinds: dict[str, set[str]] = {}
    for note in control_seen:
        kinds.setdefault(session_of(note.params) or "", set()).add(notification_kind(note))
    found = []
    for note in window:
        about = session_of(note.params)
        if (
            about is not None
            and about in controls
            and not is_extension_method(note.method)
            and notification_kind(note) not in kinds.get(controls[about], set())
        ):
            found.append(note)
    return found


def changed_fields(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> set[str]:
    """The members of a list entry that differ (added, removed or changed); ``{"(entry)"}`` when
    the entry appeared or disappeared."""
    if before is None or after is None:
        return set() if before is after else {"(entry)"}
    return {key for key in set(before) | set(after) if before.get(key) != after.get(key)}


def unexplained_changes(
    controls: Mapping[str, str],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    control_later: Mapping[str, Any],
) -> dict[str, set[str]]:
    """Per asked session, the members of its list entry that changed from ``before`` to
    ``after`` while its control's did not change from ``before`` to ``control_later`` (a list
    taken a quiet moment after ``after``)."""
    found = {}
    for asked, control in controls.items():
        changed = changed_fields(before.get(asked), after.get(asked))
        own = changed_fields(before.get(control), control_later.get(control)) if control in before else set()
        if changed - own:
            found[asked] = changed - own
    return found


async def notifications_from_status(
    acp: AcpTarget, controls: Mapping[str, str], calls: int = 1
) -> tuple[list[Notification], list[Notification]]:
    """Ask status ``calls`` times about each asked session once the agent is quiet: (what arrived
    that the controls do not explain, what arrived about the asked sessions at all). Where a
    control explained something, the window is judged once more after a quiet moment: the
    agent's own updates are over by then, and status must still cause none (nor ones of the same
    kind as the agent's own, which the first window cannot tell apart from them)."""
    blamed, about = await _notification_window(acp, controls, calls)
    if about and not blamed:
        blamed, again = await _notification_window(acp, controls, calls)
        about += again
    return blamed, about


async def _notification_window(
    acp: AcpTarget, controls: Mapping[str, str], calls: int
) -> tuple[list[Notification], list[Notification]]:
    everything = {*controls, *controls.values()}
    await acp.quiet(everything)  # never quiet: the window opens anyway, and what arrives in it counts
    mark = acp.peer.transcript.mark()
    for sid in controls:
        for _ in range(calls):
            await acp.status(sid)
    await acp.quiet(everything)  # what status set off a moment later counts too
    await acp.status(acp.unknown_id())  # a round trip after, so late frames have arrived
    window = acp.peer.notifications_since(mark)
    await acp.quiet(everything)  # a control's own update may come a moment after its twin's
    blamed = unexplained_notifications(controls, window, acp.peer.notifications_since(mark))
    if blamed:  # or as much later as its turn ended after its twin's (a title made by a model call)
        with anyio.move_on_after(acp.twin_lag(dict(controls))):
            while blamed:
                await anyio.sleep(0.05)
                blamed = unexplained_notifications(controls, window, acp.peer.notifications_since(mark))
    return blamed, [n for n in window if session_of(n.params) in controls]


async def list_changes_from_status(
    acp: AcpTarget, controls: Mapping[str, str], calls: int = 3
) -> tuple[dict[str, set[str]], dict[str, Any], dict[str, Any]]:
    """session/list before and after status calls about each asked session: (the entry members
    that changed while the control's did not, the list before, the list after), with a second
    look after a quiet moment where a control explained a change (as for notifications)."""
    blamed, before, after = await _list_window(acp, controls, calls)
    if not blamed and any(changed_fields(before.get(sid), after.get(sid)) for sid in controls):
        blamed, before, after = await _list_window(acp, controls, calls)
    return blamed, before, after


async def _list_window(
    acp: AcpTarget, controls: Mapping[str, str], calls: int
) -> tuple[dict[str, set[str]], dict[str, Any], dict[str, Any]]:
    everything = {*controls, *controls.values()}
    await acp.quiet(everything)  # a title the agent makes after the turn changes the list entry
    before = await acp.list_sessions()
    await anyio.sleep(0.02)  # a timestamp bumped by status must be able to differ
    for sid in controls:
        for _ in range(calls):
            await acp.status(sid)
    after = await acp.list_sessions()
    await acp.quiet(everything)
    later = await acp.list_sessions()  # the controls' own changes may show a moment later
    blamed = unexplained_changes(controls, before, after, later)
    lag = acp.twin_lag(dict(controls))
    if blamed and lag:  # or as much later as a control's turn ended after its twin's
        await anyio.sleep(lag)
        await acp.quiet(everything)
        blamed = unexplained_changes(controls, before, after, await acp.list_sessions())
    return blamed, before, after
