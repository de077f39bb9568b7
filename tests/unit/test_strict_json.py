"""What an agent sends is JSON as RFC 8259 defines it, or not JSON: Python's parser also takes
NaN and Infinity, which clients refuse."""

import httpx
import pytest

from conformance.core.validation import strict_loads
from conformance.targets.http.target import StatusProbe


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_the_constants_python_accepts_are_not_json(constant: str) -> None:
    with pytest.raises(ValueError, match=constant):
        strict_loads(f'{{"idle_for": {constant}}}')


def test_json_numbers_in_every_form_are_read() -> None:
    assert strict_loads('{"a": 1e3, "b": -0.5, "c": 12}') == {"a": 1000.0, "b": -0.5, "c": 12}


def test_an_http_status_body_with_nan_is_not_json_and_says_why() -> None:
    body = b'{"session_id": "s", "status": "idle", "idle_for": NaN}'
    probe = StatusProbe(httpx.Response(200, content=body, headers={"content-type": "application/json"}))
    assert probe.body is None and probe.status is None
    assert "NaN is not valid JSON" in probe.not_json
    fine = StatusProbe(httpx.Response(200, content=b'{"session_id": "s", "status": "idle"}'))
    assert fine.status == "idle" and fine.not_json == ""
