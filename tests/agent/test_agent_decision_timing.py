"""The LLM is asked only when the running skill has ended, never while it runs.

A scripted sequence of plans on cramped_room, player 0 the agent, player 1 standing still at
(3,1). Each skill's end is checked with the test's own oracle (what the agent holds, or the steps
a wait has lasted), independent of the SkillBook's done-tests.
"""

from __future__ import annotations

import pytest
from agent_helpers import answer, drive_live, make_agent

from tests.support.scripted import ScriptedModel

PLANS = [
    "pickup(onion)",  # 0: up to (1,1), turn left, take          -> holding onion at 3
    "put_onion_in_pot()",  # 3: right to (2,1), turn up, put      -> empty at 6
    "pickup(onion)",  # 6: left to (1,1) (now facing left), take    -> holding at 8
    "place_obj_on_counter()",  # 8: turn up, place on (1,0)        -> empty at 10
    "pickup(onion)",  # 10: already facing the counter onion, take  -> holding at 11
    "put_onion_in_pot()",  # 11                                     -> empty at 14
    "pickup(onion)",  # 14                                          -> holding at 16
    "put_onion_in_pot()",  # 16: the third onion, cooking starts    -> empty at 19
    "wait(3)",  # 19                                                -> 22
    "pickup(dish)",  # 22                                           -> holding dish at 26
    "fill_dish_with_soup()",  # 26: waits at the pot until the soup is ready -> soup at 39
    "deliver_soup()",  # 39                                         -> empty at 43
]
EXPECTED_CALL_STEPS = [0, 3, 6, 8, 10, 11, 14, 16, 19, 22, 26, 39, 43, 63]
STEPS = 70


def _ended(plan: str, kitchen, started: int) -> bool:
    held = kitchen.players[0].held
    if plan.startswith("pickup("):
        return held is not None and held.name == plan[len("pickup(") : -1]
    if plan in ("put_onion_in_pot()", "place_obj_on_counter()", "deliver_soup()"):
        return held is None
    if plan == "fill_dish_with_soup()":
        return held is not None and held.kind == "soup"
    if plan.startswith("wait("):
        return kitchen.step - started >= int(plan[len("wait(") : -1])
    raise AssertionError(plan)


@pytest.fixture(scope="module")
def played(cramped):
    model = ScriptedModel([answer(p) for p in PLANS], respond=lambda call: answer("wait(20)"))
    agent = make_agent(cramped, model)
    log = drive_live(cramped, agent, model, STEPS)
    return agent, model, log


def test_calls_happen_exactly_when_skills_end(played):
    agent, model, log = played
    call_steps = [s.kitchen.step for s in log if s.calls_after > s.calls_before]
    assert call_steps == EXPECTED_CALL_STEPS
    assert all(s.calls_after - s.calls_before in (0, 1) for s in log)  # one call per decision
    assert len(model.calls) == len(EXPECTED_CALL_STEPS) == agent.stats.llm_calls == agent.stats.decisions


def test_no_call_while_a_skill_runs_and_one_as_soon_as_it_ends(played):
    _, _, log = played
    plans = PLANS + ["wait(20)"] * 2
    starts = [s.kitchen.step for s in log if s.calls_after > s.calls_before]
    for i, (start, plan) in enumerate(zip(starts, plans)):
        end = starts[i + 1] if i + 1 < len(starts) else STEPS
        for step in range(start + 1, end):
            assert not _ended(plan, log[step].kitchen, start), f"{plan} had ended at {step}, but the LLM was asked at {end}"
        if i + 1 < len(starts):
            assert _ended(plan, log[end].kitchen, start), f"asked at {end} although {plan} had not ended"


def test_each_call_sees_the_state_it_was_made_in(played):
    _, model, log = played
    steps = [s.kitchen.step for s in log if s.calls_after > s.calls_before]
    for call, step in zip(model.calls, steps):
        assert f"Step {step} of 400" in call.messages[1].content


def test_every_skill_was_done_and_a_soup_delivered(played):
    agent, _, log = played
    assert [r.skill for r in agent.memory.records] == PLANS + ["wait(20)", "wait(20)"]
    assert [r.outcome for r in agent.memory.records] == ["done"] * 13 + ["running"]
    assert agent.stats.skills_done == 13 and agent.stats.skills_failed == 0
    assert agent.stats.skill_durations == [3, 3, 2, 2, 1, 3, 2, 3, 3, 4, 13, 4, 20]
    pot = log[19].kitchen.pots[0]
    assert pot.cooking and len(pot.ingredients) == 3
    # the soup went out at step 42 (the deliver call at 39 + 3 moves), nobody else could
    assert log[43].kitchen.players[0].held is None
    assert log[42].kitchen.players[0].held.kind == "soup"
