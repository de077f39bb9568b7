"""HTTP `GET /sessions/{session_id}/status` (AgentScope 2.0.4's API): shape, 404s, 422s, safety.

Spec: cases/revisions/sources/agentscope-2.0.4-session-status.txt. The service is probed as the
caller given by ``--user-id`` (the ``x-user-id`` header, trusted, not authenticated) and, for
ownership, as ``--other-user-id``. Cases that drive a session into a state are in ``states.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio

from conformance.core.outcomes import MissingInput, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.core.tracing import TRACE_CONTEXT
from conformance.core.validation import schema_errors
from conformance.targets.http.calibration import body_view, differing, listed, parts_of
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

SOURCE = "agentscope-2.0.4-session-status"
SCHEMA = "agentscope-session-status.json"
STATUSES = ("running", "idle", "awaiting_permission", "awaiting_external_result")
JSON = "application/json"  # the media type of the spec's 200 and 422 content

# "`SessionStatusResponse`: The probed session id and its unified status."
RESPONSE = requirement("agentscope-2.0.4", "reply")
# "Exactly one value applies at any moment — the frontend renders a si…"
ONE_VALUE = requirement("agentscope-2.0.4", "one-value")
# "404 if the session does not exist or does not belong to the authent…"
NOT_FOUND = requirement("agentscope-2.0.4", "not-found")
# "agent_id (`str`): The agent that owns the session (ownership valida…"
AGENT_PARAM = requirement("agentscope-2.0.4", "agent-param")
# "'422': description: Validation Error"
VALIDATION = requirement("agentscope-2.0.4", "validation")
# "the client does not request, and does not expect, any state change…"
SAFE = requirement("agentscope-2.0.4", "safe")
HTTP_CAPABILITY = ("http-status",)


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float) -> bool:
    """Poll ``check`` every 50 ms until it holds (True) or ``timeout`` passes (False)."""
    with anyio.move_on_after(timeout):
        while not await check():
            await anyio.sleep(0.05)
        return True
    return False


class Prober(Protocol):
    """What the unknown-session calibration asks of a target (HttpStatusTarget, or canned answers
    in the unit tests): ids nobody created, and status probes."""

    def unknown_id(self) -> str: ...

    async def status(self, session_id: str, agent_id: str, *, user_id: str | None = None) -> StatusProbe: ...


class Unknown404:
    """The answer for a session that does not exist, asked twice (two fresh ids) by one caller:
    what differs between the two is per-request noise (a request id, a timestamp), never evidence,
    so another answer is compared with it on every other field. A noisy field's value is noise,
    not its presence: a field both answers carry (whatever its value) that another answer lacks,
    or one neither carries that it has, tells that answer apart."""

    def __init__(self, first: StatusProbe, first_id: str, second: StatusProbe, second_id: str) -> None:
        self.probe, self.id = first, first_id
        mine, again = body_view(first.text, first_id), body_view(second.text, second_id)
        self.volatile = differing(mine, again)
        self.always = mine.keys() & again.keys()
        self.consistent = first.code == second.code

    @classmethod
    async def ask(cls, http: Prober, agent_id: str, user_id: str | None = None) -> Unknown404:
        a, b = http.unknown_id(), http.unknown_id()
        first = await http.status(a, agent_id, user_id=user_id)
        return cls(first, a, await http.status(b, agent_id, user_id=user_id), b)

    @property
    def comparable(self) -> bool:
        """Some field of the body stays the same from one unknown id to the next (else only the
        fields another answer has or lacks can tell it apart)."""
        return self.consistent and bool(set(body_view(self.probe.text, self.id)) - self.volatile)

    def differs(self, probe: StatusProbe, session_id: str) -> list[str]:
        """Where ``probe`` (about ``session_id``) tells itself apart from this answer: the code,
        the body's fields that do not vary between unknown ids, or a field it has or lacks where
        both unknown ids' answers agree on having it or not."""
        if probe.code != self.probe.code:
            return [f"HTTP {probe.code}, not {self.probe.code}"]
        mine, theirs = body_view(self.probe.text, self.id), body_view(probe.text, session_id)
        return sorted(
            path
            for path in differing(mine, theirs)
            if path not in self.volatile or (path in self.always and path not in theirs)
        )

    async def telling(
        self,
        http: Prober,
        agent_id: str,
        user_id: str | None,
        probe: StatusProbe,
        session_id: str,
        *,
        prepare: Callable[[], Awaitable[object]] | None = None,
        held: Callable[[], Awaitable[bool]] | None = None,
    ) -> list[str]:
        """Where ``probe`` tells itself apart, confirmed: the same probe is asked again between two
        fresh unknown ids, and only what differs from both of them, in fields the two agree on,
        counts. The two back-to-back unknown ids of the calibration agree on a field that moves
        slowly (a timestamp to the second); asked seconds later on a loaded machine, the probe
        would differ in it. A field like that changes across the bracket, or not within it.

        ``prepare`` runs just before the probe is asked again (what the first probe followed: the
        owner's probe); ``held`` says afterwards whether the session is still as it was for the
        first probe. Where the bracket cannot be had as the first probe was, the first probe's
        differences stand."""
        first = self.differs(probe, session_id)
        if not first:
            return []
        before_id, after_id = http.unknown_id(), http.unknown_id()
        before = await http.status(before_id, agent_id, user_id=user_id)
        if prepare is not None:
            await prepare()
        again = await http.status(session_id, agent_id, user_id=user_id)
        after = await http.status(after_id, agent_id, user_id=user_id)
        bracket = Unknown404(before, before_id, after, after_id)
        if not bracket.consistent or (held is not None and not await held()):
            return first
        bracket.volatile |= self.volatile
        bracket.always &= self.always
        return bracket.differs(again, session_id)


async def expect_404(probe: StatusProbe, who: str) -> None:
    if probe.code != 404:
        raise Violation(
            f"{who} was answered {probe.describe()}",
            expected="HTTP 404 (the session does not exist or does not belong to the caller)",
            observed=probe.describe(),
        )


@case("http.status.shape", level=Level.MUST, spec=RESPONSE, needs=HTTP_CAPABILITY)
async def response_shape(http: HttpStatusTarget, details: dict) -> None:
    """200 with a SessionStatusResponse whose session_id is the path's id."""
    agent_id, sid = await http.new_session()
    probe = await http.status(sid, agent_id)
    details["answer"] = probe.describe()
    if probe.code != 200:
        raise Violation(
            f"the status of the caller's own session was answered {probe.describe()}", expected="HTTP 200"
        )
    if probe.media_type != JSON:
        raise Violation(
            f"the status was served as {probe.response.headers.get('content-type')!r}, not {JSON}",
            expected=f"Content-Type: {JSON} (the spec's 200 content)",
            observed=probe.describe(),
        )
    errors = schema_errors("SessionStatusResponse", probe.body, name=SCHEMA)
    if probe.body is None or errors:
        raise Violation(
            "the body is not a SessionStatusResponse: "
            + (f"not JSON ({probe.not_json})" if probe.body is None else "; ".join(errors)),
            expected='{"session_id": <the path id>, "status": <one of the four>}',
            observed=probe.text[:500],
        )
    if probe.body["session_id"] != sid:
        raise Violation(
            f"session_id is {probe.body['session_id']!r}, not the probed id {sid!r}",
            expected=f"session_id {sid!r}",
            observed=probe.body,
        )


@case("http.unknown.not-found", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def unknown_session_is_404(http: HttpStatusTarget, details: dict) -> None:
    """A session id that was never created is 404, every time it is asked (the second time with W3C
    trace context, as an instrumented client asks); so is one that equals another value the
    service returned about the caller's sessions.

    Besides an id in the shape of the service's own, the short strings the listing shows about the
    caller's sessions (a name, a title, the agent or user id, at most 12 of them) are asked as
    session ids, each one no session the run knows has as its id. Such a value names no session:
    only a 2xx that shows a status for it is judged (a service may refuse it outright, 400 or 422)."""
    agent_id, sid = await http.new_session()
    missing = http.unknown_id()
    await expect_404(await http.status(missing, agent_id), "the first probe of a session that does not exist")
    # Asked again as a client instrumented with OpenTelemetry asks: a tracing layer takes its own path.
    await expect_404(
        await http.status(missing, agent_id, headers=TRACE_CONTEXT),
        "the second probe of a session that does not exist, with W3C trace context (traceparent)",
    )
    if not http.drivable:
        return  # no listing the suite can read: the caller's sessions show no other values
    values, live = await http.returned_values(agent_id, sid)
    live |= http.known_session_ids()
    aliases = [v for v in values if v and len(v) <= MAX_ALIAS and v not in live][:MAX_ALIASES]
    details["returned_values_asked"] = [v[:60] for v in aliases]
    shown: dict[str, str] = {}
    for value in aliases:
        probe = await http.status(value, agent_id)
        if 200 <= probe.code < 300 and probe.status is not None:
            shown[value[:100]] = probe.describe()
    if shown:
        raise Violation(
            "ids that name no session but equal a value the service returned about the caller's sessions were "
            "answered with a status: " + "; ".join(f"{value!r}: {answer}" for value, answer in shown.items()),
            expected="HTTP 404, as for any id no session has (or a refusal of an id the service does not take: "
            "400, 422)",
            observed=shown,
        )


MAX_ALIASES = 12  # values the listing showed, asked as session ids: a handful of requests
MAX_ALIAS = 200  # characters of one such value; a longer one is another case's (http.boundary.id-lengths)


def spellings(owner: str) -> dict[str, str]:
    """Other users whose ids are spellings of the owner's, as e-mail-form ids take them: the same
    name at another domain, and with a subaddress (``+tag``). Whatever a deployment's identity
    policy folds (letter case, Unicode normalisation: http.identity.user-id-variants,
    http.boundary.encodings), a domain is another realm's user and a tagged address another
    account; surrounding whitespace cannot be sent (RFC 9110 5.5 strips it)."""
    local, at, domain = owner.rpartition("@")
    if not at:
        return {"at another domain": f"{owner}@other.example", "with a +tag": f"{owner}+tag"}
    elsewhere = "another.example" if domain.lower() == "other.example" else "other.example"
    return {"at another domain": f"{local}@{elsewhere}", "with a +tag": f"{local}+tag@{domain}"}


@case("http.ownership.other-user-404", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def other_users_session_is_404(http: HttpStatusTarget, details: dict) -> None:
    """Another user's probe of the caller's session is 404, a user whose id spells the owner's too.

    Besides --other-user-id, the owner's id at another domain and with a +tag are asked: other
    users, who never get the session's status. A service may refuse such an id outright (400, 401,
    422: an id it does not take); only a 2xx for it shows the owner's session."""
    agent_id, sid = await http.new_session()
    await expect_404(
        await http.status(sid, agent_id, user_id=http.other_user_id), "another user's probe of the session"
    )
    shown: dict[str, str] = {}
    for name, user in spellings(http.user_id).items():
        probe = await http.status(sid, agent_id, user_id=user)
        details[f"x-user-id {name} ({user!r})"] = probe.describe()
        if 200 <= probe.code < 300:
            shown[f"{user!r} ({name})"] = probe.describe()
    if shown:
        raise Violation(
            f"users whose ids are spellings of the owner's {http.user_id!r} got the session's status: "
            + "; ".join(f"{who} was answered {answer}" for who, answer in shown.items()),
            expected="HTTP 404, as for any other user (or a refusal of an id the service does not take: 400, 401, "
            "422)",
            observed=shown,
        )


@case("http.ownership.same-body", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def other_users_404_says_nothing_more(http: HttpStatusTarget, details: dict) -> None:
    """Another user's 404 is the unknown-session 404: the body does not tell existence apart.

    Calibrated: two unknown ids are asked first; fields that differ between those two answers
    (request ids, timestamps) are noise and left out of the comparison. A difference is confirmed
    by asking the same probe again between two more unknown ids (a timestamp to the second may
    tick between the calibration and the probe). In a body that is all noise only the fields
    another user's answer adds or lacks can be compared: without such a field, not testable."""
    agent_id, sid = await http.new_session()
    theirs = await http.status(sid, agent_id, user_id=http.other_user_id)
    unknown = await Unknown404.ask(http, agent_id, http.other_user_id)
    details.update(other_user=theirs.describe(), unknown=unknown.probe.describe())
    if unknown.volatile:
        details["varies_per_request"] = sorted(unknown.volatile)
    if not unknown.consistent:
        raise MissingInput(
            "two ids that do not exist got different answers "
            f"({unknown.probe.describe()}), so they cannot show whether another user's answer differs"
        )
    telling = await unknown.telling(http, agent_id, http.other_user_id, theirs, sid)
    if telling:
        raise Violation(
            "another user's session and a session that does not exist get different answers, so the answer tells "
            f"whether the session exists (differs in: {', '.join(telling[:5])})",
            expected=f"the same as for an unknown id: {unknown.probe.describe()}",
            observed=theirs.describe(),
        )
    if not unknown.comparable:
        raise MissingInput(
            "the answer for a session that does not exist differs from one unknown id to the next in every field "
            f"({unknown.probe.describe()}), and another user's answer has the same fields, so whether its values "
            "differ cannot be seen"
        )


@case("http.ownership.wrong-agent-404", level=Level.MUST, spec=AGENT_PARAM, needs=HTTP_CAPABILITY)
async def wrong_agent_is_404(http: HttpStatusTarget, details: dict) -> None:
    """The caller's session asked with another agent_id is 404 (agent_id validates ownership): a
    made-up one, and another real agent of the same caller's."""
    agent_id, sid = await http.new_session()
    await expect_404(
        await http.status(sid, http.other_agent_id(agent_id)),
        "the caller's session asked with an agent_id it does not belong to",
    )
    sibling = await http.sibling_agent_id()
    details["sibling_agent"] = sibling is not None
    if sibling is not None:
        await expect_404(
            await http.status(sid, sibling),
            "the caller's session asked with the agent_id of another of the caller's own agents",
        )


async def _refused_as_invalid(
    http: HttpStatusTarget, details: dict, what: str, field: str, omit_user: bool
) -> None:
    """A probe without ``field`` is 422 with the HTTPValidationError shape; asked twice, the second
    time with W3C trace context, as an instrumented client asks."""
    agent_id, sid = await http.new_session()
    for traced, headers in (("", None), (", with W3C trace context (traceparent)", TRACE_CONTEXT)):
        probe = await http.status(
            sid, None if not omit_user else agent_id, omit_user=omit_user, headers=headers
        )
        details["answer" + (" (traced)" if traced else "")] = probe.describe()
        if probe.code != 422:
            problem = ""
        elif probe.media_type != JSON:
            problem = f"served as {probe.response.headers.get('content-type')!r}, not {JSON}"
        elif probe.body is None:
            problem = f"the body is not JSON ({probe.not_json})"
        else:
            problem = "; ".join(schema_errors("HTTPValidationError", probe.body, name=SCHEMA))
        if probe.code != 422 or problem:
            raise Violation(
                f"a probe {what}{traced} was answered {probe.describe()}"
                + (f" ({problem})" if problem else ""),
                expected=f"HTTP 422 with an HTTPValidationError ({JSON})",
                observed=probe.text[:500],
            )
        # The spec's ValidationError.loc is any list of strings and integers: naming the field
        # there is what FastAPI does, not a requirement, so it is shown, never judged.
        details["detail_names_field"] = names_field(probe.body, field, header=omit_user)


@case("http.validation.missing-agent-id", level=Level.MUST, spec=VALIDATION, needs=HTTP_CAPABILITY)
async def validation_missing_agent_id(http: HttpStatusTarget, details: dict) -> None:
    """A probe without the agent_id query parameter is 422 with the HTTPValidationError shape."""
    await _refused_as_invalid(
        http, details, "without the agent_id query parameter", "agent_id", omit_user=False
    )


@case("http.validation.missing-user-id", level=Level.MUST, spec=VALIDATION, needs=HTTP_CAPABILITY)
async def validation_missing_user_id(http: HttpStatusTarget, details: dict) -> None:
    """A probe without the x-user-id header is 422 with the HTTPValidationError shape."""
    await _refused_as_invalid(http, details, "without the x-user-id header", "x-user-id", omit_user=True)


def names_field(body: Any, field: str, *, header: bool) -> bool:
    """Whether some detail[].loc of an HTTPValidationError names ``field`` (a header's name in
    any letter case: header names are case-insensitive, RFC 9110 5.1)."""
    details = body.get("detail") if isinstance(body, dict) else None

    def same(part: object) -> bool:
        return isinstance(part, str) and (part.lower() == field.lower() if header else part == field)

    return any(
        isinstance(d, dict) and isinstance(d.get("loc"), list) and any(same(p) for p in d["loc"])
        for d in (details if isinstance(details, list) else [])
    )


@case("http.safe.no-side-effects", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY)
async def probes_change_nothing(http: HttpStatusTarget, details: dict) -> None:
    """Repeated probes change nothing of the session (messages, listing, status) and create nothing.

    Calibrated: the session's view (its messages, its listing entry) is read twice before the
    probes (fields that differ between two reads are the view's own noise) and, after the probes,
    a chat message is written and read back: only the parts that show that write are judged. An
    unknown id counts as created only if something first showed it missing (its messages 404, or
    its first status 404) and later showed it present."""
    agent_id, sid = await http.new_session()
    missing = http.unknown_id()
    before = await _view(http, agent_id, sid)
    again = await _view(http, agent_id, sid)
    drift = differing(before, again)
    missing_elsewhere = await http.exists_elsewhere(agent_id, missing) if http.drivable else None
    first = await http.status(sid, agent_id)
    first_missing = await http.status(missing, agent_id)
    for _ in range(10):
        await http.status(sid, agent_id)
        await http.status(sid, agent_id, user_id=http.other_user_id)
        await http.status(missing, agent_id)
    last, still_missing = await http.status(sid, agent_id), await http.status(missing, agent_id)
    after = await _view(http, agent_id, sid)
    settled = await _view(http, agent_id, sid)
    drift |= differing(after, settled)
    observed = await _observes_a_write(http, agent_id, sid, settled, drift)
    details.update(observed=sorted(observed), unobserved=sorted({"messages", "listing"} - observed))
    if drift:
        details["varies_per_read"] = sorted(drift)[:20]
    changed = sorted(p for p in differing(again, after) - drift if parts_of({p}) <= observed)
    problems = [f"{listed(changed)} changed"] if changed else []
    if last.status != first.status:
        problems.append(f"the status went from {first.status!r} to {last.status!r}")
    if missing_elsewhere is not None and missing_elsewhere >= 300:
        if 200 <= await http.exists_elsewhere(agent_id, missing) < 300:
            problems.append("probing an unknown id created it (its messages answer 200 now)")
    elif first_missing.code == 404 and still_missing.code == 200:
        problems.append("probing an unknown id created it (it answers 200 now)")
    if problems:
        raise Violation(
            "after 30 status probes: " + "; ".join(problems),
            expected="the session, its listing and the unknown id exactly as before",
            observed={p: {"before": again.get(p), "after": after.get(p)} for p in changed[:10]}
            or last.describe(),
        )


async def _view(http: HttpStatusTarget, agent_id: str, sid: str) -> dict[str, Any]:
    if http.drivable:
        return await http.snapshot(agent_id, sid)
    return {}  # a service the suite cannot read: the status and the unknown id are still checked


async def _observes_a_write(
    http: HttpStatusTarget, agent_id: str, sid: str, last: dict[str, Any], drift: set[str]
) -> set[str]:
    """The parts of the session's view ("messages", "listing") that show a chat message written
    now: only those can show a write a probe made."""
    if not http.drivable:
        return set()
    response = await http.driver.start_chat(http.user_id, agent_id, sid, "calibration: say OK")
    if response.status_code >= 300:
        return set()
    await http.settle(agent_id, sid)
    return await shown_parts(http, last, lambda: _view(http, agent_id, sid), drift)


async def shown_parts(
    http: HttpStatusTarget,
    last: dict[str, Any],
    read: Callable[[], Awaitable[dict[str, Any]]],
    drift: set[str],
) -> set[str]:
    """The parts of the session's view ("messages", "listing") that show a write just made. A
    service may apply a write a moment after answering it (AgentScope queues a permission answer
    for its run): read until a part shows it, at most --timeout, then once more for the parts
    that follow a moment later. A part that never shows it cannot show a probe's write either."""
    shown: set[str] = set()

    async def shows() -> bool:
        shown.update(parts_of(differing(last, await read()) - drift))
        return bool(shown)

    if await wait_until(shows, http.settle_time):
        await anyio.sleep(0.2)
        await shows()
    return shown


@case("http.safe.no-lease", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY)
async def probes_take_no_lease(http: HttpStatusTarget, details: dict) -> None:
    """Probing an idle session neither makes it read running nor keeps a run from starting.

    Calibrated: a chat refused right after a probe counts against the probe only if a chat on
    another fresh session, with no probe before it, starts."""
    agent_id, sid = await http.new_session()
    seen = [(await http.status(sid, agent_id)).status for _ in range(5)]
    details["seen"] = seen
    if "running" in seen:
        raise Violation(
            "an idle session read 'running' while only status probes touched it: a probe takes the run lease",
            expected="never running without a run",
            observed=seen,
        )
    if not http.drivable:
        return
    await http.status(sid, agent_id)
    response = await http.driver.start_chat(http.user_id, agent_id, sid, "hello")
    if response.status_code < 300:
        await http.settle(agent_id, sid)
        return
    _, control = await http.new_session()
    unprobed = await http.driver.start_chat(http.user_id, agent_id, control, "hello")
    details.update(after_probe=response.status_code, without_probe=unprobed.status_code)
    if unprobed.status_code >= 300:
        # POST /chat/ is outside the spec: refused without any probe too, its refusal is the
        # service's own and says nothing of what a probe holds.
        raise MissingInput(
            f"POST /chat/ was refused right after a status probe (HTTP {response.status_code}) and on a fresh "
            f"session that was never probed too (HTTP {unprobed.status_code}: {unprobed.text[:300]})"
        )
    await http.settle(agent_id, control)
    raise Violation(
        f"POST /chat/ right after a status probe was refused with HTTP {response.status_code}, while on a session "
        "that was not probed it started: the probe held the session",
        expected="the run starts: a probe holds no lease",
        observed=f"HTTP {response.status_code} {response.text[:300]}",
    )


# Declared last, in the last case module (cases run by module, then in declaration order): it
# reports the words every earlier case's probes were answered with, not only its own.
@case("http.status.known-value", level=Level.MUST, spec=ONE_VALUE, needs=HTTP_CAPABILITY)
async def known_values_only(http: HttpStatusTarget, details: dict) -> None:
    """Every status any probe of the run was answered with is one of running, idle,
    awaiting_permission, awaiting_external_result: the spec's enum is closed, and its four
    definitions leave no fifth state (no worker holding the lease is idle or awaiting_*).

    Besides the words the run's other cases saw, this case probes a session of its own before,
    all through and after a run (where a service is tempted to say queued or starting) and while
    a turn waits for permission. A run the service does not start only ends that sampling."""
    agent_id, sid = await http.new_session()
    await http.status(sid, agent_id)
    if http.drivable:
        await _sample_through_a_run(http, agent_id, sid)
        _, parked = await http.new_session()
        with contextlib.suppress(NotTestable, MissingInput):
            await http.chat(agent_id, parked, "[permission] write the probe file")
            await http.wait_for(agent_id, parked, "awaiting_permission", timeout=http.settle_time)
    unknown = dict(http.unknown_words)
    details["unknown_words"] = unknown
    if unknown:
        words = ", ".join(unknown)
        verb = "is" if len(unknown) == 1 else "are"
        raise Violation(
            f"status {words} {verb} none of the four values (first seen: {next(iter(unknown.values()))})",
            expected=" / ".join(STATUSES),
            observed=unknown,
        )


async def _sample_through_a_run(http: HttpStatusTarget, agent_id: str, sid: str) -> None:
    """Probe every 50 ms from POST /chat/ until the run's model call is answered and the
    session reads idle again (at most twice --timeout: a queued run starts late)."""
    try:
        tag = await http.chat(agent_id, sid, "[slow:1] answer")
    except (NotTestable, MissingInput):
        return

    async def over() -> bool:
        probe = await http.status(sid, agent_id)
        calls = http.model_requests(tag)
        return probe.status == "idle" and bool(calls) and all(c["done"] is not None for c in calls)

    await wait_until(over, 2 * http.settle_time)
