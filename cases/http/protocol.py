"""HTTP status through the protocol underneath, as clients, caches and proxies use it (RFC 9110):
revalidation with the validators the service itself sends, HEAD, the path with a trailing slash
and the redirects the service answers it with, content codings, ``Accept-Language``, and the
other routes of the service's OpenAPI document that show a session's status.

Each is a feature a real client uses without asking the service: a browser revalidates with
``If-None-Match``, a proxy turns a GET into a HEAD, a router appends a slash, a gateway asks for
gzip, a user agent sends its language. The status is the same resource whichever of them asks,
so the spec's answer (the session's status, to its owner only) holds through every one.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

import anyio
from conformance.cases.http.states import driven_session, parked_for_external, parked_for_permission
from conformance.cases.http.status import HTTP_CAPABILITY, NOT_FOUND, ONE_VALUE, STATUSES

from conformance.core.outcomes import (
    MissingInput,
    NotApplicable,
    NotTestable,
    Problems,
    Unanswered,
    Violation,
)
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.http.agentscope import segment
from conformance.targets.http.caching import shared_reuse
from conformance.targets.http.calibration import flatten
from conformance.targets.http.target import STATUS_PATH, HttpStatusTarget, StatusProbe

# "The 304 (Not Modified) status code indicates that a conditional GET or HEAD request has been…"
NOT_MODIFIED = requirement("agentscope-2.0.4", "not-modified")
# "The HEAD method is identical to GET except that the server MUST NOT send content in the…"
HEAD = requirement("agentscope-2.0.4", "head")
# "The 406 (Not Acceptable) status code indicates that the target resource does not have a cur…"
NOT_ACCEPTABLE = requirement("agentscope-2.0.4", "not-acceptable")
# "The origin server MUST generate an Allow header field in a 405 response containing a list o…"
ALLOW = requirement("agentscope-2.0.4", "allow")
# Methods clients send a GET resource without being told it serves them: a proxy's or a monitor's
# HEAD, a browser's CORS preflight or a client discovering the methods (OPTIONS). Both are safe
# (RFC 9110 9.2.1), so asking them changes nothing a conforming service keeps.
UNASKED_METHODS = ("HEAD", "OPTIONS")
# The request header that revalidates with each validator a response carries, and the validator's name.
VALIDATORS = (("If-None-Match", "etag", "ETag"), ("If-Modified-Since", "last-modified", "Last-Modified"))
# RFC 9110 15.4.5: the fields a 304 carries when its 200 would (a cache updates its copy from them).
KEPT_BY_304 = ("content-location", "date", "etag", "vary", "cache-control", "expires")
LANGUAGES = ("de", "fr-CH, fr;q=0.9", "ja")  # Accept-Language values a user agent sends
CODINGS = "br, gzip;q=0.5"  # what a browser or a gateway asks for; httpx itself asks "gzip, deflate"
# Accept as clients send it by default, each with a media range that application/json meets at a
# q-value above 0 (RFC 9110 12.5.1): a service that produces application/json has a representation
# acceptable to every one of them.
ACCEPTS = {
    "curl, requests and fetch": "*/*",
    "axios and Angular": "application/json, text/plain, */*",
    "a JSON client with a charset": "application/json; charset=utf-8",
    "a browser navigating": (
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
    ),
    "a media range with a q-value": "application/*;q=0.5, text/plain",
    "JSON in capitals, quoted parameter": 'Application/JSON;q="1"',
}
MAX_ROUTES = 8  # routes of the OpenAPI document asked, besides the status route
# Headers about where a request comes from, which decide nothing of who the caller is: a browser's
# fetch from a dashboard on another origin (CORS, the Fetch metadata, a cookie), and what proxies
# add on the way (the client's address, the scheme and host it asked for).
BROWSER = {
    "Origin": "https://dashboard.example",
    "Referer": "https://dashboard.example/sessions",
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Dest": "empty",
    "X-Requested-With": "XMLHttpRequest",
    "Cookie": "session=conformance-dashboard",
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
}
PROXY = {
    "X-Forwarded-For": "10.0.0.7, 127.0.0.1",
    "X-Real-IP": "10.0.0.7",
    "Forwarded": 'for=10.0.0.7;proto=https;host="agents.example"',
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "agents.example",
    "Via": "1.1 gateway",
}


@case(
    "http.protocol.conditional",
    level=Level.MUST,
    spec=NOT_MODIFIED,
    needs=HTTP_CAPABILITY,
    rules=("etag", "last-modified"),
)
async def validators_follow_the_status(http: HttpStatusTarget, details: dict) -> None:
    """A validator the service sent with a status (ETag, Last-Modified) does not revalidate the
    status once it has changed: If-None-Match / If-Modified-Since with it after an idle session
    parked for permission (or, where nothing asks permission, for an external executor) is a 200
    with the new status, never 304 (a cache would keep showing idle).

    Calibrated: judged only once an unconditional probe reads the new status. A Last-Modified date
    has whole seconds (RFC 9110 5.6.7): the change is made more than a second after it."""
    agent_id, sid = await driven_session(http, "a session whose status changes")
    first = await http.status(sid, agent_id)
    if first.code != 200:
        raise MissingInput(f"the owner's own probe was answered {first.describe()}: see http.status.shape")
    etag = first.response.headers.get("etag")
    modified = first.response.headers.get("last-modified")
    details.update(
        etag=etag, last_modified=modified, cache_control=first.response.headers.get("cache-control")
    )
    if etag is None and modified is None:
        raise NotApplicable(
            "the service sends no validator (ETag, Last-Modified) with the status: nothing revalidates"
        )
    if modified is not None:
        await anyio.sleep(1.1)
    try:
        await parked_for_permission(http, agent_id, sid)
    except (NotTestable, MissingInput) as nothing:
        # A service whose toolkit asks no permission may still wait for an executor.
        details["no_permission_park"] = str(nothing)[:300]
        await http.settle(agent_id, sid)
        await parked_for_external(http, agent_id, sid, details)
    now = await http.status(sid, agent_id)
    if now.status == first.status:
        raise NotTestable(f"the status did not change ({now.describe()}): see http.state.awaiting-permission")
    problems = Problems(
        lambda shown: Violation(
            f"the status changed from {first.status!r} to {now.status!r}, yet "
            + "; ".join(p for _, p in shown)
            + f": a client revalidating its copy keeps reading {first.status!r}",
            expected=f"HTTP 200 with the new status {now.status!r} (the validator no longer matches)",
            observed=[p for _, p in shown],
            rule=shown[0][0],
        )
    )
    if etag is not None:
        again = await http.status(sid, agent_id, headers={"If-None-Match": etag})
        details["if_none_match"] = again.describe()
        if again.code == 304:
            problems.add("etag", f"If-None-Match: {etag[:100]} was answered 304 Not Modified")
    if modified is not None and _date(modified) is not None:
        with problems.kept(details):  # the second probe unanswered keeps the ETag's 304
            again = await http.status(sid, agent_id, headers={"If-Modified-Since": modified})
        details["if_modified_since"] = again.describe()
        if again.code == 304:
            problems.add(
                "last-modified", f"If-Modified-Since: {modified[:100]} was answered 304 Not Modified"
            )
    problems.judge()


def _date(value: str) -> Any:
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None


@case(
    "http.protocol.owner-everywhere",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("head", "trailing-slash", "coding", "headers", "route", "conditional", "shared-cache"),
)
async def ownership_on_every_way_in(http: HttpStatusTarget, details: dict) -> None:
    """Every way a client can ask for a session's status enforces the owner: HEAD (RFC 9110 9.3.2:
    identical to GET), the path with a trailing slash and wherever the service redirects it, a
    request asking for compressed content, a request with the headers a browser (Origin, Referer,
    Sec-Fetch-*, X-Requested-With, a Cookie) or a proxy (X-Forwarded-For, X-Real-IP, Forwarded)
    adds, every other GET route of the service's OpenAPI document whose answer to the owner carries
    the status, and a revalidation with the validators the owner was sent (If-None-Match,
    If-Modified-Since: a cache in front revalidates its copy with the next caller's request).
    Another user and a wrong agent_id get nothing there they would not get for a session that does
    not exist. Where a request comes from is not who asks: CORS headers or Vary: Origin in the
    answer are the service's to add, the code is judged. Rule shared-cache: no 200 the owner gets,
    and no refusal another user gets of the owner's URL, lets a shared cache (RFC 9111: a CDN, a
    gateway) answer the other one with it, which it may where the answer is fresh or servable stale
    for a shared cache and its Vary names no x-user-id.

    Calibrated: each way is asked for an unknown id by the same caller too; an answer differing
    from that one (or any 2xx or 304) tells the session apart. A way the service does not offer
    (405, 404 for everyone) is the same for both, and passes."""
    agent_id, sid = await http.new_session()
    owner = await http.status(sid, agent_id)
    if owner.code != 200:
        raise MissingInput(f"the owner's own probe was answered {owner.describe()}: see http.status.shape")
    ways = await _ways(http, sid, owner, agent_id)
    callers = {
        "another user": (http.other_user_id, agent_id),
        "a wrong agent_id": (None, http.other_agent_id(agent_id)),
    }
    unknown_id = http.unknown_id()
    problems = Problems(
        lambda shown: Violation(
            "the owner check does not hold on every way in: " + "; ".join(p for _, p in shown[:4]),
            expected=(
                "a status no shared cache reuses for another caller (Cache-Control: private, no-cache or no-store, "
                "or Vary: x-user-id)"
                if shown[0][0] == "shared-cache"
                else "the answer an id nobody created gets (HTTP 404 on the status route), or a refusal of the way itself"
            ),
            observed=[p for _, p in shown][:10],
            rule=shown[0][0],
        )
    )
    seen: dict[str, str] = {}
    details["answers"] = seen
    shared: list[str] = []  # each reason a shared cache may reuse an answer, said once

    def cached(answer: StatusProbe, whose: str, then: str) -> None:
        """Rule shared-cache: ``answer`` (``whose``) is one a shared cache gives ``then``."""
        reused = shared_reuse(answer.response.headers)
        if reused is not None and reused not in shared:
            shared.append(reused)
            vary = answer.response.headers.get("vary", "none")[:100]
            problems.add(
                "shared-cache", f"{whose}: {reused}, and its Vary ({vary}) does not name x-user-id, so {then}"
            )

    def owners(what: str, answer: StatusProbe) -> None:
        if answer.code == 200:
            cached(
                answer,
                f"the owner's 200 to {what}",
                "another user asking the same URL gets the owner's status from the cache",
            )

    owners("GET of the status route", owner)
    with problems.kept(details):  # a later way unanswered keeps the ways already shown
        for rule, what, method, path, headers in ways:
            # The owner first, as in use: a cache in front that keeps the owner's answer is asked after it.
            mine = await http.ask(method, path(sid), params={"agent_id": agent_id}, headers=headers)
            seen[f"{what}, the owner"] = _chain(mine)
            owners(what, mine[-1])
            for who, (user, agent) in callers.items():
                params = {"agent_id": agent}
                theirs = await http.ask(method, path(sid), user_id=user, params=params, headers=headers)
                unknown = await http.ask(
                    method, path(unknown_id), user_id=user, params=params, headers=headers
                )
                seen[f"{what}, {who}"] = _chain(theirs)
                last, control = theirs[-1], unknown[-1]
                # Another user's refusal is of the owner's URL: a cache keeps it for the owner too.
                if user is not None and last.code >= 400:
                    cached(
                        last,
                        f"another user's {last.code} to {what}",
                        f"the owner asking the same URL gets that {last.code} from the cache",
                    )
                if 200 <= last.code < 300 or last.code == 304 or last.code != control.code:
                    problems.add(
                        rule,
                        f"{what} by {who} was answered {_chain(theirs)} (for an id nobody created: {_chain(unknown)})",
                    )
    problems.judge()


async def _ways(
    http: HttpStatusTarget, sid: str, owner: StatusProbe, agent_id: str
) -> list[tuple[str, str, str, Any, dict[str, str] | None]]:
    """(rule, what, method, path of an id, headers) of every way in the case asks."""

    def status_path(suffix: str = "") -> Any:
        return lambda session_id: f"/sessions/{segment(session_id)}/status{suffix}"

    ways: list[tuple[str, str, str, Any, dict[str, str] | None]] = [
        ("head", "HEAD of the status route", "HEAD", status_path(), None),
        ("trailing-slash", "GET of the status route with a trailing slash", "GET", status_path("/"), None),
        ("trailing-slash", "HEAD of the status route with a trailing slash", "HEAD", status_path("/"), None),
        (
            "coding",
            f"GET with Accept-Encoding: {CODINGS}",
            "GET",
            status_path(),
            {"Accept-Encoding": CODINGS},
        ),
        (
            "headers",
            "GET with a browser's headers (Origin, Sec-Fetch-*, a Cookie)",
            "GET",
            status_path(),
            BROWSER,
        ),
        ("headers", "GET with a proxy's headers (X-Forwarded-For, Forwarded)", "GET", status_path(), PROXY),
    ]
    for condition, field, name in VALIDATORS:
        value = owner.response.headers.get(field)
        if value:
            ways.append(
                (
                    "conditional",
                    f"GET with {condition}: the {name} the owner was sent",
                    "GET",
                    status_path(),
                    {condition: value[:1000]},
                )
            )
    for template in await _status_routes(http, sid, owner, agent_id):
        ways.append(("route", f"GET {template}", "GET", _filler(template), None))
    return ways


async def _status_routes(http: HttpStatusTarget, sid: str, owner: StatusProbe, agent_id: str) -> list[str]:
    """The OpenAPI document's other GET routes with one session path parameter (and no other
    required one but agent_id) whose answer to the owner carries the session's status word; at
    most MAX_ROUTES of them, out of at most twice as many asked (the document is the service's)."""
    paths = found if isinstance(found := http.openapi.get("paths"), dict) else {}
    routes: list[str] = []
    asked = 0
    for template, item in sorted(paths.items(), key=lambda pair: str(pair[0])):
        get = item.get("get") if isinstance(item, dict) else None
        if not isinstance(template, str) or template == STATUS_PATH or not isinstance(get, dict):
            continue
        parameters = listed if isinstance(listed := get.get("parameters"), list) else []
        names = [p.get("name") for p in parameters if isinstance(p, dict) and p.get("required")]
        holes = [n for n in names if isinstance(n, str) and "{" + n + "}" in template]
        if len(holes) != 1 or "session" not in holes[0] or set(names) - {holes[0], "agent_id", "x-user-id"}:
            continue
        if _streams(template, get):
            continue  # an event stream's answer never ends: it shows no status to compare
        asked += 1
        answer = (await http.ask("GET", _filler(template)(sid), params={"agent_id": agent_id}))[-1]
        if answer.code == 200 and owner.status in flatten(answer.body, "body").values():
            routes.append(template)
        if len(routes) == MAX_ROUTES or asked == 2 * MAX_ROUTES:
            break
    return routes


STREAMING_WORDS = ("stream", "events", "sse", "subscribe", "watch", "ws")


def _streams(template: str, operation: dict[str, Any]) -> bool:
    """Whether a route serves an event stream: its 200 answer is documented as one, or its last
    segment names one (a streaming route documented as JSON, as FastAPI documents a
    StreamingResponse)."""
    responses = operation.get("responses")
    ok = responses.get("200") if isinstance(responses, dict) else None
    content = ok.get("content") if isinstance(ok, dict) else None
    if isinstance(content, dict) and any(
        "event-stream" in str(kind) or "ndjson" in str(kind) for kind in content
    ):
        return True
    last = template.rstrip("/").rsplit("/", 1)[-1].lower()
    return any(word in last for word in STREAMING_WORDS)


def _filler(template: str) -> Any:
    head, _, rest = template.partition("{")
    tail = rest.partition("}")[2]
    return lambda session_id: f"{head}{segment(session_id)}{tail}"


def _chain(answers: list[StatusProbe]) -> str:
    """Each answer's code, then the last one's body: ``307 -> 404 '{...}'``."""
    return (
        " -> ".join(str(a.code) for a in answers[:-1])
        + (" -> " if len(answers) > 1 else "")
        + answers[-1].describe()
    )


@case("http.protocol.language", level=Level.MUST, spec=ONE_VALUE, needs=HTTP_CAPABILITY)
async def status_words_are_protocol_values(http: HttpStatusTarget, details: dict) -> None:
    """The status is a protocol value, not a text for people: the same word under any
    Accept-Language a user agent sends (de, fr-CH, ja), one of the spec's four. A localised
    detail in an error body is the service's to give; the status word is not translated."""
    agent_id, sid = await http.new_session()
    plain = await http.status(sid, agent_id)
    if plain.code != 200 or plain.status not in STATUSES:
        raise MissingInput(f"the owner's own probe was answered {plain.describe()}: see http.status.shape")
    answers = {
        language: await http.status(sid, agent_id, headers={"Accept-Language": language})
        for language in LANGUAGES
    }
    details["answers"] = {language: probe.describe() for language, probe in answers.items()}
    moved = {
        language: probe
        for language, probe in answers.items()
        if probe.code != 200 or probe.status != plain.status
    }
    if moved:
        language, probe = next(iter(moved.items()))
        raise Violation(
            f"under Accept-Language: {language} the status was answered {probe.describe()}, "
            f"without it {plain.status!r}: the status word is translated",
            expected=f"status {plain.status!r} whatever the language asked for",
            observed={language: probe.describe() for language, probe in moved.items()},
        )


@case("http.protocol.accept", level=Level.MUST, spec=NOT_ACCEPTABLE, needs=HTTP_CAPABILITY)
async def any_accept_that_takes_json(http: HttpStatusTarget, details: dict) -> None:
    """The status is served to every Accept that takes application/json at a q-value above 0, as
    clients send it (curl's */*, axios's list, a charset parameter, a browser's list with */*;q=0.8,
    application/*, other letter case): a 406 says no acceptable representation exists, and the client
    gets no status. A service may answer another media type the client prefers; a JSON answer
    carries the same status as without Accept."""
    agent_id, sid = await http.new_session()
    plain = await http.status(sid, agent_id)
    if plain.code != 200 or plain.status not in STATUSES:
        raise MissingInput(f"the owner's own probe was answered {plain.describe()}: see http.status.shape")
    answers = {
        name: await http.status(sid, agent_id, headers={"Accept": value}) for name, value in ACCEPTS.items()
    }
    details["answers"] = {f"{name} ({ACCEPTS[name]})": probe.describe() for name, probe in answers.items()}
    refused = {
        name: probe
        for name, probe in answers.items()
        if probe.code != 200 or (probe.media_type == "application/json" and probe.status != plain.status)
    }
    if refused:
        name, probe = next(iter(refused.items()))
        raise Violation(
            f"with Accept: {ACCEPTS[name]} ({name}) the status was answered {probe.describe()}, without Accept "
            f"{plain.status!r}: that Accept takes application/json, so a representation acceptable to the client "
            "exists (RFC 9110 12.5.1, 15.5.7) and the client is refused the status",
            expected=f"HTTP 200, status {plain.status!r}",
            observed={f"{n} ({ACCEPTS[n]})": p.describe() for n, p in refused.items()},
        )


@case(
    "http.protocol.header-fields",
    level=Level.MUST,
    spec=ALLOW,
    needs=HTTP_CAPABILITY,
    rules=("allow", "not-modified"),
)
async def codes_carry_their_fields(http: HttpStatusTarget, details: dict) -> None:
    """The header fields RFC 9110 requires of the codes the status route answers, to requests
    clients send it unasked. Rule allow: a 405 to HEAD or OPTIONS of the owner's status URL (a
    proxy's HEAD, a browser's preflight) carries an Allow header that lists GET, which the route
    serves (15.5.6). Rule not-modified: a 304 to the owner's revalidation with the ETag or
    Last-Modified the owner was sent carries each of Content-Location, Date, ETag, Vary,
    Cache-Control and Expires that the route's 200s carry (15.4.5): a cache refreshes its copy
    from the 304's fields.

    Calibrated: the owner's GET of the same URL is a 200, twice, so GET is a method the route
    serves and the fields both 200s carry are the ones a 200 would. A code the service never
    answers here (no 405, no 304) leaves its rule unjudged; a 200 or 501 to HEAD or OPTIONS, or a
    200 to a revalidation, is the service's to give."""
    agent_id, sid = await http.new_session()
    first = await http.status(sid, agent_id)
    if first.code != 200:
        raise MissingInput(f"the owner's own probe was answered {first.describe()}: see http.status.shape")
    second = await http.status(sid, agent_id)
    if second.code != 200:
        raise MissingInput(
            f"the owner's second probe was answered {second.describe()}: see http.status.shape"
        )
    fields = [f for f in KEPT_BY_304 if f in first.response.headers and f in second.response.headers]
    answers: dict[str, str] = {}
    details.update(answers=answers, fields_of_200=fields)
    problems = Problems.listed(
        "a 405 whose Allow lists GET; a 304 with the Content-Location, Date, ETag, Vary, Cache-Control and Expires its 200 carries",
        lead="the status route's answers lack header fields RFC 9110 requires of their code: ",
        limit=4,
    )
    unjudged = {
        "allow": "the route answered no 405 to HEAD or OPTIONS",
        "not-modified": "the route answered no 304 to the owner's revalidation (or sends no validator)",
    }
    path = f"/sessions/{segment(sid)}/status"
    with problems.kept(details):
        for method in UNASKED_METHODS:
            try:
                answer = (await http.ask(method, path, params={"agent_id": agent_id}))[-1]
            except Unanswered as silent:  # a method the service hangs on is not the status's finding
                answers[method] = f"unanswered: {str(silent)[:200]}"
                continue
            allow = answer.response.headers.get_list("allow", split_commas=True)
            answers[method] = f"HTTP {answer.code}" + (f", Allow: {', '.join(allow)[:200]}" if allow else "")
            if answer.code != 405:
                continue
            unjudged.pop("allow", None)
            if "allow" not in answer.response.headers:
                problems.add("allow", f"{method} was answered 405 without an Allow header")
            elif not [m for m in allow if m]:
                problems.add(
                    "allow", f"{method} was answered 405 with an empty Allow (no method served), yet GET is"
                )
            elif "GET" not in allow:  # method names are case-sensitive (RFC 9110 9.1)
                problems.add(
                    "allow",
                    f"{method} was answered 405 with Allow: {', '.join(allow)[:200]}, which does not list GET, "
                    "the method the route answered the owner 200 to",
                )
        for condition, validator, name in VALIDATORS:
            value = second.response.headers.get(validator)
            if not value:
                continue
            again = await http.status(sid, agent_id, headers={condition: value[:1000]})
            answers[condition] = (
                f"HTTP {again.code}, fields {sorted(set(again.response.headers) & set(KEPT_BY_304))}"
            )
            if again.code != 304:
                continue
            unjudged.pop("not-modified", None)
            missing = [f for f in fields if f not in again.response.headers]
            if missing:
                problems.add(
                    "not-modified",
                    f"the owner's {condition} with the {name} it was sent was answered 304 without "
                    f"{', '.join(missing)}, which the route's 200s carry",
                )
    if unjudged:
        details["unjudged"] = unjudged
    problems.judge()
    if len(unjudged) == 2:
        raise NotApplicable(
            "the route answers no 405 to HEAD or OPTIONS and no 304 to a revalidation: no field to require"
        )
