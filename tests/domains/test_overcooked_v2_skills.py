"""OvercookedV2 skills: put_in_pot() for any ingredient, press_button(), go_to_indicator(), the
event -> skill inverse, recipe_fit and the V2 knowledge texts (the loopback responder's V2 cook is
tested in test_overcooked_loopback.py).

Classic (onion-only) kitchens keep exactly their skill list and wording; the V2 ones get the new
skills only where their kitchen has the thing (several ingredients, a button, an indicator)."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from functools import cache

import jax
import jax.numpy as jnp
import pytest

import envs
from envs import Action, Event, EventKind, Item
from envs.overcooked.layouts import get_layout, ingredient_name
from envs.overcooked.presets import COORDINATION_LAYOUTS
from envs.overcooked.symbolic import KitchenMap
from proagent.agent.prompts import load_knowledge
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.domain import OvercookedDomain
from proagent.domains.overcooked.skills import Skill, SkillBook, event_skill, kitchen_features, recipe_fit
from proagent.paths import KNOWLEDGE_DIR
from proagent.world.types import SkillParseError

CLASSIC = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit")
V2 = COORDINATION_LAYOUTS
CLASSIC_SIGNATURES = [
    "pickup(obj)",
    "put_onion_in_pot()",
    "fill_dish_with_soup()",
    "deliver_soup()",
    "place_obj_on_counter()",
    "wait(n)",
]
TOMATO, ONION = Item("ingredient", (1,)), Item("ingredient", (0,))


@cache
def _env(name: str) -> envs.OvercookedEnv:
    return envs.make(name)  # classic dynamics: fixed starts, full view (deterministic)


def _book(name: str) -> SkillBook:
    return SkillBook.for_kitchen(_env(name).symbolic(_env(name).jit_reset(jax.random.PRNGKey(0))))


# ---- the skill list per kitchen --------------------------------------------------------------


@pytest.mark.parametrize("name", CLASSIC)
def test_classic_kitchens_keep_their_skills_and_words(name):
    book = _book(name)
    assert book.signatures() == CLASSIC_SIGNATURES
    put = book.records["put_onion_in_pot"]  # the skills.toml record as this kitchen words it
    assert put.description.startswith("Carry the onion you hold") and put.description.endswith("at 3 onions.")
    assert [r.fail for r in put.requires] == [
        "you are not holding an onion (you hold {held})",
        "no reachable pot can take an onion (all are full, cooking or ready)",
    ]
    assert book.put_skill == Skill("put_onion_in_pot")


@pytest.mark.parametrize("name", V2)
def test_v2_kitchens_get_put_in_pot_and_their_indicator_skills(name):
    book = _book(name)
    kmap = KitchenMap(get_layout(name))
    sigs = book.signatures()
    assert "put_in_pot()" in sigs and "put_onion_in_pot()" not in sigs
    assert ("press_button()" in sigs) == bool(kmap.button_indicators)
    assert ("go_to_indicator()" in sigs) == bool(kmap.button_indicators or kmap.recipe_indicators)
    assert sigs[-1] == "wait(n)"
    assert "tomato" in book.items and book.put_skill == Skill("put_in_pot")
    assert book.parse("put_in_pot()") == Skill("put_in_pot")
    assert book.parse("pickup(tomato)") == Skill("pickup", "tomato")
    # classic-minded code (the scripted partners) still finds the pot skill by its onion name,
    # but the planner may not name it there
    assert book.spec("put_onion_in_pot") is book.spec("put_in_pot")
    with pytest.raises(SkillParseError):
        book.parse("put_onion_in_pot()")


def test_features_follow_the_kitchen():
    assert kitchen_features(KitchenMap(get_layout("cramped_room"))) == frozenset()
    assert kitchen_features(KitchenMap(get_layout("grounded_coord_simple"))) == {"button", "indicator"}
    assert kitchen_features(KitchenMap(get_layout("demo_cook_wide"))) == {"indicator"}


# ---- scripted skills through the controller and the env --------------------------------------


def _play(name: str, plans: dict[int, list[Skill]], steps: int = 40):
    """Each seat runs its skills in order through its controller (the others stay); returns the
    kitchens, the events and which skills finished."""
    env = _env(name)
    state = env.jit_reset(jax.random.PRNGKey(0))
    kitchen = env.symbolic(state)
    book = SkillBook.for_kitchen(kitchen)
    controllers = {seat: Controller(book, seat, seed=seat) for seat in plans}
    queues = {seat: list(skills) for seat, skills in plans.items()}
    started = {seat: 0 for seat in plans}
    done: list[tuple[int, Skill]] = []
    kitchens, events = [kitchen], []
    for step in range(steps):
        joint = [Action.STAY] * env.num_agents
        for seat, queue in queues.items():
            while queue and book.is_done(kitchen, seat, queue[0], step - started[seat]):
                done.append((seat, queue.pop(0)))
                started[seat] = step
            if queue:
                assert not book.failures(kitchen, seat, queue[0]), (queue[0], book.failures(kitchen, seat, queue[0]))
                joint[seat] = controllers[seat].act(kitchen, queue[0])
        if not any(queues.values()):
            break
        state = env.jit_step(jax.random.PRNGKey(step), state, jnp.array([int(a) for a in joint])).state
        after = env.symbolic(state)
        events.extend(envs.extract_events(kitchen, joint, after))
        kitchens.append(after)
        kitchen = after
    return book, kitchens, events, done


def test_the_controller_puts_a_tomato_in_the_pot():
    # grounded_coord_simple: seat 1 starts in the right room, with the tomato dispenser and the pot
    book, kitchens, events, done = _play("grounded_coord_simple", {1: [Skill("pickup", "tomato"), Skill("put_in_pot")]})
    assert done == [(1, Skill("pickup", "tomato")), (1, Skill("put_in_pot"))]
    puts = [e for e in events if e.kind == EventKind.PUT_IN_POT]
    assert [(e.agent, e.item, e.position) for e in puts] == [(1, TOMATO, (4, 2))]
    assert kitchens[-1].pot_at[(4, 2)].ingredients == (1,)
    assert book.skill_of_event(puts[0]) == Skill("put_in_pot")


def test_the_controller_presses_the_button():
    # grounded_coord_simple: seat 0 starts in the left room, next to the button [3, 2]
    book, kitchens, events, done = _play("grounded_coord_simple", {0: [Skill("press_button")]}, steps=10)
    assert done == [(0, Skill("press_button"))]
    (press,) = [e for e in events if e.kind == EventKind.ACTIVATE_INDICATOR]
    assert (press.agent, press.position) == (0, (3, 2))
    assert book.skill_of_event(press) == Skill("press_button")
    assert any(i.kind == "button" and i.active_ticks > 0 for i in kitchens[-1].indicators)


def test_go_to_indicator_walks_next_to_it_without_pressing():
    # test_time_wide: seat 1 starts in the bottom room; the recipe indicator is [2, 6]
    _, kitchens, events, done = _play("test_time_wide", {1: [Skill("go_to_indicator")]}, steps=10)
    assert done == [(1, Skill("go_to_indicator"))]
    assert kitchens[-1].players[1].position == (2, 5)
    assert not events


def test_button_checks_and_done_test():
    env = _env("grounded_coord_simple")
    kitchen = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    book = SkillBook.for_kitchen(kitchen)
    assert book.failures(kitchen, 0, Skill("press_button")) == []
    assert book.failures(kitchen, 1, Skill("press_button")) == [
        "no button recipe indicator can be reached from where you are"
    ]
    assert book.failures(kitchen, 1, Skill("go_to_indicator")) == [
        "no recipe indicator can be reached from where you are"
    ]
    assert book.failures(kitchen, 1, Skill("put_in_pot")) == ["you are not holding an ingredient (you hold nothing)"]
    assert not book.is_done(kitchen, 0, Skill("press_button"), 0)  # not lit yet


def test_no_check_reads_the_true_recipe():
    """Rejections never depend on the hidden recipe: a tomato may go into any accepting pot."""
    book, kitchens, _, _ = _play("grounded_coord_simple", {1: [Skill("pickup", "tomato")]})
    kitchen = kitchens[-1]
    for recipe in ((0, 0, 0), (1, 1, 1)):
        assert book.failures(replace(kitchen, recipe=recipe), 1, Skill("put_in_pot")) == []


# ---- the event -> skill inverse ----------------------------------------------------------------


def test_skill_of_event_per_kitchen():
    onion_put = Event(1, 1, EventKind.PUT_IN_POT, (2, 0), ONION)
    tomato_put = Event(1, 1, EventKind.PUT_IN_POT, (2, 0), TOMATO)
    press = Event(1, 1, EventKind.ACTIVATE_INDICATOR, (3, 2))
    classic, v2 = _book("cramped_room"), _book("demo_cook_simple")
    assert classic.skill_of_event(onion_put) == Skill("put_onion_in_pot")
    assert v2.skill_of_event(onion_put) == v2.skill_of_event(tomato_put) == Skill("put_in_pot")
    # without a kitchen (re-scoring a trace): onion puts keep their classic name
    assert event_skill(onion_put) == Skill("put_onion_in_pot")
    assert event_skill(tomato_put) == Skill("put_in_pot")
    assert event_skill(press) == v2.skill_of_event(press) == Skill("press_button")
    assert v2.skill_of_event(Event(1, 1, EventKind.PICKUP_INGREDIENT, (0, 3), TOMATO)) == Skill("pickup", "tomato")


# ---- recipe_fit ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pot", "held", "recipe", "fits"),
    [
        ((), "tomato", None, True),  # no recipe known: no judgement
        (("onion",), "tomato", None, True),
        ((), "onion", ("onion", "onion", "onion"), True),
        (("onion", "onion"), "onion", ("onion", "onion", "onion"), True),
        ((), "tomato", ("onion", "onion", "onion"), False),
        (("onion",), "tomato", ("onion", "tomato", "tomato"), True),
        (("tomato", "tomato"), "tomato", ("onion", "tomato", "tomato"), False),  # one tomato too many
        (("tomato",), "onion", ("onion", "onion", "onion"), False),  # the pot is already wrong
    ],
)
def test_recipe_fit(pot, held, recipe, fits):
    reason = recipe_fit(pot, held, recipe)
    assert (reason is None) == fits
    if reason is not None:
        assert "\n" not in reason and reason


# ---- knowledge ----------------------------------------------------------------------------------


def _v2_facts(env) -> dict:
    """The facts the V2 branch of task.md / rules.md reads (domain.knowledge_facts to add them)."""
    kmap = KitchenMap(env.layout)
    return {
        **OvercookedDomain().knowledge_facts(env),
        "ingredients": [ingredient_name(i) for i in sorted(kmap.ingredient_dispensers)],
        "recipes": [[ingredient_name(i) for i in r] for r in env.layout.recipes],
        "recipe_indicator": bool(kmap.recipe_indicators),
        "button_indicator": bool(kmap.button_indicators),
        "wrong_soup_penalty": env.dynamics.wrong_soup_penalty,
        "new_recipe_on_delivery": env.dynamics.new_recipe_on_delivery,
        "view_radius": env.dynamics.agent_view_size,
        "delivery_feedback": env.dynamics.indicate_successful_delivery,
    }


def test_classic_knowledge_reads_as_before():
    env = _env("cramped_room")
    k = load_knowledge(KNOWLEDGE_DIR / "overcooked", "cramped_room", 0, OvercookedDomain().knowledge_facts(env))
    assert (
        k.task.startswith("You are a chef in the cooperative cooking game Overcooked")
        and "three onions go into a pot" in k.task
    )
    assert k.rules.startswith("Rules:\n- You hold at most one object: an onion, an empty dish, or a dish of soup.")
    # an onion-only kitchen reads the classic text even with the V2 facts
    assert load_knowledge(KNOWLEDGE_DIR / "overcooked", "cramped_room", 0, _v2_facts(env)).task == k.task


@pytest.mark.parametrize("name", V2)
def test_v2_knowledge(name):
    env = OvercookedDomain().make_env_with(name, 400, {})
    k = load_knowledge(KNOWLEDGE_DIR / "overcooked", name, 0, _v2_facts(env))
    assert "onion soups" not in k.task and "onion, onion, onion or tomato, tomato, tomato" in k.task
    assert "3 ingredients" in k.rules and ("(L)" in k.rules) == ("press_button()" in _book(name).signatures())
    data = tomllib.loads((KNOWLEDGE_DIR / "overcooked" / "layouts" / f"{name}.toml").read_text())
    assert data["layout"] == name and data["notes"]
    book = _book(name)
    for seat in ("0", "1"):
        assert data["seats"][seat]["role"] and data["seats"][seat]["demos"]
        for demo in data["seats"][seat]["demos"]:
            book.parse(demo["plan"])  # every demo plan is a skill of this kitchen
            book.parse(demo["intention"])


def test_the_distances_line_says_which_indicators_a_seat_can_reach():
    from proagent.domains.overcooked.grounding import ground
    from proagent.world.types import TeammateView

    def dist(name: str, seat: int) -> dict:
        kitchen = _env(name).symbolic(_env(name).jit_reset(jax.random.PRNGKey(0)))
        return ground(kitchen, seat, _book(name), TeammateView(1 - seat, None, None), 0.0)["distances"]

    # demo_cook_simple: the recipe indicator is in seat 0's room; seat 1 learns only from a demo
    assert isinstance(dist("demo_cook_simple", 0)["recipe indicator"], int)
    assert dist("demo_cook_simple", 1)["recipe indicator"] is None
    assert isinstance(dist("grounded_coord_simple", 0)["button"], int) and dist("grounded_coord_simple", 1)["button"] is None
    assert "recipe indicator" not in dist("cramped_room", 0) and "button" not in dist("cramped_room", 0)


def test_interdependence_tracks_any_ingredient_and_the_button():
    """strips.toml and the grounder name objects by their ingredient: a tomato is tracked as one."""
    from proagent.domains.overcooked.interdependence import interdependence_collector
    from proagent.interdependence.episode import analyze_steps

    _, kitchens, events, _ = _play(
        "grounded_coord_simple", {1: [Skill("pickup", "tomato"), Skill("put_in_pot")], 0: [Skill("press_button")]}
    )
    collector = interdependence_collector(kitchens[0])
    for kitchen in kitchens[:-1]:
        collector.add(kitchen.step, [int(Action.STAY)] * 2, [e for e in events if e.step == kitchen.step])
    trace, _ = analyze_steps(collector.model, collector.steps, collector.scene, 2)
    ops = [(o.name, o.args) for o in trace.operators if o.name != "move"]
    assert ops == [
        ("activate_indicator", ("indicator_3_2",)),
        ("pickup_ingredient", ("tomato1", "tomato-dispenser_7_3")),
        ("put_in_pot", ("tomato1", "pot_4_2")),
    ]


def test_a_lit_button_cannot_be_pressed_again():
    _, kitchens, _, _ = _play("grounded_coord_simple", {0: [Skill("press_button")]}, steps=10)
    book = _book("grounded_coord_simple")
    lit = kitchens[-1]
    assert book.failures(lit, 0, Skill("press_button")) == ["the button is lit already: the recipe shows on it now"]
    assert book.targets(lit, Skill("press_button")) == ()
    assert book.is_done(lit, 0, Skill("press_button"), 0)
