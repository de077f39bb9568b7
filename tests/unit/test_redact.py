"""Redaction: credentials go, everything else stays; the one-scan shortcut changes no output."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.redact import HINT, KEYED, PATTERNS, REDACTED, hinted, redact, redact_text

CREDENTIALS = [
    "Bearer abcdefgh12345",
    "sk-abcdefghijklmnop",
    '"api_key": "abcdef123"',
    "ghp_" + "a" * 22,
    "AKIA" + "A" * 16,
    "xoxb-1234567890ab",
    "PASSWORD=hunter22",
    "auth-token: abcdefgh",
]


def every_pass(text: str, secrets: list[str]) -> str:
    """Redaction without the shortcut: every pattern over every string."""
    for value in secrets:
        text = text.replace(value, REDACTED)
    for pattern in PATTERNS:
        text = pattern.sub(REDACTED, text)
    return KEYED.sub(lambda m: m.group(1) + REDACTED, text)


@settings(max_examples=300)
@given(
    before=st.text(max_size=30),
    credential=st.sampled_from(["", *CREDENTIALS]),
    after=st.text(max_size=30),
)
def test_the_shortcut_changes_no_output(before: str, credential: str, after: str) -> None:
    text = before + credential + after
    assert redact_text(text, ["zz9-secret"]) == every_pass(text, ["zz9-secret"])


def test_credentials_go_and_frames_stay() -> None:
    for credential in CREDENTIALS:
        assert REDACTED in redact_text(f"x {credential} y", []), credential
    frame = '{"jsonrpc":"2.0","id":1,"result":{"status":"active"}}'
    assert redact({"frame": frame, "n": [frame]}, []) == {"frame": frame, "n": [frame]}


FRAGMENTS = [
    "sk-",
    "Bearer",
    "ghp_",
    "gh_",
    "AKIA",
    "xoxb-",
    "xox",
    "api-key",
    "API_KEY",
    "Access_Token",
    "authToken",
    "secret",
    "PassWord",
    # Pieces a letter IGNORECASE folds onto ASCII completes ("apİ_key", "ſecret", "bearer" with a K).
    "ap",
    "_key",
    "ecret",
    "bearer",
    "İ",
    "ı",
    "ſ",
    "K",
    "é",
    '"',
    "\\",
    "\n",
]


@settings(max_examples=150)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=8))
def test_the_quick_hint_answers_as_the_expression(parts: list[str]) -> None:
    """The fixed-word scans find HINT exactly where the expression does (outside ASCII too)."""
    text = "".join(parts)
    assert hinted(text) == (HINT.search(text) is not None)
