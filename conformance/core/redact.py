"""Secrets never reach a report: values marked secret and strings that look like credentials."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REDACTED", "redact", "redacted_options", "secret_env_values"]

REDACTED = "[REDACTED]"
PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}"),  # OpenAI / Anthropic style keys
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-~+/]{8,}=*"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
]
KEYED = re.compile(
    r'(?i)("?\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password)"?\s*[:=]\s*"?)([^"\s,}]{6,})'
)
SECRET_NAME = re.compile(r"(?i)(key|token|secret|password|credential)")
# What every pattern above starts with: a string without any is left alone after one scan (a run
# redacts every frame of every case, and almost none holds a credential).
HINT = re.compile(
    r"sk-|(?i:bearer)|gh[pousr]_|AKIA|xox[abprs]-|(?i:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password)"
)


def secret_env_values(env: dict[str, str], marked: list[str]) -> list[str]:
    """Values of --env variables whose names look secret, plus those passed with --secret-env."""
    values = [v for k, v in env.items() if SECRET_NAME.search(k)] + list(marked)
    return sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)


# HINT in pieces: its case-sensitive starts, and its case-insensitive words as a lowered text holds
# them. IGNORECASE also matches these letters outside ASCII to ASCII ones; nothing else lowers to ASCII.
_CASED = (re.compile(r"sk-"), re.compile(r"gh[pousr]_"), re.compile(r"AKIA"), re.compile(r"xox[abprs]-"))
_LOWER_WORDS = (
    "apikey", "api_key", "api-key", "accesstoken", "access_token", "access-token",
    "authtoken", "auth_token", "auth-token", "bearer", "secret", "password",
)  # fmt: skip
_FOLDED_TO_ASCII = "\u0130\u0131\u017f\u212a"  # İ ı ſ K


def hinted(text: str) -> bool:
    """Whether HINT is found in ``text``: the same answer, from a few scans for fixed words instead
    of the regular expression's alternatives tried at every position."""
    if not text.isascii() and any(letter in text for letter in _FOLDED_TO_ASCII):
        return HINT.search(text) is not None
    if any(pattern.search(text) for pattern in _CASED):
        return True
    lowered = text.lower()
    return any(word in lowered for word in _LOWER_WORDS)


def redact_text(text: str, secrets: list[str]) -> str:
    for value in secrets:
        text = text.replace(value, REDACTED)
    if not hinted(text):
        return text
    for pattern in PATTERNS:
        text = pattern.sub(REDACTED, text)
    return KEYED.sub(lambda m: m.group(1) + REDACTED, text)


def redact(value: Any, secrets: list[str]) -> Any:
    """A copy of ``value`` (JSON-like) with every string redacted."""
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


# A secret this short is not looked for inside other option values: it would cut words out of
# paths and commands (a replay must start the agent as the run did). --env and --secret-env values
# are redacted by their names whatever their length.
SHORTEST_SECRET_IN_OPTIONS = 8


def redacted_options(options: dict[str, Any], secrets: list[str]) -> dict[str, Any]:
    """A run's option values (dest -> value) as a report or a replay file keeps them: the value of
    every --secret-env variable and of every --env variable named like a secret is the marker
    (whatever its length), and every other secret value is redacted wherever it appears."""
    secrets = [value for value in secrets if len(value) >= SHORTEST_SECRET_IN_OPTIONS]
    kept = dict(options)
    for dest, always in (("agent_env", False), ("agent_secret_env", True)):
        pairs = kept.get(dest) or []
        kept[dest] = [
            f"{pair.partition('=')[0]}={REDACTED}"
            if always or SECRET_NAME.search(pair.partition("=")[0])
            else pair
            for pair in pairs
        ]
    return redact(kept, secrets)
