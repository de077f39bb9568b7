"""HTTP status at value boundaries and in encodings: long ids sharing a prefix, ids decoded twice,
dot segments, other normalisation forms, empty values.

A value a store cannot keep whole must be refused (4xx), never cut to fit: a store that cuts ids
at 64 characters answers one session (or one user) for another that shares the first 64. Values
are tried at the storage limits seen most (64, 255 and 256, 1024, 4096 characters). And an id is
decoded once, as the URL carries it: decoded twice, ``%2530…`` reaches the session ``0…``; a
``/`` or a dot segment inside one percent-encoded path segment is data, not a path step.
"""

from __future__ import annotations

import unicodedata
import uuid
from urllib.parse import urlsplit

import httpx
from conformance.cases.http.status import HTTP_CAPABILITY, NOT_FOUND

from conformance.core.outcomes import Problems
from conformance.core.registry import Level, case
from conformance.targets import slow_reader
from conformance.targets.http.calibration import parameter_schema, parsed, schema_refuses
from conformance.targets.http.target import STATUS_PATH, HttpStatusTarget, StatusProbe

LENGTHS = (64, 255, 256, 1024, 4096)  # common column widths, and one past the most common one


def refused(probe: StatusProbe) -> bool:
    """A refusal: any 4xx (404, 422, 414 for a URI too long, 431 for a header too large, 400)."""
    return 400 <= probe.code < 500


def published_longest(http: HttpStatusTarget, name: str) -> int | None:
    """The maxLength the service's own OpenAPI declares for the status route's parameter
    ``name`` (session_id, agent_id, x-user-id), or None."""
    schema = parameter_schema(http.openapi, STATUS_PATH, name)
    longest = schema.get("maxLength") if isinstance(schema, dict) else None
    return longest if isinstance(longest, int) and not isinstance(longest, bool) and longest > 0 else None


def refused_within_contract(http: HttpStatusTarget, name: str, value: str, probe: StatusProbe) -> str | None:
    """What is wrong with a refusal of ``value`` as invalid (400, 422) where the service publishes
    a maxLength for the parameter ``name`` and ``value`` keeps to everything it publishes: its own
    contract calls the request valid, so a session it does not have is 404. None where nothing is
    published (a store's own limit may refuse with any 4xx), or the refusal is the contract's."""
    longest = published_longest(http, name)
    if (
        probe.code not in (400, 422)
        or longest is None
        or schema_refuses(http.openapi, STATUS_PATH, name, value) is not None
    ):
        return None
    return (
        f"a {name} of {len(value)} characters got {probe.describe()}, a refusal as invalid, while the service's "
        f"OpenAPI declares maxLength {longest} for it: within its published contract, a session it does not "
        "have is 404"
    )


def padded(prefix: str, length: int, last: str = "") -> str:
    """``prefix`` followed by filler and ``last``, ``length`` characters in all."""
    return prefix + "x" * (length - len(prefix) - len(last)) + last


async def own_session(http: HttpStatusTarget, user_id: str) -> tuple[str, str] | int:
    """(agent id, session id) of a session made by ``user_id`` through the service's API, or the
    HTTP code the service refused it with."""
    driver = http.driver
    credential = await driver.request(
        "POST",
        "/credential/",
        user_id=user_id,
        json={
            "data": {
                "type": "openai_credential",
                "api_key": "sk-conformance",
                "base_url": http.model.base_url,
            }
        },
    )
    if credential.status_code >= 300:
        return credential.status_code
    payload = {"name": "conformance-boundary", "system_prompt": "You are a probe."}
    agent = await driver.request("POST", "/agent/", user_id=user_id, json=payload)
    agent_id = _field(agent, "agent_id")
    if agent.status_code >= 300 or agent_id is None:
        return agent.status_code
    session = await driver.request(
        "POST", "/sessions/", user_id=user_id, json={"agent_id": agent_id, "name": "conformance-boundary"}
    )
    session_id = _field(session, "session_id")
    if session.status_code >= 300 or session_id is None:
        return session.status_code
    return agent_id, session_id


def _field(response: httpx.Response, name: str) -> str | None:
    body = parsed(response.text)
    value = body.get(name) if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


@case(
    "http.boundary.id-lengths",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("session-id", "user-id", "agent-id"),
)
async def ids_at_storage_limits(http: HttpStatusTarget, details: dict) -> None:
    """Ids at 64, 255, 256, 1024 and 4096 characters are refused (4xx) or answered for exactly that
    id, never cut: the caller's session id with characters appended is not the session; of two
    users whose ids share all but the last character, one does not read the other's session, nor
    does the first 64 characters of its id, and the owner itself reads it wherever its messages
    answer it; the session's agent_id with characters appended is not its agent. No server error
    either. Where the service publishes a maxLength for an id (the session id, the agent_id, the
    caller's x-user-id), that length and one past it are tried too, and for a path id that length
    in characters one to four bytes wide (JSON Schema counts characters, not bytes): within it, a
    400 or 422 for a request valid by everything else it publishes is a refusal its own contract
    does not allow.

    Calibrated: a user the service refuses to create anything for (its id too long to store) is a
    refusal; only a user who made a session is asked about it."""
    agent_id, sid = await http.new_session()
    problems = Problems.listed(
        "a refusal (4xx) or the answer for exactly that id: never another id's session, never cut",
        limit=6,
        rules=("session-id", "user-id", "agent-id"),
    )
    with problems.kept(details):  # a later probe unanswered keeps the ids already shown cut
        for name, size, value, why in _long_values(http, sid, agent_id):
            rule, what = _LONG_VALUES[name]
            if name == "x-user-id":  # another user, exactly as long however short the edge
                probe = await http.status(sid, agent_id, user_id=value)
            elif name == "agent_id":
                probe = await http.status(sid, value)
            else:
                probe = await http.status(value, agent_id)
            details[f"{what}, {size}"] = probe.describe()
            if not refused(probe):
                problems.add(rule, f"{what}, {size} long, got {probe.describe()}")
            elif wrong := refused_within_contract(http, name, value, probe):
                problems.add(rule, wrong + why)
        if http.drivable:
            for length in LENGTHS:
                problems.extend(("user-id", p) for p in await _users_sharing_a_prefix(http, length, details))
    problems.judge()


def _long_values(http: HttpStatusTarget, sid: str, agent_id: str) -> list[tuple[str, str, str, str]]:
    """(parameter, its size, value, what a refusal as invalid shows) of each long value tried: the
    session's id and the agent_id with characters appended at the storage limits and at the
    service's published maxLength and one past it, and at that maxLength in characters one to four
    bytes wide (JSON Schema counts characters: a store that counts its limit in bytes refuses as
    invalid an id its own contract takes); another user's id at the published edge."""
    tried: list[tuple[str, str, str, str]] = []
    for name, own in (("session_id", sid), ("agent_id", agent_id)):
        published = published_longest(http, name)
        tried += [(name, f"{n} characters", padded(own, n), "") for n in _lengths(published) if n > len(own)]
        if published is not None and len(own) < published <= max(LENGTHS):
            wide = own + slow_reader.wide_text(published - len(own))
            tried.append(
                (
                    name,
                    f"{published} characters one to four bytes wide",
                    wide,
                    " (its characters one to four bytes wide: a limit counted in bytes)",
                )
            )
    for n in _edge(published_longest(http, "x-user-id")):
        tried.append(("x-user-id", f"{n} characters", (f"edge{uuid.uuid4().hex}" + "x" * n)[:n], ""))
    return tried


# Each long value tried: its rule, and what it is.
_LONG_VALUES = {
    "session_id": ("session-id", "the session's id with characters appended"),
    "agent_id": ("agent-id", "the agent_id with characters appended"),
    "x-user-id": ("user-id", "another user's id"),
}


def _lengths(published: int | None) -> list[int]:
    """The storage limits tried, and the service's published maxLength with one past it: its own
    contract's edge."""
    return sorted({*LENGTHS, *_edge(published)})


def _edge(published: int | None) -> list[int]:
    """The service's published maxLength and one past it, where the suite tries lengths that long."""
    return [published, published + 1] if published is not None and published <= max(LENGTHS) else []


async def _users_sharing_a_prefix(http: HttpStatusTarget, length: int, details: dict) -> list[str]:
    stem = f"conformance-long-{uuid.uuid4().hex[:8]}-"
    owner, other = padded(stem, length, "a"), padded(stem, length, "b")
    made = await own_session(http, owner)
    if isinstance(made, int):
        details[f"user id of {length}"] = f"refused: HTTP {made} when it made its session"
        return []
    agent_id, sid = made
    mine = await http.status(sid, agent_id, user_id=owner)
    theirs = await http.status(sid, agent_id, user_id=other)
    cut = await http.status(sid, agent_id, user_id=owner[:64]) if length > 64 else None
    details[f"user id of {length}"] = {
        "owner": mine.describe(),
        "another with the same prefix": theirs.describe(),
        **({"the owner's first 64 characters": cut.describe()} if cut else {}),
    }
    problems = []
    answered = mine.code == 200 and isinstance(mine.body, dict) and mine.body.get("session_id") == sid
    if refused(mine) and 200 <= await http.exists_elsewhere(agent_id, sid, user_id=owner) < 300:
        problems.append(
            f"the {length}-character owner of a session got {mine.describe()} for it, while its messages answer it"
        )
    elif not refused(mine) and not answered:
        problems.append(f"the {length}-character owner of a session got {mine.describe()} for it")
    if not refused(theirs):
        problems.append(
            f"a {length}-character user whose id differs from the owner's in its last character got {theirs.describe()}"
        )
    if cut is not None and not refused(cut):
        problems.append(f"the first 64 characters of a {length}-character owner's id got {cut.describe()}")
    return problems


def twice_encoded(value: str, how_many: int) -> str:
    """``value`` with its first ``how_many`` characters written as %HH: decoded once it is another
    id (a literal ``%30…``), decoded twice it is ``value`` (the URL encodes the ``%`` as %25)."""
    return "".join(f"%{ord(c):02X}" for c in value[:how_many]) + value[how_many:]


DOT_FORMS = ("x/../{id}", "./{id}", "{id}/.", "{id}/", "{id}/..", "..%2F{id}")


@case(
    "http.boundary.encodings",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("double-decoding", "dot-segments", "normalisation", "empty"),
)
async def ids_in_other_encodings(http: HttpStatusTarget, details: dict) -> None:
    """An id decoded twice reaches no session: the session id, the agent_id and the x-user-id with
    a character written as %HH (sent as %25HH in the URL) are not the session's, agent's or
    owner's. A `/` or a dot segment inside the id (`x/../<id>`, `<id>/.`, each one percent-encoded
    path segment) does not reach the session, nor does a redirect to it. The owner's id in another
    Unicode normalisation form (NFD of an NFC id) is another user, unless the service treats it as
    the same one everywhere (its messages too). An empty session id is no session.

    Calibrated: a form's 200 is judged by the session's messages for that form where they tell the
    owner apart from another user (the same calibrated probe as http.identity.user-id-variants)."""
    agent_id, sid = await http.new_session()
    problems = Problems.listed(
        "refused (4xx), or the answer for exactly that id: an id decoded once, a path segment as data",
        limit=6,
    )
    forms = {
        "the session id with its first character as %HH": (twice_encoded(sid, 1), agent_id, None),
        "the session id all in %HH": (twice_encoded(sid, len(sid)), agent_id, None),
        "the agent_id with its first character as %HH": (sid, twice_encoded(agent_id, 1), None),
        "the x-user-id with its first character as %HH": (sid, agent_id, twice_encoded(http.user_id, 1)),
    }
    with problems.kept(details):  # a later probe unanswered keeps the forms already shown
        for name, (session_id, agent, user) in forms.items():
            probe = await http.status(session_id, agent, user_id=user)
            details[name] = probe.describe()
            if not refused(probe):
                problems.add("double-decoding", f"{name} got {probe.describe()}")
        for form in DOT_FORMS:
            value = form.format(id=sid)
            probe = await http.status(value, agent_id)
            details[f"the session id as {value[:60]!r}"] = probe.describe()
            location = probe.response.headers.get("location", "")
            if 200 <= probe.code < 300 or probe.code >= 500 or sid in urlsplit(location).path:
                shown = f"{probe.describe()}{f' to {location[:200]}' if location else ''}"
                problems.add("dot-segments", f"the session id as {value[:80]!r} got {shown}")
        empty = await http.status("", agent_id)
        details["an empty session id"] = empty.describe()
        if 200 <= empty.code < 300 or empty.code >= 500:
            problems.add("empty", f"an empty session id got {empty.describe()}")
        if http.drivable:
            problems.extend(await _normalisation(http, details))
    problems.judge()


async def _normalisation(http: HttpStatusTarget, details: dict) -> list[tuple[str, str]]:
    """A user whose id ends in é (NFC) makes a session; the same id in NFD (e and a combining
    acute accent) asks about it. Status must tell that form apart exactly as the session's
    messages do, where they tell the owner from another user (the calibrated probe of
    http.identity.user-id-variants): its 200 stands only where they answer that form too, and
    its 404 only where they refuse it."""
    stem = f"conformance-nfc-{uuid.uuid4().hex[:8]}-caf"
    owner, decomposed = unicodedata.normalize("NFC", stem + "é"), unicodedata.normalize("NFD", stem + "é")
    made = await own_session(http, owner)
    if isinstance(made, int):
        details["normalisation"] = f"left out: a user id ending in é was refused (HTTP {made})"
        return []
    agent_id, sid = made
    probe = await http.status(sid, agent_id, user_id=decomposed)
    details["the owner's id in NFD"] = probe.describe()
    if refused(probe) and probe.code != 404:
        return []  # a form the service refuses as a request (400, 422): no owner to compare
    mine = await http.exists_elsewhere(agent_id, sid, user_id=owner)
    stranger = await http.exists_elsewhere(agent_id, sid, user_id=f"conformance-other-{uuid.uuid4().hex[:8]}")
    if not 200 <= mine < 300 or 200 <= stranger < 300:
        details["normalisation"] = (
            f"not judged: the session's messages do not tell its owner (HTTP {mine}) from another user "
            f"(HTTP {stranger})"
        )
        return []
    theirs = await http.exists_elsewhere(agent_id, sid, user_id=decomposed)
    if refused(probe) != (200 <= theirs < 300):
        return []  # status tells the two forms apart exactly as the rest of the service does
    alone = "apart" if refused(probe) else "for one user"
    return [
        (
            "normalisation",
            f"the owner's id in NFD got {probe.describe()} while the session's messages answer that form {theirs}: "
            f"status alone takes the two forms {alone}",
        )
    ]
