"""Hypothesis strategies for session/status params and for malformed JSON-RPC frames.

Written directly (hypothesis-jsonschema does not work with current Hypothesis). Each drawn
input carries what the spec expects of the answer, so the fuzz cases stay small.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.core.tracing import TRACE_CONTEXT

__all__ = ["FrameInput", "ParamsInput", "malformed_frames", "status_params"]

LIVE = "$live"  # replaced by a live session id when the input is sent


@dataclass(frozen=True)
class ParamsInput:
    params: Any
    expect: str  # "status" (a result or -32002), "invalid" (-32602), "either" (-32602 or a status)
    request_id: Any = 1  # an id ACP's RequestId allows: an integer within ±(2^53−1), or a string

    def describe(self) -> str:
        text = json.dumps(self.params, ensure_ascii=True)
        shown = text if len(text) <= 300 else f"{text[:300]}… ({len(text)} chars)"
        return f"{shown} (request id {json.dumps(self.request_id, ensure_ascii=True)})"

    def to_json(self) -> dict[str, Any]:
        """What a replay file records of it (``from_json`` reads it back as it was drawn)."""
        return {"params": self.params, "expect": self.expect, "requestId": self.request_id}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ParamsInput:
        return cls(data["params"], str(data["expect"]), data.get("requestId", 1))


# Request ids a client of ACP may send (RequestId: an int64 or a string; RFC 8259 promises
# interoperable integers only within ±(2^53−1), so the suite stays inside that range here).
SAFE_INTEGER = 2**53 - 1
request_ids = st.one_of(
    st.integers(0, 1000),
    st.integers(-SAFE_INTEGER, SAFE_INTEGER),
    st.sampled_from([0, -1, SAFE_INTEGER, -SAFE_INTEGER]),
    st.text(max_size=30),
    st.sampled_from(["", "0", "1", "req-1", "ü", "\u2028", 'a"b']),
)


def _strings() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=40),
        st.text(st.characters(max_codepoint=0x1F), min_size=1, max_size=20),  # control characters
        # Non-ASCII, emoji, RTL; never a lone surrogate (Hypothesis draws them once a codepoint range
        # is given): no UTF-8 text carries one, so a request with one is not a well-formed request.
        st.text(st.characters(min_codepoint=0x80, exclude_categories=("Cs",)), min_size=1, max_size=20),
        st.sampled_from(["", " ", "sess_", "../../etc/passwd", "%s%n", "null", "\u202e", "\ufeff"]),
        st.integers(1, 1 << 20).map(lambda n: "s" * n),  # up to 1 MB
    )


def _nested(depth: int) -> Any:
    value: Any = {"leaf": True}
    for i in range(depth):
        value = {f"k{i}": value}
    return value


_json_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=10),
)
_non_string = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(_json_scalar, max_size=3),
    st.dictionaries(st.text(max_size=5), _json_scalar, max_size=3),
)
_meta = st.one_of(
    st.none(),
    st.dictionaries(
        st.one_of(st.text(max_size=10), st.sampled_from(sorted(TRACE_CONTEXT))), _json_scalar, max_size=4
    ),
    st.integers(1, 200).map(_nested),  # deep _meta
    st.just(TRACE_CONTEXT),
)
_extra = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(lambda k: k not in ("sessionId", "_meta")),
    _json_scalar,
    max_size=3,
)


@st.composite
def status_params(draw: st.DrawFn) -> ParamsInput:
    """A well-formed session/status request (any id ACP allows) with any params."""
    request_id = draw(request_ids)
    kind = draw(
        st.sampled_from(["valid-live", "valid-unknown", "missing", "non-string", "not-object", "bad-meta"])
    )
    if kind == "not-object":
        return ParamsInput(
            draw(st.one_of(st.lists(_json_scalar, max_size=3), st.text(max_size=10), st.integers())),
            "invalid",
            request_id,
        )
    params: dict[str, Any] = draw(_extra)
    if kind == "valid-live":
        params["sessionId"] = LIVE
    elif kind == "valid-unknown":
        params["sessionId"] = draw(_strings())
    elif kind == "non-string":
        params["sessionId"] = draw(_non_string)
    elif kind == "bad-meta":
        params["sessionId"] = LIVE
        params["_meta"] = draw(
            st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2))
        )
        return ParamsInput(params, "either", request_id)  # _meta is deserialized with default-on-error
    if kind in ("valid-live", "valid-unknown") and draw(st.booleans()):
        params["_meta"] = draw(_meta)
    expect = {"missing": "invalid", "non-string": "invalid"}.get(kind, "status")
    return ParamsInput(params, expect, request_id)


# Tried by every run first, whatever the seed and the budget (and whatever order the drawn
# examples come in): one input of each kind the strategy draws, so a bug that one kind shows is
# found at every run, not when the draw is lucky. An id far longer than any the agent made (10 kB;
# servers that cap a buffer die here) and one of control characters, both unknown; the live
# session by an integer and by a string request id; a deep _meta; the invalid kinds; and the empty
# values the schema allows (an empty `_meta` object, and `null`); W3C trace context in `_meta`.
EXPLICIT_STATUS_PARAMS = (
    ParamsInput({"sessionId": "s" * 10_000}, "status", 1),
    ParamsInput({"sessionId": "\x00\x01\x1f\x7f"}, "status", "req-1"),
    ParamsInput({"sessionId": LIVE}, "status", SAFE_INTEGER),
    ParamsInput({"sessionId": LIVE}, "status", "req-2"),
    ParamsInput({"sessionId": LIVE, "_meta": _nested(40)}, "status", 2),
    ParamsInput({"sessionId": 1}, "invalid", 3),
    ParamsInput({"sessionId": None}, "invalid", 4),
    ParamsInput({}, "invalid", 5),
    ParamsInput(["sess"], "invalid", 6),
    ParamsInput({"sessionId": LIVE, "_meta": {}}, "status", 7),
    ParamsInput({"sessionId": LIVE, "_meta": None}, "status", 8),
    # W3C trace context, on the live session and on an id the agent does not know: a tracing layer
    # must not change the answer (-32002 with the id, for the unknown one).
    ParamsInput({"sessionId": LIVE, "_meta": TRACE_CONTEXT}, "status", 9),
    ParamsInput({"sessionId": "conformance-unknown-traced", "_meta": TRACE_CONTEXT}, "status", 10),
)


@dataclass(frozen=True)
class FrameInput:
    kind: str
    line: bytes
    response_id: Any  # the id a response must carry
    response: str  # "required" (a request), "error" (SHOULD answer with code), "none" (must not answer)
    code: int | None = None  # the JSON-RPC error code that applies
    # Other ids a response may carry without breaking the envelope: null for an Invalid Request
    # whose id the agent chose not to read (JSON-RPC's own example answers so), or the frame's
    # id when a decoder replaces invalid UTF-8 and reads a request. Codes are judged by
    # fuzz.frames.error-codes, not by survival.
    alt_ids: tuple[Any, ...] = ()

    def describe(self) -> str:
        text = repr(self.line[:200])
        return f"{self.kind}: {text}{'…' if len(self.line) > 200 else ''} ({len(self.line)} bytes)"

    def to_json(self) -> dict[str, Any]:
        """What a replay file records of it: the line's bytes in base64 (they may not be UTF-8)."""
        return {
            "kind": self.kind,
            "line": base64.b64encode(self.line).decode("ascii"),
            "responseId": self.response_id,
            "response": self.response,
            "code": self.code,
            "altIds": list(self.alt_ids),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FrameInput:
        return cls(
            kind=str(data["kind"]),
            line=base64.b64decode(data["line"], validate=True),
            response_id=data.get("responseId"),
            response=str(data["response"]),
            code=data.get("code"),
            alt_ids=tuple(data.get("altIds") or ()),
        )


def _request(frame_id: Any, **extra: Any) -> bytes:
    body = {
        "jsonrpc": "2.0",
        "id": frame_id,
        "method": "session/status",
        "params": {"sessionId": LIVE},
        **extra,
    }
    return json.dumps(body).encode()


def _not_json(draw: st.DrawFn, kind: str) -> FrameInput:
    one_line = st.text(st.characters(blacklist_characters="\n\r"), min_size=1, max_size=50)
    text = draw(one_line.filter(lambda t: t.strip() and not _is_json(t)))
    return FrameInput(kind, text.encode("utf-8", "surrogatepass"), None, "error", -32700)


def _bad_utf8(draw: st.DrawFn, kind: str) -> FrameInput:
    return FrameInput(
        kind, b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', None, "error", -32700, alt_ids=(1,)
    )


def _wrong_jsonrpc(draw: st.DrawFn, kind: str) -> FrameInput:
    version = draw(st.sampled_from(["1.0", "2", 2.0, None]))
    frame_id = draw(st.integers(10**6, 10**7))
    return FrameInput(kind, _request(frame_id, jsonrpc=version), frame_id, "error", -32600, alt_ids=(None,))


def _odd_id(draw: st.DrawFn, kind: str) -> FrameInput:
    """Ids ACP clients do not send: null, fractions, beyond ±(2^53−1)."""
    frame_id = draw(
        st.one_of(
            st.none(),
            st.floats(0.5, 1e6).filter(lambda f: not f.is_integer()),
            st.integers(2**53, 2**70),
            st.integers(-(2**70), -(2**53)),
        )
    )
    return FrameInput(kind, _request(frame_id), frame_id, "required")


def _invalid_id(draw: st.DrawFn, kind: str) -> FrameInput:
    frame_id = draw(
        st.one_of(
            st.booleans(),
            st.lists(st.integers(), max_size=2),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        )
    )
    return FrameInput(kind, _request(frame_id), None, "error", -32600)


def _batch(draw: st.DrawFn, kind: str) -> FrameInput:
    items = draw(st.integers(0, 2))
    line = json.dumps([json.loads(_request(9_000_000 + i)) for i in range(items)]).encode()
    return FrameInput(kind, line, None, "error", -32600)


def _empty(draw: st.DrawFn, kind: str) -> FrameInput:
    return FrameInput(kind, draw(st.sampled_from([b"", b" ", b"\t", b"\r"])), None, "none")


def _notification(draw: st.DrawFn, kind: str) -> FrameInput:
    method = draw(st.sampled_from(["session/cancel", "session/status", "_unknown/notification", "no/such"]))
    line = json.dumps({"jsonrpc": "2.0", "method": method, "params": {"sessionId": LIVE}}).encode()
    return FrameInput(kind, line, None, "none")


def _long_line(draw: st.DrawFn, kind: str) -> FrameInput:
    size = draw(st.sampled_from([100_000, 1_000_000, 3_000_000]))
    line = b'{"jsonrpc":"2.0","id":5,"method":"session/status","params":{"sessionId":"' + b"x" * size
    return FrameInput(kind, line, None, "error", -32700)


# Each kind of malformed frame and how to draw one, in the order the strategy samples them.
_FRAME_KINDS: dict[str, Callable[[st.DrawFn, str], FrameInput]] = {
    "not-json": _not_json,
    "bad-utf8": _bad_utf8,
    "wrong-jsonrpc": _wrong_jsonrpc,
    "odd-id": _odd_id,
    "invalid-id": _invalid_id,
    "batch": _batch,
    "empty": _empty,
    "notification": _notification,
    "long-line": _long_line,
}


@st.composite
def malformed_frames(draw: st.DrawFn) -> FrameInput:
    kind = draw(st.sampled_from(list(_FRAME_KINDS)))
    return _FRAME_KINDS[kind](draw, kind)


# One frame of each kind the strategy draws, tried first by both frame fuzzers (see
# EXPLICIT_STATUS_PARAMS): a finding on one kind is then found at every run.
EXPLICIT_FRAMES = (
    FrameInput("not-json", b"{not json", None, "error", -32700),
    FrameInput(
        "bad-utf8", b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', None, "error", -32700, alt_ids=(1,)
    ),
    FrameInput(
        "wrong-jsonrpc", _request(1_000_001, jsonrpc="1.0"), 1_000_001, "error", -32600, alt_ids=(None,)
    ),
    FrameInput("odd-id", _request(None), None, "required"),
    FrameInput("odd-id", _request(2**53 + 1), 2**53 + 1, "required"),  # the first id a double cannot hold
    FrameInput("invalid-id", _request(True), None, "error", -32600),
    FrameInput("batch", b"[]", None, "error", -32600),
    FrameInput("batch", json.dumps([json.loads(_request(9_000_000))]).encode(), None, "error", -32600),
    FrameInput("empty", b"", None, "none"),
    FrameInput(
        "notification",
        json.dumps({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": LIVE}}).encode(),
        None,
        "none",
    ),
    FrameInput(
        "long-line",
        b'{"jsonrpc":"2.0","id":5,"method":"session/status","params":{"sessionId":"' + b"x" * 100_000,
        None,
        "error",
        -32700,
    ),
)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
