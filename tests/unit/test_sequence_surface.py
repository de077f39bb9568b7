"""What the ACP sequences take from an agent's own answers to build their alphabet (the surface
beside the lifecycle), and the scenarios each part of it gets."""

from __future__ import annotations

from conformance.targets.acp.machine import twin_scenarios
from conformance.targets.acp.sequences import MAX_OFFERED, Surface, surface_of


def test_modes_and_select_config_values_are_read_from_a_session_new_result() -> None:
    result = {
        "sessionId": "s",
        "modes": {
            "currentModeId": "ask",
            "availableModes": [{"id": "ask"}, {"id": "code"}, {"name": "no id"}],
        },
        "configOptions": [
            {"id": "effort", "type": "select", "options": [{"value": "low"}, {"value": "high"}]},
            {"id": "fast", "type": "boolean", "currentValue": False},  # not a select: not drawn
            {"id": "a=b", "type": "select", "options": [{"value": "x"}]},  # would not split back
        ],
    }
    assert surface_of(result) == (("ask", "code"), ("effort=low", "effort=high"))


def test_hostile_answers_give_a_bounded_surface_or_none() -> None:
    for junk in (
        None,
        [],
        "modes",
        {"modes": "x", "configOptions": {"id": 1}},
        {"modes": {"availableModes": 3}},
    ):
        assert surface_of(junk) == ((), ())
    many = {"modes": {"availableModes": [{"id": f"m{i}"} for i in range(1000)]}}
    assert len(surface_of(many)[0]) == MAX_OFFERED
    odd = {"modes": {"availableModes": [{"id": "x" * 10_000}, {"id": "\n"}, {"id": 5}, {"id": "ok"}]}}
    assert surface_of(odd)[0] == ("ok",)


def test_each_part_of_the_surface_gets_its_scenarios_and_nothing_offered_adds_none() -> None:
    plain = twin_scenarios(None)
    assert twin_scenarios(None, surface=Surface(), can=lambda name: True) == plain
    offered = Surface(modes=("ask", "code"), configs=("effort=high",), delete=True, extensions=("_x",))
    found = twin_scenarios(None, surface=offered, can=lambda name: name in ("resume", "list"))
    ops = [[(s.op, s.during) for s in steps] for steps in found[len(plain) :]]
    assert [o for o in ops[1] if o[0] == "mode"] == [("mode", "code")]  # the last mode offered
    assert any(op[-1] == ("reopen", "") for op in ops)
    assert any(op[-1] == ("delete", "") and op[1][0] == "burst" for op in ops)
    assert any(op[-1] == ("list", "") and ("ext", "_x") in op for op in ops)


def test_the_unstable_session_methods_get_scenarios_that_ask_about_what_they_made() -> None:
    plain = twin_scenarios(None)
    offered = Surface(fork=True, archive=True, title=True)
    found = twin_scenarios(None, surface=offered, can=lambda name: name in ("close", "resume", "list"))
    ops = [[s.op for s in steps] for steps in found[len(plain) :]]
    # the fork is asked about inside its own step, of a live session and of one let go
    assert ["new", "prompt", "status", "fork"] in ops
    assert ["new", "prompt", "close", "fork"] in ops
    # archived, asked about, unarchived, asked again, then resumed (after the unarchive only)
    archived = next(o for o in ops if "archive" in o)
    assert archived.index("status") > archived.index("archive")
    assert archived.index("reopen") > archived.index("unarchive")
    # retitled while let go, with status on both sides
    assert ["new", "close", "status", "title", "status"] in ops
    assert Surface(fork=True).describe() == "session/fork"
