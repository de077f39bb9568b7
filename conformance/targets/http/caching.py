"""What a shared cache (RFC 9111) in front of the service may do with one of its responses: whether
it would answer another caller with it, without asking the service.

A CDN, a reverse proxy or a corporate gateway is a shared cache: it keys what it stores on the URL
and on the request headers the response's Vary names, nothing else. A status answered to its owner
(identified by a request header, AgentScope's x-user-id) that such a cache may store and reuse, and
whose Vary does not name that header, reaches anyone who asks the same URL: the owner check the
service made is bypassed by a cache that follows the service's own directives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["cache_directives", "shared_reuse"]

# One directive: a token, optionally =token or ="quoted string" (RFC 9111 5.2).
_DIRECTIVE = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^,\s]*))?\s*(?:,|$)')


def cache_directives(value: str | None) -> dict[str, str | None]:
    """Cache-Control's directives by lower-cased name (a value unquoted; None for none). Bounded:
    a hostile header yields at most 64 directives."""
    found: dict[str, str | None] = {}
    for match in _DIRECTIVE.finditer((value or "")[:4000]):
        name, raw = match.group(1).lower(), match.group(2)
        if raw is not None and raw.startswith('"'):
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        found.setdefault(name, raw)
        if len(found) >= 64:
            break
    return found


def _seconds(value: str | None) -> int | None:
    """A delta-seconds value (RFC 9111 1.2.2), None where it is not one."""
    if value is None or not value.isdigit():
        return None
    return min(int(value), 2**31)


def _date(value: str | None) -> datetime | None:
    if not value:
        return None
    for text in (value[:100], value[:29]):  # the second: an IMF-fixdate sent twice, joined by a comma
        try:
            found = parsedate_to_datetime(text)
            break
        except (TypeError, ValueError, IndexError, OverflowError):
            continue
    else:
        return None
    # "-0000" (no zone said) parses without one: RFC 9110 dates are GMT.
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


def shared_reuse(
    headers: Mapping[str, str], identity: Sequence[str] = ("x-user-id",), *, authorization: bool = False
) -> str | None:
    """Why a shared cache following RFC 9111 would answer another caller of the same URL with this
    response (a 200, or a 404 with explicit freshness) without asking the service (None: it would
    not). ``identity``: the request headers that say
    who the caller is; ``authorization``: whether the request carried Authorization (RFC 9111 3.5).

    Counted: a response a shared cache may store (3: not no-store, not private unqualified; with
    Authorization, only when public, s-maxage or must-revalidate allows it) that a Vary naming an
    identity header (or *) does not key by caller, and that it may serve without the service:
    fresh for a positive lifetime (s-maxage, else max-age, else Expires against Date: 4.2.1) with
    no unqualified no-cache (5.2.2.4), or stale while it revalidates (stale-while-revalidate, RFC
    5861) where no must-revalidate, proxy-revalidate or s-maxage forbids serving stale (4.2.4).
    Heuristic freshness (4.2.2) is not counted: a cache MAY use it, the service did not ask it to."""
    lowered = {k.lower(): v for k, v in headers.items()}
    control = lowered.get("cache-control")
    directives = cache_directives(control)
    if "no-store" in directives or ("private" in directives and directives["private"] is None):
        return None
    varied = {v.strip().lower() for v in (lowered.get("vary") or "").split(",") if v.strip()}
    if "*" in varied or any(h.lower() in varied for h in identity):
        return None
    if authorization and not {"public", "s-maxage", "must-revalidate"} & directives.keys():
        return None
    said = f"Cache-Control: {control[:200]}" if control else ""
    if "no-cache" not in directives or directives["no-cache"] is not None:
        lifetime = _seconds(directives.get("s-maxage"))
        if lifetime is None:
            lifetime = _seconds(directives.get("max-age"))
        if lifetime is None and "expires" in lowered:
            # Without a usable Date, a cache counts from when it received the response (4.2.1).
            expires, date = _date(lowered.get("expires")), _date(lowered.get("date")) or datetime.now(UTC)
            if expires is not None:
                lifetime = max(int((expires - date).total_seconds()), 0)
                said = f"Expires: {lowered['expires'][:60]} (Date: {lowered.get('date', 'none')[:60]})"
        if lifetime:
            return f"{said} lets a shared cache answer any caller with it for {lifetime} s"
    stale = _seconds(directives.get("stale-while-revalidate"))
    forbidden = {"must-revalidate", "proxy-revalidate", "s-maxage", "no-cache"} & directives.keys()
    if stale and not forbidden:
        return f"{said} lets a shared cache answer any caller with it for {stale} s while it revalidates"
    return None
