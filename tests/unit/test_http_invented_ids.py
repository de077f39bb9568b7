"""The ids the HTTP cases invent (an unknown session, a wrong agent), judged on data: they take
the shape of the service's own ids, learned from several of them, so a service that validates
its ids answers them 404 (they do not exist), not 422 (malformed)."""

from __future__ import annotations

import random
import re
import uuid

from conformance.targets.http.calibration import shaped_like


def is_uuid4(value: str) -> bool:
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        return False
    return parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_uuid4_ids_keep_their_version_and_variant() -> None:
    rng = random.Random(3)
    for make in (lambda: uuid.uuid4().hex, lambda: str(uuid.uuid4())):
        models = [make() for _ in range(4)]
        for _ in range(200):
            made = shaped_like(models, rng)
            assert is_uuid4(made) and made not in models and len(made) == len(models[0])
        # From one id alone, the UUID layout is recognised.
        assert all(is_uuid4(shaped_like(models[0], rng)) for _ in range(200))


def test_a_prefix_every_id_shares_stays() -> None:
    rng = random.Random(4)
    models = [f"sess_{uuid.uuid4().hex[:20]}" for _ in range(4)]
    for _ in range(50):
        made = shaped_like(models, rng)
        assert re.fullmatch(r"sess_[0-9a-f]{20}", made) and made not in models
    assert re.fullmatch(r"sess_[0-9a-f]{20}", shaped_like(models[0], rng))  # a word prefix, from one id


def test_each_position_draws_only_from_what_the_ids_show_there() -> None:
    rng = random.Random(5)
    models = ["a" * 24, "b" * 24, "c" * 24]  # from one of them alone: any lower-case letter
    for _ in range(50):
        made = shaped_like(models, rng)
        assert set(made) <= set("abc") and made not in models


def test_ids_too_alike_to_draw_from_keep_their_classes() -> None:
    rng = random.Random(6)
    counters = [f"session-{n:012d}" for n in range(1, 5)]  # only the last digit varies
    for _ in range(50):
        made = shaped_like(counters, rng)
        assert re.fullmatch(r"session-\d{12}", made) and made not in counters


def test_an_invented_id_is_none_of_the_ids_to_avoid() -> None:
    class Replay(random.Random):
        """Draws that would make one of the real ids first."""

        def __init__(self, first: str) -> None:
            super().__init__(0)
            self.queue = list(first)

        def choice(self, seq):
            return self.queue.pop(0) if self.queue else super().choice(seq)

    models = [uuid.uuid4().hex for _ in range(4)]
    made = shaped_like(models, Replay(models[1]))
    assert made not in models and is_uuid4(made)
    avoided = shaped_like(models, Replay(models[0][:-1] + "0"), avoid={models[0][:-1] + "0"})
    assert avoided != models[0][:-1] + "0"


def test_short_or_unusual_ids_give_a_long_named_id() -> None:
    rng = random.Random(7)
    assert shaped_like(["s1", "s2"], rng).startswith("conformance-missing-")
    assert shaped_like(["a b c d e f g h i j"], rng).startswith("conformance-missing-")
    assert shaped_like([], rng, fallback_prefix="conformance-agent").startswith("conformance-agent-missing-")
