"""State grounding: the facts of hand-built cramped_room kitchens, and their wording in the prompt.

cramped_room (x right, y down):

    y0  X X P X X        pot (2,0); counters (0,0) (1,0) (3,0) (4,0) (0,2) (4,2) (0,3) (2,3) (4,3)
    y1  O . . . O        onion dispensers (0,1) (4,1)
    y2  X . . . X        floor (1,1) (2,1) (3,1) (1,2) (2,2) (3,2)
    y3  X D X S X        dishes (1,3), serving spot (3,3)

Player 0 starts at (1,2), player 1 at (3,1), both facing up.
"""

from __future__ import annotations

import pytest
from agent_helpers import answer, feed, make_agent, overcooked_knowledge, play_script

from proagent.agent.planner import Planner
from proagent.agent.prompts import load_prompt_set
from proagent.domains.overcooked.grounding import ground
from proagent.domains.overcooked.skills import SkillBook
from proagent.paths import PROMPTS_DIR
from proagent.world.types import TeammateView
from tests.support.scripted import ScriptedModel

OVERCOOKED_PROMPTS = PROMPTS_DIR / "overcooked"

# Player 0: up to (1,1), turn left, take an onion, right to (2,1), turn up, onion into the pot,
# left to (1,1), take a second onion, turn up, put it on the counter (1,0).
# Player 1: turn right to face the right dispenser, take an onion, then stay.
ONION_IN_POT_AND_ON_COUNTER = ["US", "LR", "II", "RS", "US", "IS", "LS", "IS", "US", "IS"]
# ... then two more onions into the pot: the pot starts cooking at the third (step 19).
FILL_POT = ["LS", "IS", "RS", "US", "IS"] * 2


@pytest.fixture(scope="module")
def frames(cramped):
    return play_script(cramped, ONION_IN_POT_AND_ON_COUNTER + FILL_POT + ["SS"] * 19)


@pytest.fixture(scope="module")
def book(frames):
    return SkillBook.for_kitchen(frames.kitchens[0])


@pytest.fixture(scope="module")
def planner(book):
    return Planner(load_prompt_set("proagent", OVERCOOKED_PROMPTS), overcooked_knowledge("cramped_room", 0), book, 0, "json")


def test_the_script_builds_the_intended_kitchen(frames):
    """Guard for the hand-computed numbers below: the script did what its comment says."""
    kinds = [(e.step, e.agent, e.kind.value) for step_events in frames.events[:10] for e in step_events]
    assert kinds == [
        (2, 0, "pickup_ingredient"),
        (2, 1, "pickup_ingredient"),
        (5, 0, "put_in_pot"),
        (7, 0, "pickup_ingredient"),
        (9, 0, "place_on_counter"),
    ]


def test_facts_of_a_pot_with_one_onion_and_an_onion_on_a_counter(frames, book):
    kitchen = frames.kitchens[10]
    facts = ground(kitchen, 0, book, TeammateView(1, "pickup(onion)", "interact"), 0.0)
    assert facts["step"] == 10
    assert facts["horizon"] == 400
    assert facts["steps_left"] == 390
    assert facts["score"] == 0.0
    assert facts["recipe"] == ["onion", "onion", "onion"]
    assert facts["me"] == {"index": 0, "position": [1, 1], "facing": "up", "held": None}
    assert facts["teammate"] == {
        "index": 1,
        "position": [3, 1],
        "facing": "right",
        "held": "onion",
        "last_skill": "pickup(onion)",
        "last_action": "interact",
    }
    assert facts["pots"] == [
        {"position": [2, 0], "ingredients": ["onion"], "num_ingredients": 1, "status": "filling", "ticks_left": 0}
    ]
    assert facts["counters"] == [{"position": [1, 0], "item": "onion"}]
    # BFS moves (teammate ignored) to a floor cell next to the nearest target, from (1,1):
    # onion: (1,1) is next to the dispenser (0,1) and the counter onion (1,0) -> 0
    # dish (1,3): stand (1,2) -> 1; pot (2,0): stand (2,1) -> 1
    # serving (3,3): stand (3,2), (1,1)->(1,2)->(2,2)->(3,2) -> 3
    # empty counter: (1,0) is taken, (0,2) from (1,2) -> 1
    assert facts["distances"] == {"onion": 0, "dish": 1, "pot": 1, "serving spot": 3, "empty counter": 1}
    assert facts["kitchen_ascii"] == "X XoP1X X\nO ^   >oO\nX       X\nX D X S X"


def test_facts_from_the_other_seat(frames, book):
    kitchen = frames.kitchens[10]
    facts = ground(kitchen, 1, book, TeammateView(1, None, None), 20.0)
    assert facts["me"] == {"index": 1, "position": [3, 1], "facing": "right", "held": "onion"}
    assert facts["teammate"]["position"] == [1, 1]
    assert facts["teammate"]["last_skill"] is None
    assert facts["score"] == 20.0
    # from (3,1): onion dispenser (4,1) -> 0; dish stand (1,2) -> 3; pot stand (2,1) -> 1;
    # serving stand (3,2) -> 1; empty counter (3,0) from (3,1) -> 0
    assert facts["distances"] == {"onion": 0, "dish": 3, "pot": 1, "serving spot": 1, "empty counter": 0}


def test_facts_of_a_cooking_and_a_ready_pot(frames, book):
    cooking = frames.kitchens[20]  # the third onion went in at step 19
    pot = ground(cooking, 0, book, TeammateView(1, None, None), 0.0)["pots"][0]
    assert pot == {
        "position": [2, 0],
        "ingredients": ["onion", "onion", "onion"],
        "num_ingredients": 3,
        "status": "cooking",
        "ticks_left": 19,
    }
    later = ground(frames.kitchens[25], 0, book, TeammateView(1, None, None), 0.0)["pots"][0]
    assert (later["status"], later["ticks_left"]) == ("cooking", 14)
    ready = next(k for k in frames.kitchens if k.pots[0].ready)
    pot = ground(ready, 0, book, TeammateView(1, None, None), 0.0)["pots"][0]
    assert pot["status"] == "ready"
    assert pot["num_ingredients"] == 3


def test_facts_of_the_reset_state(frames, book):
    facts = ground(frames.kitchens[0], 0, book, TeammateView(1, None, None), 0.0)
    assert facts["me"] == {"index": 0, "position": [1, 2], "facing": "up", "held": None}
    assert facts["pots"][0]["status"] == "empty"
    assert facts["counters"] == []
    # from (1,2): onion stand (1,1) -> 1; dish (1,3) from (1,2) -> 0; pot stand (2,1) -> 2;
    # serving stand (3,2) -> 2; empty counter (0,2) from (1,2) -> 0
    assert facts["distances"] == {"onion": 1, "dish": 0, "pot": 2, "serving spot": 2, "empty counter": 0}


def test_the_user_prompt_states_the_facts(frames, planner, book):
    facts = ground(frames.kitchens[10], 0, book, TeammateView(1, "pickup(onion)", "interact"), 0.0)
    user = planner.messages(facts, [], [])[1].content
    for line in [
        "Step 10 of 400 (390 left). Score so far: 0. Recipe: onion, onion, onion.",
        "X XoP1X X\nO ^   >oO\nX       X\nX D X S X",
        "You (player 0) are at [1, 1] facing up, holding nothing.",
        "Your teammate (player 1) is at [3, 1] facing right, holding onion; its last completed skill was pickup(onion).",
        "Pot at [2, 0]: 1 of 3 ingredients (onion), not cooking.",
        "Objects on counters: onion at [1, 0].",
        "Steps from you to the nearest: onion 0, dish 1, pot 1, serving spot 3, empty counter 1.",
    ]:
        assert line in user, f"missing {line!r} in:\n{user}"
    assert "Recent history" not in user  # no memory given


def test_the_user_prompt_words_pot_states(frames, planner, book):
    def user_at(kitchen):
        return planner.messages(ground(kitchen, 0, book, TeammateView(1, None, None), 0.0), [], [])[1].content

    assert "Pot at [2, 0]: empty." in user_at(frames.kitchens[0])
    assert "The counters are empty." in user_at(frames.kitchens[0])
    assert "its last completed skill" not in user_at(frames.kitchens[0])
    assert "Pot at [2, 0]: cooking, ready in 19 steps." in user_at(frames.kitchens[20])
    ready = next(k for k in frames.kitchens if k.pots[0].ready)
    assert "Pot at [2, 0]: soup ready." in user_at(ready)


def test_the_agent_infers_the_teammate_last_skill_from_its_events(cramped, frames):
    """Only the teammate's events count: player 0's own place_on_counter at step 9 does not."""
    model = ScriptedModel([answer("wait(10)"), answer("wait(10)")])
    agent = make_agent(cramped, model)
    feed(agent, frames, upto=10)
    assert len(model.calls) == 2
    assert agent.teammates[1 - agent.seat].last_skill == "pickup(onion)"
    assert agent.teammates[1 - agent.seat].last_action == "stay"
    user = model.calls[1].messages[1].content
    assert "Step 10 of 400" in user
    assert "holding onion; its last completed skill was pickup(onion)." in user
    assert "Pot at [2, 0]: 1 of 3 ingredients (onion), not cooking." in user
