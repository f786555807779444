"""The undo-loop check: detection on hand-built histories, and the agent's use of it end to end."""

from __future__ import annotations

import dataclasses

import pytest
from agent_helpers import answer, drive_live, make_agent

from envs import Event, EventKind, Item
from proagent.agent.loops import UndoLoopGuard
from proagent.domains.overcooked.skills import Skill, SkillBook
from tests.support.scripted import ScriptedCall, ScriptedModel

ONION = Item("ingredient", (0,))
DISH = Item("dish")
COUNTER = (0, 2)
OTHER_COUNTER = (4, 2)
PICK, PLACE, WAIT = Skill("pickup", "onion"), Skill("place_obj_on_counter"), Skill("wait", 1)


@pytest.fixture(scope="module")
def first(cramped):
    import jax

    return cramped.symbolic(cramped.jit_reset(jax.random.PRNGKey(0)))


def kitchen(first, step: int, held: Item | None = None, counters: dict | None = None):
    """``first`` at ``step`` with player 0 holding ``held`` and ``counters`` on the counters."""
    me = dataclasses.replace(first.players[0], held=held)
    return dataclasses.replace(first, step=step, players=(me, first.players[1]), counter_items=dict(counters or {}))


def guard_for(first) -> UndoLoopGuard:
    return UndoLoopGuard(SkillBook.for_kitchen(first), seat=0)


def test_picking_up_and_putting_back_is_a_loop_the_second_time(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0, counters={COUNTER: ONION}), PICK)  # take the onion off the counter
    assert guard.blocked(kitchen(first, 2, ONION)) == []
    guard.record(kitchen(first, 2, ONION), PLACE)  # ...and put it back
    loops = guard.blocked(kitchen(first, 4, counters={COUNTER: ONION}))
    assert [loop.skill for loop in loops] == [PICK]
    assert "repeat pickup(onion), which place_obj_on_counter() undid" in loops[0].reason
    assert "as they were at step 0" in loops[0].reason
    assert loops[0].since_step == 0 and loops[0].undone_by == ("place_obj_on_counter()",)  # what the trace records


def test_a_put_back_on_another_counter_or_with_waits_between_is_still_a_loop(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0, counters={COUNTER: ONION}), PICK)
    guard.record(kitchen(first, 2, ONION), WAIT)
    guard.record(kitchen(first, 3, ONION), PLACE)
    loops = guard.blocked(kitchen(first, 5, counters={OTHER_COUNTER: ONION}))
    assert [loop.skill for loop in loops] == [PICK]


def test_the_loop_state_holding_the_object_blocks_putting_it_back(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0, ONION), PLACE)
    guard.record(kitchen(first, 2, counters={COUNTER: ONION}), PICK)
    assert [loop.skill for loop in guard.blocked(kitchen(first, 4, ONION))] == [PLACE]


def test_progress_in_between_is_no_loop(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0, counters={COUNTER: ONION}), PICK)
    guard.record(kitchen(first, 2, ONION), PLACE)
    guard.observe([Event(3, 0, EventKind.PUT_IN_POT, (2, 0), ONION)])
    assert guard.blocked(kitchen(first, 4, counters={COUNTER: ONION})) == []


def test_a_hand_over_the_teammate_took_is_progress_but_its_other_events_are_not(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0), PICK)
    guard.record(kitchen(first, 2, ONION), PLACE)
    guard.observe([Event(4, 1, EventKind.PICKUP_FROM_COUNTER, COUNTER, ONION)])
    assert guard.blocked(kitchen(first, 5)) == []

    looping = guard_for(first)
    looping.record(kitchen(first, 0, counters={COUNTER: ONION}), PICK)
    looping.record(kitchen(first, 2, ONION), PLACE)
    looping.observe([Event(3, 1, EventKind.PUT_IN_POT, (2, 0), ONION)])
    assert [loop.skill for loop in looping.blocked(kitchen(first, 4, counters={COUNTER: ONION}))] == [PICK]


def test_stocking_a_counter_and_waiting_are_no_loops(first):
    guard = guard_for(first)
    guard.record(kitchen(first, 0), PICK)  # from the dispenser
    guard.record(kitchen(first, 2, ONION), PLACE)
    assert guard.blocked(kitchen(first, 4, counters={COUNTER: ONION})) == []  # one more onion on the counters
    waits = guard_for(first)
    for step in range(5):
        waits.record(kitchen(first, step, ONION), WAIT)
    assert waits.blocked(kitchen(first, 5, ONION)) == []


def test_the_window_forgets_old_decisions(first):
    guard = UndoLoopGuard(SkillBook.for_kitchen(first), seat=0, window=2)
    guard.record(kitchen(first, 0, counters={COUNTER: ONION}), PICK)
    guard.record(kitchen(first, 2, ONION), WAIT)
    guard.record(kitchen(first, 3, ONION), PLACE)
    assert guard.blocked(kitchen(first, 5, counters={COUNTER: ONION})) == []


# ---- the agent -----------------------------------------------------------------------------------

def shuffler(call: ScriptedCall) -> str:
    """A degenerate 'model': always moves the onion, never cooks; takes feedback into account."""
    if call.structured is None or call.grounding is None:  # the Verificator's explainer
        return "Do something else."
    rejected = {attempt["skill"] for attempt in call.grounding.feedback}
    enum = call.structured.json_schema["properties"]["plan"]["enum"]
    holding = call.grounding.facts["me"]["held"] is not None
    for plan in ("place_obj_on_counter()", "pickup(onion)", "wait(3)"):
        if plan in enum and plan not in rejected and holding == plan.startswith("place"):
            return answer(plan)
    return answer("wait(3)")


@pytest.mark.parametrize("loop_check", [True, False])
def test_the_agent_counts_loops_and_the_check_breaks_them(cramped, loop_check):
    model = ScriptedModel(respond=shuffler)
    agent = make_agent(cramped, model, loop_check=loop_check, max_replans=2, explain_max_tokens=8)
    log = drive_live(cramped, agent, model, steps=60)
    assert log
    stats = agent.stats
    assert stats.oscillations >= 1
    # every detection is in the trace's decision record: where, which skill, what undid it, blocked or not
    found = [(step.decision["step"], loop) for step in log if step.decision for loop in step.decision["loops"]]
    assert len({at for at, _ in found}) == stats.oscillations
    assert all(loop["since_step"] < at and loop["undone_by"] and loop["blocked"] == loop_check for at, loop in found)
    assert {loop["skill"] for _, loop in found} & {"pickup(onion)", "place_obj_on_counter()"}  # the shuffle itself
    loop_feedback = [c for c in model.calls if "nothing was gained since" in c.messages[-1].content]
    if loop_check:
        assert loop_feedback, "a rejected repeat is fed back to the planner"
        assert stats.rejections >= stats.oscillations
    else:
        assert not loop_feedback and stats.rejections == 0
        # unchecked, the shuffler keeps looping: far more detections than with the check
        assert stats.oscillations >= 5
