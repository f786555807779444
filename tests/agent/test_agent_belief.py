"""Belief Correction: predicted teammate skills are scored against the teammate's next completed
skill (from the event stream) and memory is corrected as the mode says."""

from __future__ import annotations

import pytest
from agent_helpers import answer, feed, make_agent, play_script

from envs import Event, EventKind, Item
from proagent.agent.belief import BeliefTracker
from proagent.agent.memory import Memory, MemoryRecord
from proagent.agent.prompts import load_prompt_set
from proagent.domains.overcooked.skills import Skill, SkillBook
from proagent.paths import PROMPTS_DIR
from tests.support.scripted import ScriptedModel

OVERCOOKED_PROMPTS = PROMPTS_DIR / "overcooked"

skill_from_event = SkillBook(("onion", "tomato", "dish", "soup")).skill_of_event  # the event -> skill inverse

ONION, DISH = Item("ingredient", (0,)), Item("dish")
SOUP = Item("soup", (0, 0, 0))

EXPECTED = {
    EventKind.PICKUP_INGREDIENT: (ONION, Skill("pickup", "onion")),
    EventKind.PICKUP_DISH: (DISH, Skill("pickup", "dish")),
    EventKind.PLACE_ON_COUNTER: (DISH, Skill("place_obj_on_counter")),
    EventKind.PICKUP_FROM_COUNTER: (SOUP, Skill("pickup", "soup")),
    EventKind.PUT_IN_POT: (ONION, Skill("put_in_pot")),  # a kitchen of several ingredients: one skill for any
    EventKind.START_COOKING: (SOUP, None),
    EventKind.FILL_DISH: (SOUP, Skill("fill_dish_with_soup")),
    EventKind.DELIVER: (SOUP, Skill("deliver_soup")),
    EventKind.ACTIVATE_INDICATOR: (None, Skill("press_button")),
}


def test_every_event_kind_has_an_expected_skill():
    assert set(EXPECTED) == set(EventKind), "a new EventKind needs a mapping in skills.event_skill and here"


@pytest.mark.parametrize("kind", list(EventKind), ids=lambda k: k.value)
def test_skill_from_event(kind):
    item, skill = EXPECTED[kind]
    event = Event(step=4, agent=1, kind=kind, position=(2, 0), item=item, correct=True if kind == EventKind.DELIVER else None)
    assert skill_from_event(event) == skill


def test_skill_from_event_uses_the_item_name():
    assert skill_from_event(Event(1, 1, EventKind.PICKUP_FROM_COUNTER, (1, 0), ONION)) == Skill("pickup", "onion")
    assert skill_from_event(Event(1, 1, EventKind.PICKUP_FROM_COUNTER, (1, 0), DISH)) == Skill("pickup", "dish")
    tomato = Item("ingredient", (1,))
    assert skill_from_event(Event(1, 1, EventKind.PICKUP_INGREDIENT, (1, 0), tomato)) == Skill("pickup", "tomato")
    assert skill_from_event(Event(1, 1, EventKind.PUT_IN_POT, (2, 0), tomato)) == Skill("put_in_pot")


# ---- the tracker on its own --------------------------------------------------------------------


def _memory(*steps: int) -> Memory:
    memory = Memory(8)
    for step in steps:
        memory.add(MemoryRecord(step=step, state="s", analysis="a", intention="pickup(dish)", belief=None, skill="wait(2)", outcome="done"))
    return memory


@pytest.fixture(scope="module")
def prompts():
    return load_prompt_set("proagent", OVERCOOKED_PROMPTS)


def test_accuracy_counts_hits_over_resolved_predictions(prompts):
    tracker, memory = BeliefTracker("off", prompts), _memory(0, 5, 9)
    assert tracker.accuracy is None
    assert tracker.observe(Skill("pickup", "onion"), 1, memory) is None  # nothing predicted yet
    tracker.predict(0, Skill("pickup", "dish"), "pickup(dish)")
    record = tracker.observe(Skill("pickup", "dish"), 3, memory)
    assert record == {"predicted_at": 0, "resolved_at": 3, "predicted": "pickup(dish)", "actual": "pickup(dish)", "correct": True}
    tracker.predict(5, Skill("deliver_soup"), "deliver_soup()")
    record = tracker.observe(Skill("pickup", "onion"), 7, memory)
    assert record["correct"] is False and record["actual"] == "pickup(onion)"
    assert tracker.observe(Skill("pickup", "onion"), 8, memory) is None  # resolved once only
    assert (tracker.hits, tracker.total, tracker.accuracy) == (1, 2, 0.5)
    assert len(tracker.history) == 2


def test_a_new_prediction_replaces_an_unresolved_one(prompts):
    tracker, memory = BeliefTracker("off", prompts), _memory(0, 5)
    tracker.predict(0, Skill("pickup", "dish"), "pickup(dish)")
    tracker.predict(5, Skill("pickup", "onion"), "pickup(onion)")
    record = tracker.observe(Skill("pickup", "onion"), 6, memory)
    assert record["predicted_at"] == 5 and record["correct"] is True
    assert (tracker.hits, tracker.total) == (1, 1)


def test_a_missing_prediction_text_predicts_nothing(prompts):
    tracker = BeliefTracker("replace", prompts)
    tracker.predict(0, None, None)
    assert tracker.pending is None


def test_an_unparsed_intention_is_a_miss_written_as_text(prompts):
    tracker, memory = BeliefTracker("annotate", prompts), _memory(0)
    tracker.predict(0, None, "fetch onions")
    assert tracker.observe(Skill("pickup", "onion"), 2, memory)["correct"] is False
    assert memory.find_by_step(0).belief == "you predicted fetch onions but your teammate actually did pickup(onion)"


@pytest.mark.parametrize(
    ("mode", "intention", "belief"),
    [
        ("replace", None, "your teammate actually did pickup(onion)"),
        ("annotate", "pickup(dish)", "you predicted pickup(dish) but your teammate actually did pickup(onion)"),
        ("off", "pickup(dish)", None),
    ],
)
def test_modes_change_the_memory_record(prompts, mode, intention, belief):
    tracker, memory = BeliefTracker(mode, prompts), _memory(0, 5)
    before = memory.find_by_step(0).model_copy()
    tracker.predict(5, Skill("pickup", "dish"), "pickup(dish)")
    tracker.observe(Skill("pickup", "onion"), 6, memory)
    corrected = memory.find_by_step(5)
    assert corrected.intention == intention
    assert corrected.belief == belief
    assert corrected.model_dump(exclude={"intention", "belief"}) == _memory(5).last().model_dump(exclude={"intention", "belief"})
    assert memory.find_by_step(0) == before  # only the predicting record changes
    assert (tracker.hits, tracker.total) == (0, 1)


def test_annotate_marks_a_correct_prediction(prompts):
    tracker, memory = BeliefTracker("annotate", prompts), _memory(0)
    tracker.predict(0, Skill("pickup", "onion"), "pickup(onion)")
    tracker.observe(Skill("pickup", "onion"), 1, memory)
    assert memory.last().belief == "you predicted pickup(onion) but your teammate actually did pickup(onion) (correct)"
    assert memory.last().intention == "pickup(dish)"  # annotate never rewrites the record's intention


def test_an_evicted_record_is_not_corrected(prompts):
    tracker, memory = BeliefTracker("replace", prompts), _memory(3)
    tracker.predict(0, Skill("pickup", "onion"), "pickup(onion)")
    assert tracker.observe(Skill("pickup", "onion"), 1, memory)["correct"] is True
    assert memory.last().belief is None


# ---- through the agent -------------------------------------------------------------------------

# Player 0 stands still; player 1 turns right, takes an onion (step 1), turns up, puts it on the
# counter (3,0) (step 3), waits, takes it back (step 5), then waits.
TEAMMATE_SCRIPT = ["SR", "SI", "SU", "SI", "SS", "SI", "SS", "SS"]


@pytest.fixture(scope="module")
def teammate_frames(cramped):
    frames = play_script(cramped, TEAMMATE_SCRIPT)
    kinds = [(e.step, e.agent, e.kind.value) for events in frames.events for e in events]
    assert kinds == [(1, 1, "pickup_ingredient"), (3, 1, "place_on_counter"), (5, 1, "pickup_from_counter")]
    return frames


def _agent_over_frames(cramped, frames, mode: str, prompt: str = "proagent"):
    # decisions at steps 0, 2, 4, 6 (each plan is wait(2)); predictions resolved at 2, 4, 6
    model = ScriptedModel(
        [
            answer("wait(2)", intention="pickup(onion)"),  # hit: pickup at step 1
            answer("wait(2)", intention="pickup(dish)"),  # miss: place at step 3
            answer("wait(2)", intention="pickup(onion)"),  # hit: pickup from counter at step 5
            answer("wait(2)", intention="deliver_soup()"),  # never resolved
        ]
    )
    agent = make_agent(cramped, model, belief=mode, prompt=prompt)
    feed(agent, frames, upto=6)
    return agent, model


@pytest.mark.parametrize("mode", ["replace", "annotate", "off"])
def test_the_agent_scores_its_predictions(cramped, teammate_frames, mode):
    agent, model = _agent_over_frames(cramped, teammate_frames, mode)
    assert len(model.calls) == 4
    assert (agent.belief.hits, agent.belief.total, agent.belief.accuracy) == (2, 3, pytest.approx(2 / 3))
    assert [(h["predicted_at"], h["resolved_at"], h["actual"], h["correct"]) for h in agent.belief.history] == [
        (0, 2, "pickup(onion)", True),
        (2, 4, "place_obj_on_counter()", False),
        (4, 6, "pickup(onion)", True),
    ]
    assert agent.belief.pending.skill == Skill("deliver_soup")
    assert agent.last_belief == agent.belief.history[-1]  # set on the step it resolved
    assert agent.teammates[1 - agent.seat].last_skill == "pickup(onion)"


def test_replace_mode_in_memory_and_prompt(cramped, teammate_frames):
    agent, model = _agent_over_frames(cramped, teammate_frames, "replace")
    records = {r.step: r for r in agent.memory.records}
    assert (records[2].intention, records[2].belief) == (None, "your teammate actually did place_obj_on_counter()")
    assert (records[0].intention, records[0].belief) == (None, "your teammate actually did pickup(onion)")
    assert (records[6].intention, records[6].belief) == ("deliver_soup()", None)  # unresolved
    user = model.calls[3].messages[1].content  # the decision at step 6 sees the corrections
    assert "- step 2: you chose wait(2) (done); your teammate actually did place_obj_on_counter()\n" in user
    assert "you expected your teammate to pickup(dish)" not in user


def test_annotate_mode_in_memory_and_prompt(cramped, teammate_frames):
    agent, model = _agent_over_frames(cramped, teammate_frames, "annotate")
    record = agent.memory.find_by_step(2)
    assert record.intention == "pickup(dish)"
    assert record.belief == "you predicted pickup(dish) but your teammate actually did place_obj_on_counter()"
    user = model.calls[3].messages[1].content
    assert (
        "- step 2: you chose wait(2) (done); you expected your teammate to pickup(dish); "
        "you predicted pickup(dish) but your teammate actually did place_obj_on_counter()\n"
    ) in user


def test_off_mode_leaves_memory_alone(cramped, teammate_frames):
    agent, model = _agent_over_frames(cramped, teammate_frames, "off")
    assert [(r.step, r.intention, r.belief) for r in agent.memory.records] == [
        (0, "pickup(onion)", None),
        (2, "pickup(dish)", None),
        (4, "pickup(onion)", None),
        (6, "deliver_soup()", None),
    ]
    assert "- step 2: you chose wait(2) (done); you expected your teammate to pickup(dish)\n" in model.calls[3].messages[1].content
    assert agent.belief.total == 3


def test_levels_without_intention_predict_nothing(cramped, teammate_frames):
    agent, model = _agent_over_frames(cramped, teammate_frames, "replace", prompt="analysis")
    assert agent.belief.total == 0 and agent.belief.pending is None
    assert all(r.belief is None for r in agent.memory.records)
    assert "intention" not in model.calls[0].structured.json_schema["properties"]


def test_own_events_are_not_the_teammates(cramped):
    """Events of the agent's own seat never resolve a prediction."""
    frames = play_script(cramped, ["US", "LS", "IS", "SS"])  # player 0 takes an onion at step 2
    model = ScriptedModel([answer("wait(4)", intention="pickup(onion)")])
    agent = make_agent(cramped, model)
    feed(agent, frames, upto=3)
    assert agent.belief.total == 0
    assert agent.teammates[1 - agent.seat].last_skill is None
    assert agent.belief.pending is not None


def test_seat_one_reads_player_zero_events(cramped):
    frames = play_script(cramped, ["US", "LS", "IS", "SS"])  # player 0 (the teammate now) takes an onion
    model = ScriptedModel([answer("wait(4)", intention="pickup(onion)")])
    agent = make_agent(cramped, model, seat=1)
    feed(agent, frames, upto=3, seat=1)
    assert (agent.belief.hits, agent.belief.total) == (1, 1)
    assert agent.teammates[1 - agent.seat].last_skill == "pickup(onion)"
    assert agent.teammates[1 - agent.seat].last_action == "interact"
