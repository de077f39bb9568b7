"""A fuzz finding's replay file holds its shrunk input: every input the fuzzers draw survives the
trip through the file's JSON unchanged, so `replay` checks exactly what failed."""

from __future__ import annotations

import json

from hypothesis import given, settings

from conformance.targets.acp.strategies import (
    EXPLICIT_FRAMES,
    EXPLICIT_STATUS_PARAMS,
    FrameInput,
    ParamsInput,
    malformed_frames,
    status_params,
)


def through_a_file(value: dict) -> dict:
    return json.loads(json.dumps(value, ensure_ascii=False).encode("utf-8").decode("utf-8"))


@settings(max_examples=100, deadline=None)
@given(status_params())
def test_drawn_status_params_survive_a_replay_file(drawn: ParamsInput) -> None:
    assert ParamsInput.from_json(through_a_file(drawn.to_json())) == drawn


@settings(max_examples=100, deadline=None)
@given(malformed_frames())
def test_drawn_frames_survive_a_replay_file(drawn: FrameInput) -> None:
    assert FrameInput.from_json(through_a_file(drawn.to_json())) == drawn


def test_the_explicit_inputs_survive_a_replay_file() -> None:
    for params in EXPLICIT_STATUS_PARAMS:
        assert ParamsInput.from_json(through_a_file(params.to_json())) == params
    for frame in EXPLICIT_FRAMES:
        assert FrameInput.from_json(through_a_file(frame.to_json())) == frame


@settings(max_examples=1000, deadline=None)
@given(status_params())
def test_every_generated_status_request_is_utf8(drawn: ParamsInput) -> None:
    """fuzz.status.params sends well-formed requests only: a lone surrogate has no UTF-8 form, and
    a conforming agent answers its bytes with a parse error (id null), which the case would have
    failed as a wrong id (found by a campaign against the reference)."""
    for value in (drawn.params, drawn.request_id):
        json.dumps(value, ensure_ascii=False).encode("utf-8")
