"""Whether a shared cache (RFC 9111) would answer another caller with a status response."""

import pytest

from conformance.targets.http.caching import cache_directives, shared_reuse

DATE = "Mon, 07 Dec 2026 05:00:00 GMT"


def test_directives_are_parsed_case_insensitively_with_quoted_values() -> None:
    assert cache_directives('Public, MAX-AGE=5, no-cache="set-cookie", private') == {
        "public": None,
        "max-age": "5",
        "no-cache": "set-cookie",
        "private": None,
    }
    assert cache_directives(None) == {}
    assert len(cache_directives(",".join(f"x{n}" for n in range(500)))) == 64


@pytest.mark.parametrize(
    "headers",
    [
        {"Cache-Control": "public, max-age=1, stale-while-revalidate=5"},
        {"Cache-Control": "max-age=30"},
        {"Cache-Control": 's-maxage=10, private="set-cookie"'},
        {"Cache-Control": "public, max-age=60", "Vary": "Accept-Encoding, Origin"},
        {"Cache-Control": "max-age=0, stale-while-revalidate=30"},
        {"Cache-Control": 'no-cache="set-cookie", max-age=5'},
        {"Expires": "Mon, 07 Dec 2026 05:00:02 GMT", "Date": DATE},
        {"Expires": "Mon, 07 Dec 2026 05:00:02 -0000", "Date": DATE},
        {"Expires": "Mon, 07 Dec 2026 05:00:02 GMT", "Date": f"{DATE}, {DATE}"},
        {"Expires": "Mon, 07 Dec 2999 05:00:02 GMT"},
    ],
)
def test_reusable_for_another_caller(headers: dict[str, str]) -> None:
    assert shared_reuse(headers) is not None


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"ETag": '"abc"'},
        {"Cache-Control": "no-store"},
        {"Cache-Control": "private, max-age=60"},
        {"Cache-Control": "no-cache, max-age=60"},
        {"Cache-Control": "public, max-age=60", "Vary": "X-User-Id"},
        {"Cache-Control": "public, max-age=60", "Vary": "accept-encoding, x-user-id"},
        {"Cache-Control": "max-age=60", "Vary": "*"},
        {"Cache-Control": "max-age=0"},
        {"Cache-Control": "max-age=0, must-revalidate, stale-while-revalidate=30"},
        {"Cache-Control": "s-maxage=0, stale-while-revalidate=30"},
        {"Expires": "0", "Date": DATE},
        {"Expires": "Mon, 07 Dec 2026 04:00:00 GMT", "Date": DATE},
        {"Expires": "Mon, 07 Dec 2000 04:00:00 GMT"},
        {"Expires": "soon", "Date": DATE},
        {"Cache-Control": "max-age=-5"},
    ],
)
def test_not_reusable_for_another_caller(headers: dict[str, str]) -> None:
    assert shared_reuse(headers) is None


def test_a_request_with_authorization_is_stored_only_where_the_response_allows_it() -> None:
    assert shared_reuse({"Cache-Control": "max-age=60"}, authorization=True) is None
    assert shared_reuse({"Cache-Control": "public, max-age=60"}, authorization=True) is not None


def test_s_maxage_decides_for_a_shared_cache_over_max_age() -> None:
    assert shared_reuse({"Cache-Control": "max-age=60, s-maxage=0"}) is None
    assert shared_reuse({"Cache-Control": "max-age=0, s-maxage=5"}) is not None
