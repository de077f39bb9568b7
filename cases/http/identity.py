"""HTTP status: the session, the caller and the agent named in another form, and odd values.

An id in another form (upper-case, a prefix, with a trailing space) names another session, user
or agent unless the service treats it as the same one everywhere. The spec does not say how ids
compare, so a 200 on status is judged against what the service's other methods do with the same
form: it must be backed by the session's messages answering 200 (the caller sees the session
there too). A 404 (or 422) is the status route's own exact comparison, which the spec's plain
string parameter allows, whatever a more lenient route outside the spec (messages that trim or
fold the id) answers. The messages are a probe, calibrated before use: they must answer 200 for
the caller's session as named and not 2xx for the kind of name being varied (an unknown session,
another user, another agent). Without a calibrated probe (a service the suite cannot drive, or
messages that answer everyone), a 404 passes (a different string is a different id until
something shows otherwise) and a 200 is not testable.

The caller's id is the one exception to a 404 standing on its own: who the authenticated user is
is the service's identity, one for all its routes, so status must answer an x-user-id in another
letter case as the service's other routes do (a 404 where they all answer it as the owner is
status alone disowning the authenticated user).

A 422 for a session id is a validation error, and the spec's OpenAPI types session_id as a plain
string: any id the path can carry is a valid request, and one that names no session is 404. 422
stands only where the service's own OpenAPI document declares a narrower session_id (a uuid
format, a pattern, a length) that the id breaks: the request is then invalid by the contract the
service publishes, and a client reading it knows. A narrower validation it does not publish (ids
typed as UUIDs in code, documented as strings) answers 422 for a session that does not exist.
"""

from __future__ import annotations

from conformance.cases._fuzzing import fuzz
from conformance.cases.http.status import AGENT_PARAM, HTTP_CAPABILITY, NOT_FOUND

from conformance.core.fuzzing import FuzzFailure
from conformance.core.outcomes import Info, MissingInput, Problems, Violation
from conformance.core.registry import Level, case
from conformance.targets.http.strategies import IdForm, apply_edits, id_edits
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

NOT_FOUND_CODES = (404, 422)  # 422: a validation error for a name the service cannot take
# A dot segment, even percent-encoded, is a path step (RFC 3986 6.2.2.2-3): a server may normalise
# the path first and redirect to the result, or refuse the request, before any route sees the id.
DOT_SEGMENT_CODES = (400, 301, 302, 303, 307, 308)


def ok(code: int | None) -> bool:
    return code is not None and 200 <= code < 300


def forms(value: str) -> dict[str, str]:
    """The id in other forms a lookup might confuse with it, each differing from it."""
    found = {
        "upper-case": value.upper(),
        "lower-case": value.lower(),
        "a prefix": value[: max(4, len(value) // 2)],
        "with a trailing space": value + " ",
    }
    return {name: form for name, form in found.items() if form != value}


class Variants:
    """Probing one name (session, user or agent) of the caller's session in other forms."""

    def __init__(
        self, http: HttpStatusTarget, details: dict, calibrated: bool, *, session_ids: bool = False
    ) -> None:
        """``session_ids``: the name varied is the session id, whose 422 the service's published
        schema must justify."""
        self.http, self.details, self.calibrated = http, details, calibrated
        self.session_ids = session_ids
        self.problems: list[str] = []
        self.unjudged: list[str] = []
        details["messages_probe_calibrated"] = calibrated

    async def judge(
        self, label: str, session_id: str, agent_id: str, user_id: str | None = None
    ) -> StatusProbe:
        http = self.http
        elsewhere = (
            await http.exists_elsewhere(agent_id, session_id, user_id=user_id) if self.calibrated else None
        )
        probe = await http.status(session_id, agent_id, user_id=user_id)
        later = (
            await http.exists_elsewhere(agent_id, session_id, user_id=user_id) if self.calibrated else None
        )
        self.details[label] = {
            "messages before": elsewhere,
            "status": probe.describe(),
            "messages after": later,
        }
        if ok(later) and not ok(elsewhere):
            self.problems.append(
                f"{label}: the session's messages answered {elsewhere} before the status probe and {later} after "
                f"it ({probe.describe()}): the probe created what it was asked about"
            )
        elif ok(probe.code):
            if elsewhere is None:
                self.unjudged.append(f"{label} ({probe.describe()})")
            elif not ok(elsewhere):
                self.problems.append(
                    f"{label}: status answered {probe.describe()}, but the session's messages answer {elsewhere} "
                    "for the same name: the status tells about a session the caller cannot see there"
                )
        elif probe.code not in NOT_FOUND_CODES:
            # A 404 or 422 stands whatever the messages answer: a route outside the spec may trim
            # or fold a name the status route compares exactly, as its plain string allows.
            self.problems.append(
                f"{label}: answered {probe.describe()}, neither the session's status nor 404"
            )
        elif self.session_ids and (unjustified := unjustified_422(http, session_id, probe)):
            self.problems.append(f"{label}: {unjustified}")
        return probe

    def verdict(self, what: str, level_of: str) -> None:
        if self.problems:
            raise Violation(
                f"the caller's session with {what} in another form: " + "; ".join(self.problems),
                expected=f"HTTP 404 (another {level_of}), or 200 only where the service's other methods agree",
                observed=self.problems,
            )
        if self.unjudged:
            raise MissingInput(
                f"status answered 200 for {what} in another form ({'; '.join(self.unjudged)}), and the suite has no "
                "calibrated probe (the session's messages telling names apart) to see whether the service treats it "
                "as the same everywhere"
            )


def unjustified_422(http: HttpStatusTarget, session_id: str, probe: StatusProbe) -> str | None:
    """What is wrong with a 422 for this session id, or None: not a 422, or the service's own
    OpenAPI declares a session_id (a format, a pattern, a length) the id breaks."""
    if probe.code != 422 or http.session_id_refusal(session_id) is not None:
        return None
    return (
        f"answered {probe.describe()}, a validation error, for an id that is a valid session_id by the spec's "
        "schema (a string) and by the service's own OpenAPI: a session that does not exist is 404"
    )


async def calibrated(http: HttpStatusTarget, agent_id: str, sid: str, *, varied: dict[str, str]) -> bool:
    """The messages probe tells the caller's session as named (2xx) from the varied name (not
    2xx): ``varied`` holds the one name changed, ``session_id``, ``agent_id`` or ``user_id``."""
    if not http.drivable:
        return False
    mine = await http.exists_elsewhere(agent_id, sid)
    theirs = await http.exists_elsewhere(
        varied.get("agent_id", agent_id), varied.get("session_id", sid), user_id=varied.get("user_id")
    )
    return ok(mine) and not ok(theirs)


@case("http.identity.session-id-variants", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def session_id_in_another_form(http: HttpStatusTarget, details: dict) -> None:
    """The caller's session id upper-cased, shortened or with a space is 404 (422 only where the
    service's own OpenAPI declares a session_id the form breaks), unless the service answers for
    it everywhere (its messages too)."""
    agent_id, sid = await http.new_session()
    variants = Variants(
        http,
        details,
        await calibrated(http, agent_id, sid, varied={"session_id": http.unknown_id()}),
        session_ids=True,
    )
    for name, form in forms(sid).items():
        await variants.judge(f"the session id {name} ({form!r})", form, agent_id)
    variants.verdict("its session id", "session")


FORMS_CASE = "http.fuzz.session-id-forms"
# Tried first at every seed: the forms a lookup most often folds (case, NFKC, spaces, invisible
# characters, a prefix), each in one edit. Half the id is a prefix no sibling shares, whatever ids
# the service hands out; a shorter one that Hypothesis draws may be shared and miss a prefix lookup.
EXPLICIT_FORMS = (
    IdForm((("truncate", 0.5, 0.5, ""),)),
    IdForm((("fullwidth", 0.0, 1.0, ""),)),
    IdForm((("upper", 0.0, 1.0, ""),)),
    IdForm((("insert", 0.0, 0.0, " "),)),
    IdForm((("extend", 0.0, 0.0, "\u200b"),)),
    IdForm((("insert", 0.5, 0.5, "\u00a0"),)),
)


@case(FORMS_CASE, level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY, slow=True)
async def session_id_forms(http: HttpStatusTarget, details: dict) -> None:
    """Generated forms of the caller's session id (a span's letter case changed, characters
    inserted, deleted or made fullwidth, the id cut short or extended) are 404, unless the service
    answers for the form everywhere (its messages too): the same judgement as
    http.identity.session-id-variants, on forms drawn by Hypothesis."""
    agent_id, sid = await http.new_session()
    probe_ok = await calibrated(http, agent_id, sid, varied={"session_id": http.unknown_id()})
    details["messages_probe_calibrated"] = probe_ok
    unjudged: list[str] = []

    async def check(form: IdForm) -> None:
        value = apply_edits(sid, form.edits)  # the edits, on this run's id (a replay's is another)
        if value == sid or "/" in value:
            return
        variants = Variants(http, {}, probe_ok, session_ids=True)
        await variants.judge(f"the session id as {value!r}", value, agent_id)
        if variants.problems:
            raise FuzzFailure(variants.problems[0])
        unjudged.extend(variants.unjudged)

    await fuzz(http, details, FORMS_CASE, id_edits(sid), check, EXPLICIT_FORMS, decode=IdForm.from_json)
    if unjudged:
        raise MissingInput(
            f"status answered 200 for its session id in another form ({'; '.join(unjudged[:3])}), and the suite has "
            "no calibrated probe (the session's messages telling names apart) to see whether the service treats it "
            "as the same everywhere"
        )


async def owner_views(
    http: HttpStatusTarget, agent_id: str, sid: str, user_id: str
) -> dict[str, bool | None]:
    """What the service's other routes say of the caller ``user_id`` and the session: for each
    route, whether it treats that caller as the session's owner (its messages answer 2xx; its
    listing of the agent's sessions carries the session), None where the route did not answer."""
    messages = await http.exists_elsewhere(agent_id, sid, user_id=user_id)
    listed = await http.listed(agent_id, sid, user_id=user_id)
    return {"the session's messages": ok(messages), "the listing of the agent's sessions": listed}


async def calibrated_routes(http: HttpStatusTarget, agent_id: str, sid: str) -> list[str]:
    """The other routes that tell the owner (owner: True) from another user (owner: False): the
    only ones whose word on a caller is evidence of the service's identity policy."""
    if not http.drivable:
        return []
    mine = await owner_views(http, agent_id, sid, http.user_id)
    theirs = await owner_views(http, agent_id, sid, http.other_user_id)
    return [route for route, owner in mine.items() if owner is True and theirs[route] is False]


def judge_user_form(
    label: str, said: dict[str, bool | None], code: int, described: str, after: int | None
) -> tuple[str, str] | None:
    """Status's answer (``code``, ``described``) for the caller's id in another form, against what
    the calibrated other routes said of that caller just before (``said``: route -> treats it as
    the owner) and the messages' code just after (``after``): ("problem", why), ("unjudged", what)
    for a 200 no route can back or refute, ("folded", what) for a 200 every route backs, or None
    for a 404 the routes allow."""
    owner = [r for r, v in said.items() if v]
    stranger = [r for r, v in said.items() if not v]
    if "the session's messages" in stranger and ok(after):
        return "problem", (
            f"{label}: the session's messages refused it before the status probe and answered {after} after it "
            f"({described}): the probe made it an owner"
        )
    if ok(code):
        if not said:
            return "unjudged", f"{label} ({described})"
        if stranger:
            return "problem", (
                f"{label}: status answered {described} while {' and '.join(stranger)} treat it as another user: "
                "status's ownership is not the service's"
            )
        return "folded", f"{label} is the owner on status and on {' and '.join(owner)}"
    if code not in NOT_FOUND_CODES:
        return "problem", f"{label}: answered {described}, neither the session's status nor 404"
    if said and not stranger:
        return "problem", (
            f"{label}: status answered {described} while {' and '.join(owner)} treat it as the session's owner: "
            "status alone tells it apart from the authenticated owner"
        )
    return None


@case("http.identity.user-id-variants", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def user_id_in_another_form(http: HttpStatusTarget, details: dict) -> None:
    """The caller's x-user-id in another letter case is answered by status as the service's other
    routes answer it: the spec fixes no comparison rule for the "temporary header-based identity",
    so whether "ALICE" is alice is the deployment's policy, but the session "belongs to the
    authenticated user" alike on every route. So status's 200 for the varied id stands only where
    every calibrated other route (the session's messages, the listing) treats it as the owner too,
    and its 404 only where one of them treats it as someone else. Those routes are asked first, and
    used only when they tell the owner from another user. A service that folds the case everywhere
    is conforming (info)."""
    agent_id, sid = await http.new_session()
    cased = {n: f for n, f in forms(http.user_id).items() if n in ("upper-case", "lower-case")}
    if not cased:
        raise MissingInput(
            f"the caller's id {http.user_id!r} has no letters whose case could differ (--user-id)"
        )
    routes = await calibrated_routes(http, agent_id, sid)
    details["calibrated routes"] = routes
    problems: list[str] = []
    unjudged: list[str] = []
    folded: list[str] = []
    for name, form in cased.items():
        label = f"x-user-id {name} ({form!r})"
        views = await owner_views(http, agent_id, sid, form) if routes else {}
        said = {route: views[route] for route in routes}
        probe = await http.status(sid, agent_id, user_id=form)
        after = await http.exists_elsewhere(agent_id, sid, user_id=form) if routes else None
        details[label] = {"other routes (owner?)": said, "status": probe.describe(), "messages after": after}
        found = judge_user_form(label, said, probe.code, probe.describe(), after)
        if found is not None:
            {"problem": problems, "unjudged": unjudged, "folded": folded}[found[0]].append(found[1])
    if problems:
        raise Violation(
            "the caller's x-user-id in another letter case: " + "; ".join(problems),
            expected="status answering the varied id as the service's other routes do: 404 where they treat it as "
            "another user, the session's status where they treat it as its owner",
            observed=problems,
        )
    if unjudged:
        raise MissingInput(
            f"status answered 200 for the caller's x-user-id in another letter case ({'; '.join(unjudged)}), and "
            "the suite has no calibrated route (messages or listing telling the owner from another user) to see "
            "whether the service treats it as the same user everywhere"
        )
    if folded:
        raise Info("the service folds user ids by letter case on every route it offers: " + "; ".join(folded))


@case("http.identity.agent-id-variants", level=Level.MUST, spec=AGENT_PARAM, needs=HTTP_CAPABILITY)
async def agent_id_in_another_form(http: HttpStatusTarget, details: dict) -> None:
    """The session's agent_id upper-cased or shortened is another agent (404), unless the service
    answers for it everywhere (the session's messages too)."""
    agent_id, sid = await http.new_session()
    variants = Variants(
        http,
        details,
        await calibrated(http, agent_id, sid, varied={"agent_id": http.other_agent_id(agent_id)}),
    )
    for name, form in forms(agent_id).items():
        await variants.judge(f"the agent_id {name} ({form!r})", sid, form)
    variants.verdict("its agent_id", "agent")


ODD_SESSION_IDS = {
    "a 600-character id": "conformance-long-" + "0123456789abcdef" * 36 + "-x",
    "a unicode id": "séance-会话-🙂",
    "the dot segment ..": "..",
}
ODD_VALUES = {"empty": "", "600 characters long": "conformance-" + "x" * 588, "unicode": "ユーザー-é"}


@case(
    "http.types.odd-values",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("session-id", "user-id", "agent-id"),
)
async def odd_values(http: HttpStatusTarget, details: dict) -> None:
    """Odd session ids (long, unicode, `..`) are 404, or 422 where the service's own OpenAPI
    declares a session_id they break (`..`, a dot segment: a redirect or a 400 too); an odd
    x-user-id (empty, long, unicode) never gets the caller's session (no 2xx) nor a server error;
    an odd agent_id is 404 or 422."""
    agent_id, sid = await http.new_session()
    problems = Problems.listed(
        "a session id that does not exist: 404 (422 where the service's own OpenAPI declares a "
        "session_id it breaks); an agent_id the session does not belong to: 404 (or 422; "
        "for a dot segment, a redirect or 400 too); "
        "an x-user-id that is not the owner's: never the session's status, never a server error",
        lead="odd values: ",
    )
    with problems.kept(details):  # a later probe unanswered keeps the values already shown
        for name, value in ODD_SESSION_IDS.items():
            probe = await http.status(value, agent_id)
            details[f"session id: {name}"] = probe.describe()
            allowed = NOT_FOUND_CODES + (DOT_SEGMENT_CODES if value.strip(".") == "" else ())
            if probe.code not in allowed:
                problems.add("session-id", f"{name} got {probe.describe()}")
            elif unjustified := unjustified_422(http, value, probe):
                problems.add("session-id", f"{name} {unjustified}")
        for name, value in ODD_VALUES.items():
            probe = await http.status(sid, agent_id, user_id=value)  # "": the header sent empty
            details[f"x-user-id {name}"] = probe.describe()
            if ok(probe.code) or probe.code >= 500:
                problems.add("user-id", f"an x-user-id {name} got {probe.describe()}")
        for name, value in ODD_VALUES.items():
            probe = await http.status(sid, value)
            details[f"agent_id {name}"] = probe.describe()
            if probe.code not in NOT_FOUND_CODES:
                problems.add("agent-id", f"an agent_id {name} got {probe.describe()}")
    problems.judge()
