"""Observation-honest prompts: with a view radius the LLM sees only what its chef may know.

grounded_coord_simple (x right, y down), player 0 starts at (2,2), player 1 at (5,2), both up:

    y0  X X c X X X X X      c = ingredient-2 piles (2,0) (2,4)
    y1  X . . X D . . O      D dishes (4,1) (4,3), O onions (7,1), T tomatoes (7,3)
    y2  R . 0 L P 1 . S      R recipe indicator (0,2), L button indicator (3,2), P pot (4,2), S serving (7,2)
    y3  X . . X D . . T
    y4  X X c X X X X X

With radius 2 player 0 sees the recipe indicator and player 1 does not; the chefs are 3 apart.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace

import jax
import jax.numpy as jnp
import pytest

import envs
from envs import Action, Dynamics
from envs.overcooked.events import Event, EventKind
from envs.overcooked.symbolic import Item
from proagent.agent.config import AgentConfig
from proagent.agent.planner import Planner
from proagent.agent.proagent import ProAgent
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.contract import Observation
from proagent.domains.overcooked import OvercookedDomain
from proagent.domains.overcooked.grounding import ground
from proagent.domains.overcooked.perception import KitchenView, Perceiver
from proagent.domains.overcooked.skills import SkillBook
from proagent.world.types import TeammateView
from tests.support.scripted import ScriptedModel

DOMAIN = OvercookedDomain()
LAYOUT = "grounded_coord_simple"
LETTERS = {"U": Action.UP, "D": Action.DOWN, "R": Action.RIGHT, "L": Action.LEFT, "S": Action.STAY, "I": Action.INTERACT}


@pytest.fixture(scope="module")
def env() -> envs.OvercookedEnv:
    return envs.make(LAYOUT, Dynamics(agent_view_size=2))


@pytest.fixture(scope="module")
def first(env) -> envs.KitchenState:
    return env.symbolic(env.reset(jax.random.PRNGKey(0)))


@pytest.fixture(scope="module")
def book(first) -> SkillBook:
    return SkillBook.for_kitchen(first)


def play(env: envs.OvercookedEnv, script: list[str]) -> tuple[list[envs.KitchenState], list[list[Event]]]:
    """Kitchens 0..n and the events leading to each (events[t] reach kitchens[t]; events[0] = [])."""
    key = jax.random.PRNGKey(0)
    state = env.reset(key)
    kitchens, events = [env.symbolic(state)], [[]]
    for t, entry in enumerate(script):
        actions = tuple(int(LETTERS[c]) for c in entry)
        state = env.jit_step(jax.random.fold_in(key, t), state, jnp.asarray(actions, dtype=jnp.int32)).state
        after = env.symbolic(state)
        events.append(env.events(kitchens[-1], actions, after))
        kitchens.append(after)
    return kitchens, events


def user_prompt(env, book, facts: dict, seat: int, prompt: str = "proagent") -> str:
    knowledge = load_knowledge(DOMAIN.knowledge_root, env.name, seat, DOMAIN.knowledge_facts(env))
    planner = Planner(load_prompt_set(prompt, DOMAIN.prompts_root), knowledge, book, seat, "json")
    return planner.messages(facts, [], [])[-1].content  # the state (demos, if any, come before it)


def seen_by(perceiver: Perceiver, kitchens, events, upto: int) -> KitchenView:
    view = None
    for t in range(upto + 1):
        view = perceiver.observe(kitchens[t], events[t])
    assert isinstance(view, KitchenView)
    return view


def recipe_words(text: str) -> str:
    return re.search(r"Recipe: ([^.]*)\.", text).group(1)


def names(kitchen: envs.KitchenState) -> str:
    return ", ".join(kitchen.recipe_names)


# ---- (a) the hidden recipe ----


@pytest.mark.parametrize("prompt", ["proagent", "compact"])
def test_the_planner_prompt_of_an_agent_that_cannot_see_the_indicator_has_no_recipe(env, first, prompt):
    """The real ProAgent loop: seat 1 asks its (scripted) model; every message it sent is checked."""
    model = ScriptedModel([json.dumps({"analysis": "ok", "intention": "wait(1)", "plan": "wait(1)"})] * 5)
    agent = ProAgent(AgentConfig(prompt=prompt), model, DOMAIN, env)
    agent.reset(1, 0, Observation(1, first, None, None, 0.0))
    asyncio.run(agent.act(Observation(1, first, None, None, 0.0), []))
    # The last message is the step's state (the layout's few-shot demos before it are fixed text).
    text = "\n".join(call.messages[-1].content for call in model.calls)
    assert model.calls
    assert names(first) not in text
    assert recipe_words(text).startswith("unknown")


def test_the_agent_that_sees_the_indicator_gets_the_recipe(env, first):
    model = ScriptedModel([json.dumps({"analysis": "ok", "intention": "wait(1)", "plan": "wait(1)"})] * 5)
    agent = ProAgent(AgentConfig(), model, DOMAIN, env)
    agent.reset(0, 0, Observation(0, first, None, None, 0.0))
    asyncio.run(agent.act(Observation(0, first, None, None, 0.0), []))
    text = model.calls[0].messages[-1].content
    assert f"Recipe: {names(first)} (seen on the indicator at step 0)." in text


def test_a_partial_view_never_carries_the_true_recipe(env, first):
    view = Perceiver.for_env(env, 1).observe(first, ())
    assert view.kitchen.recipe == () and view.recipe is None


# ---- (b) the teammate ----


def test_the_teammate_is_in_the_prompt_only_while_in_view(env, book):
    # Radius 3: the chefs (3 apart) see each other at the start. Player 0 steps left (out of view),
    # player 1 steps up unseen, player 0 comes back and sees it again.
    kitchens, events = play(env, ["LS", "SU", "RS"])
    assert [k.players[1].position for k in kitchens] == [(5, 2), (5, 2), (5, 1), (5, 1)]
    perceiver = Perceiver(0, 3)
    prompts = []
    for t in range(4):
        view = perceiver.observe(kitchens[t], events[t])
        prompts.append(user_prompt(env, book, ground(view, 0, book, TeammateView(1, None, "up"), 0.0), 0))
    assert "Your teammate (player 1) is at [5, 2] facing up" in prompts[0]
    assert "is out of view; last seen at step 0 at [5, 2]" in prompts[2]
    assert "[5, 1]" not in prompts[2] and "teammate (player 1) is at" not in prompts[2]
    assert "Your teammate (player 1) is at [5, 1] facing up" in prompts[3]
    # The kitchen picture: no chef arrow for the unseen teammate.
    ascii_rows = prompts[2].split("? = out of view):\n")[1].split("\nYou (player")[0].splitlines()
    assert sum(row.count(a) for row in ascii_rows for a in "^v<>") == 1


def test_facts_of_an_unseen_teammate_hide_its_action_and_unwitnessed_skills(env, first, book):
    far = replace(first, players=(first.players[0], replace(first.players[1], position=(6, 2))))
    view = Perceiver(0, 2).observe(replace(far, step=3), [Event(2, 1, EventKind.PICKUP_DISH, (4, 3), Item("dish"))])
    facts = ground(view, 0, book, TeammateView(1, "pickup(dish)", "interact"), 0.0)
    assert facts["teammate"]["in_view"] is False
    assert facts["teammate"]["last_skill"] is None and facts["teammate"]["last_action"] is None


# ---- (c) memory ----


def test_a_pot_seen_then_out_of_view_is_remembered_with_its_step(env, book):
    # Player 1 fetches an onion, puts it in the pot (4,2) at step 7, then steps right: with radius 1
    # the pot is out of view from (6,2).
    script = ["SU", "SR", "SR", "SI", "SL", "SD", "SL", "SI", "SR"]
    kitchens, events = play(env, script)
    assert kitchens[8].pot_at[(4, 2)].ingredients == (0,)
    view = seen_by(Perceiver(1, 1), kitchens, events, 9)
    text = user_prompt(env, book, ground(view, 1, book, TeammateView(0, None, None), 0.0), 1)
    assert "Pot at [4, 2]: 1 of 3 ingredients (onion), not cooking (out of view; as of step 8)." in text
    assert "P?" in text


def test_counter_items_are_remembered_and_updated_when_seen_again(first, book):
    onion = Item("ingredient", (0,))
    me, other = first.players[1], first.players[0]

    def at(step: int, pos, counters) -> envs.KitchenState:
        return replace(first, step=step, players=(other, replace(me, position=pos)), counter_items=counters)

    perceiver = Perceiver(1, 1)
    perceiver.observe(first, ())
    assert perceiver.observe(at(1, (6, 1), {(6, 0): onion}), ()).counters[(6, 0)].step == 1  # in view
    view = perceiver.observe(at(2, (5, 3), {(6, 0): onion}), ())  # (6,0) is 3 rows up: out of view
    assert view.counters[(6, 0)].step == 1 and not view.in_view((6, 0))
    facts = ground(view, 1, book, TeammateView(0, None, None), 0.0)
    assert {"position": [6, 0], "item": "onion", "in_view": False, "seen_step": 1} in facts["counters"]
    assert "X?" in facts["kitchen_ascii"] and "Xo" not in facts["kitchen_ascii"]
    # Gone while unseen: still remembered; seen bare again: forgotten.
    assert (6, 0) in perceiver.observe(at(3, (5, 3), {}), ()).counters
    assert (6, 0) not in perceiver.observe(at(4, (5, 1), {}), ()).counters


# ---- (d) how the recipe becomes known ----


def test_a_pressed_button_indicator_in_view_reveals_the_recipe(env, book):
    kitchens, events = play(env, ["RS", "IS", "SS"])  # player 0 turns to the button (3,2) and presses it
    assert any(e.kind == EventKind.ACTIVATE_INDICATOR for e in events[2])
    perceiver = Perceiver.for_env(env, 1)
    assert perceiver.observe(kitchens[0], ()).recipe is None
    assert perceiver.observe(kitchens[1], events[1]).recipe is None
    view = perceiver.observe(kitchens[2], events[2])
    assert view.recipe.how == "button" and view.recipe.step == 2
    text = user_prompt(env, book, ground(view, 1, book, TeammateView(0, None, None), 0.0), 1)
    assert f"Recipe: {names(kitchens[2])} (seen on the lit button indicator at step 2)." in text
    assert re.search(r"Button indicator at \[3, 2\]: lit, showing the recipe for \d+ more steps\.\n", text)
    # The light goes out: the prompt keeps when it was last seen lit (a press would only show it again).
    dark = replace(kitchens[2], step=3, indicators=tuple(replace(i, active_ticks=0) for i in kitchens[2].indicators))
    later = user_prompt(env, book, ground(perceiver.observe(dark, ()), 1, book, TeammateView(0, None, None), 0.0), 1)
    assert "Button indicator at [3, 2]: off; you last saw it lit at step 2." in later
    # A correct delivery (the score rises, seen or not) may draw a new recipe: that light is history.
    served = replace(dark, step=4)
    view = perceiver.observe(served, [_deliver(0, tuple(served.recipe), True, 4)])
    assert view.buttons_lit == {} and view.last_served == 4
    after = user_prompt(env, book, ground(view, 1, book, TeammateView(0, None, None), 20.0), 1)
    assert "Button indicator at [3, 2]: off; you have not seen it lit since the soup served at step 4." in after
    # From (6,2) the lit button (3,2) is out of view: no recipe, and the view shows it off.
    far = replace(kitchens[2], players=(kitchens[2].players[0], replace(kitchens[2].players[1], position=(6, 2))))
    blind = Perceiver(1, 2)
    blind.observe(kitchens[0], ())
    unseen = blind.observe(far, events[2])
    assert unseen.recipe is None and all(i.active_ticks == 0 for i in unseen.kitchen.indicators)
    assert unseen.buttons_lit == {}
    text = user_prompt(env, book, ground(unseen, 1, book, TeammateView(0, None, None), 0.0), 1)
    assert "Button indicator at [3, 2]: out of view; you have not seen it lit." in text


def _deliver(agent: int, soup: tuple[int, ...], correct: bool, step: int) -> Event:
    return Event(step, agent, EventKind.DELIVER, (7, 2), Item("soup", soup), correct)


def test_an_own_correct_delivery_reveals_the_recipe_and_a_wrong_one_does_not(env, first, book):
    tomatoes = (1, 1, 1)
    later = replace(first, step=6)
    perceiver = Perceiver(1, 1)  # player 1 at (5,2) sees no indicator
    perceiver.observe(first, ())
    assert perceiver.observe(later, [_deliver(1, (0, 0, 1), False, 5)]).recipe is None
    assert perceiver.observe(later, [_deliver(0, tomatoes, True, 5)]).recipe is None  # the teammate's: no signal
    view = perceiver.observe(later, [_deliver(1, tomatoes, True, 5)])
    assert view.recipe.ingredients == tomatoes and view.recipe.how == "own_delivery" and view.recipe.stale_since is None
    text = user_prompt(env, book, ground(view, 1, book, TeammateView(0, None, None), 0.0), 1)
    assert "Recipe: tomato, tomato, tomato (learned from your correct delivery at step 5)." in text
    assert names(first) not in text  # the true recipe (onions) is never read


def test_an_own_unpaid_delivery_of_one_of_two_recipes_reveals_the_other(env, first, book):
    assert sorted(first.layout.recipes) == [(0, 0, 0), (1, 1, 1)]
    perceiver = Perceiver(1, 1, new_recipe_on_delivery=True)  # player 1 at (5,2) sees no indicator
    perceiver.observe(first, ())
    assert perceiver.observe(replace(first, step=4), [_deliver(0, (0, 0, 0), False, 3)]).recipe is None  # not its own
    view = perceiver.observe(replace(first, step=6), [_deliver(1, (0, 0, 0), False, 5)])
    assert view.recipe.ingredients == (1, 1, 1) and view.recipe.how == "ruled_out" and view.recipe.stale_since is None
    text = user_prompt(env, book, ground(view, 1, book, TeammateView(0, None, None), -20.0), 1)
    assert "Recipe: tomato, tomato, tomato (the only possible recipe left after your unpaid delivery at step 5)." in text
    # A correct delivery draws a new recipe: stale, and the earlier elimination no longer counts.
    after = perceiver.observe(replace(first, step=9), [_deliver(0, (1, 1, 1), True, 8)])
    assert after.recipe.stale_since == 8
    again = perceiver.observe(replace(first, step=12), [_deliver(1, (1, 1, 1), False, 11)])
    assert again.recipe.ingredients == (0, 0, 0) and again.recipe.step == 11


def test_with_new_recipes_a_known_delivery_makes_the_recipe_stale(env, first, book):
    perceiver = Perceiver(0, 2, new_recipe_on_delivery=True)
    assert perceiver.observe(first, ()).recipe.how == "indicator"  # player 0 sees the indicator
    away = replace(first, step=9, players=(replace(first.players[0], position=(5, 2)), first.players[1]))
    view = perceiver.observe(away, [_deliver(1, (0, 0, 0), True, 8)])  # the score rises: a new recipe may be drawn
    assert view.recipe.stale_since == 8
    text = user_prompt(env, book, ground(view, 0, book, TeammateView(1, None, None), 20.0), 0)
    assert recipe_words(text).startswith("unknown now; it was onion, onion, onion until step 8")
    assert perceiver.observe(replace(first, step=10), ()).recipe.stale_since is None  # the indicator again
    own = Perceiver(1, 1, new_recipe_on_delivery=True)
    own.observe(first, ())
    assert own.observe(replace(first, step=4), [_deliver(1, (1, 1, 1), True, 3)]).recipe.stale_since == 3


def test_a_delivery_signal_with_a_seen_soup_reveals_the_recipe(first):
    # Player 1 watches player 0 (moved next to the serving spot) deliver a tomato soup.
    mate = replace(first.players[0], position=(6, 2), held=Item("soup", (1, 1, 1)))
    before = replace(first, step=4, players=(mate, first.players[1]))
    after = replace(first, step=5, players=(replace(mate, held=None), first.players[1]))
    for signal, known in ((False, False), (True, True)):
        perceiver = Perceiver(1, 2, delivery_signal=signal)
        perceiver.observe(first, ())
        perceiver.observe(before, ())
        view = perceiver.observe(after, [_deliver(0, (1, 1, 1), True, 4)])
        assert (view.recipe is not None) == known
    assert view.recipe.how == "delivery_signal" and view.recipe.ingredients == (1, 1, 1)


# ---- (e) full view: unchanged ----


@pytest.mark.parametrize("layout", ["cramped_room", LAYOUT])
def test_full_view_facts_are_the_true_state_facts(layout):
    env = envs.make(layout)
    kitchen = env.symbolic(env.reset(jax.random.PRNGKey(0)))
    book = SkillBook.for_kitchen(kitchen)
    perceiver = DOMAIN.capabilities.perception.perceiver(env, 0)
    assert perceiver.observe(kitchen, ()) is kitchen
    mate = TeammateView(1, "pickup(onion)", "stay")
    assert ground(perceiver.observe(kitchen, ()), 0, book, mate, 3.0) == ground(kitchen, 0, book, mate, 3.0)
    model = ScriptedModel()
    agent = ProAgent(AgentConfig(), model, DOMAIN, env)
    agent.reset(0, 0, Observation(0, kitchen, None, None, 0.0))
    assert agent.view is kitchen


# ---- (d) what the Verificator and belief correction may read ----


def test_the_verificator_checks_the_pot_the_agent_remembers_not_the_true_one(env, book):
    # Player 1 saw the pot (4,2) with one onion at step 8, then stepped out of its radius-1 view.
    # Out of view the pot is filled up; player 1 (holding an onion) still believes it has room, so
    # its Verificator accepts put_in_pot() where a check of the true state would say "full".
    script = ["SU", "SR", "SR", "SI", "SL", "SD", "SL", "SI", "SR"]
    kitchens, events = play(env, script)
    perceiver = Perceiver(1, 1)
    seen_by(perceiver, kitchens, events, 8)
    onion = Item("ingredient", (0,))
    truth = kitchens[9]
    full = tuple(replace(p, ingredients=(0, 0, 0)) if p.position == (4, 2) else p for p in truth.pots)
    chefs = tuple(replace(p, held=onion) if p.index == 1 else p for p in truth.players)
    truth = replace(truth, pots=full, players=chefs)
    perceiver.observe(truth, events[9])
    believed = perceiver.believed_state()
    put = book.parse("put_in_pot()")
    assert book.failures(truth, 1, put)  # the truth: no pot with room
    assert book.failures(believed, 1, put) == []  # the belief: the pot it saw had room
    assert [p.index for p in believed.players] == [0, 1] and believed.players[1].held == onion
    assert believed.pot_at[(4, 2)].ingredients == (0,)


def test_the_controller_steers_by_what_the_agent_believes(env, first):
    """The motor layer of the real agent gets the believed kitchen, never the true one."""
    model = ScriptedModel([json.dumps({"analysis": "ok", "intention": "wait(1)", "plan": "wait(1)"})] * 5)
    agent = ProAgent(AgentConfig(), model, DOMAIN, env)
    agent.reset(1, 0, Observation(1, first, None, None, 0.0))
    seen: list[envs.KitchenState] = []
    real_act = agent.controller.act
    agent.controller.act = lambda kitchen, skill: seen.append(kitchen) or real_act(kitchen, skill)
    asyncio.run(agent.act(Observation(1, first, None, None, 0.0), []))
    (kitchen,) = seen
    assert kitchen == agent.perceiver.believed_state() and kitchen.recipe == () and first.recipe != ()


def test_belief_correction_reads_only_witnessed_teammate_events(env, first):
    far = replace(first, players=(first.players[0], replace(first.players[1], position=(6, 2))), step=3)
    mine = Event(3, 0, EventKind.PICKUP_INGREDIENT, (0, 2), Item("ingredient", (0,)))
    theirs = Event(3, 1, EventKind.PICKUP_DISH, (4, 3), Item("dish"))
    perceiver = Perceiver(0, 2)
    perceiver.observe(far, [mine, theirs])
    assert perceiver.witnessed() == (mine,)  # the teammate was out of view before and after
    near = replace(far, step=4)  # the teammate at (4,1): within radius 2 of player 0 at (2,2)
    near = replace(near, players=(first.players[0], replace(first.players[1], position=(4, 1))))
    perceiver.observe(near, [mine, theirs])
    assert perceiver.witnessed() == (mine, theirs)
    full = DOMAIN.capabilities.perception.perceiver(envs.make("cramped_room"), 0)
    full.observe(first, [theirs])
    assert full.witnessed() == (theirs,) and full.believed_state() is first


def test_memory_lines_say_where_an_unseen_teammate_was_last_seen(env, first, book):
    far = replace(first, players=(first.players[0], replace(first.players[1], position=(6, 2))), step=3)
    perceiver = Perceiver(0, 2)
    perceiver.observe(first, ())  # step 0: both chefs on their start cells, 3 apart: not in view
    unseen = DOMAIN.memory_summary(ground(perceiver.observe(far, ()), 0, book, TeammateView(1, None, None), 0.0))
    assert "teammate" in unseen and "[6, 2]" not in unseen and "(6, 2)" not in unseen
    assert unseen.endswith(("teammate not seen yet", "(step 0)"))
    full = DOMAIN.memory_summary(ground(first, 0, book, TeammateView(1, None, None), 0.0))
    assert full == f"you at {list(first.players[0].position)} holding nothing; teammate at {list(first.players[1].position)} holding nothing"
