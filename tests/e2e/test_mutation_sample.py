"""CI's mutation sample (issue 16): a fixed handful of the references' mutants that a full campaign
saw the suite kill (mutation/ci-sample.toml). Each is applied to a copy of the references and
judged by the campaign's own test command; one that survives means the suite lost sensitivity."""

from __future__ import annotations

import os

import pytest

if os.environ.get("CI"):
    import cosmic_ray  # noqa: F401 - CI installs the mutation extra: a missing package is a failure
else:
    pytest.importorskip("cosmic_ray", reason="Cosmic Ray comes with the [mutation] extra")

from tools.mutation.sample import Sampled, fate, load_sample


@pytest.mark.slow
@pytest.mark.parametrize("sampled", load_sample(), ids=lambda s: s.id.split("/")[-1])
def test_a_sampled_mutant_is_still_killed(sampled: Sampled) -> None:
    said: list[str] = []
    assert fate(sampled, said.append) == "killed", "\n".join(said)
