"""tools.cputime's summary: CPU seconds per test, added up by tier and by test function."""

from __future__ import annotations

from tools.cputime import summary


def test_the_summary_adds_up_by_tier_and_by_function() -> None:
    rows = [
        {"id": "tests/targets/mcp/test_mcp.py::test_broken[a]", "cpu": 2.0, "wall": 9.0},
        {"id": "tests/targets/mcp/test_mcp.py::test_broken[b]", "cpu": 1.0, "wall": 5.0},
        {"id": "tests/e2e/test_docs.py::test_site", "cpu": 4.0, "wall": 30.0},
        {"id": "tests/unit/test_x.py::test_y", "cpu": 0.5, "wall": 0.5},
    ]
    text = summary(rows, top=2)
    assert text.splitlines()[0].startswith("4 tests, 8 CPU seconds")
    assert "    4.0  tests/e2e" in text and "    3.0  tests/targets/mcp" in text
    # the two costliest functions only, the parametrised one counted once with both runs
    assert "    3.0    2   1.50  tests/targets/mcp/test_mcp.py::test_broken" in text
    assert "test_y" not in text
