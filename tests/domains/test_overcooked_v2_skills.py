"""OvercookedV2 skills: put_in_pot() for any ingredient, press_button(), go_to_indicator(), the
event -> skill inverse, recipe_fit, the V2 knowledge texts and the V2 heuristic responder.

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
from proagent.domains.overcooked.heuristic import heuristic_answer
from proagent.domains.overcooked.heuristic_v2_prompt import Convention, is_v2, parse_convention, parse_recipe
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


# ---- the V2 heuristic responder ----------------------------------------------------------------

SYSTEM_V2 = "Skills:\n- pickup(obj)\n- put_in_pot()\n- fill_dish_with_soup()\n- deliver_soup()\n- place_obj_on_counter()\n- press_button()\n- go_to_indicator()\n- wait(n)"
SYSTEM_DEMO = SYSTEM_V2.replace("\n- press_button()", "")


def _ask(system: str, state: str) -> str:
    body = {
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": state + "\nAnswer in the format."},
        ]
    }
    return heuristic_answer(body).rsplit("Plan: ", 1)[1]


def _state(
    held="nothing",
    pot="empty",
    recipe="unknown (no recipe indicator in view)",
    dist="onion 3, tomato 2, dish 2, pot 1, serving spot 3, empty counter 1",
):
    return (
        f"Step 5 of 400 (395 left). Score so far: 0. Recipe: {recipe}.\n"
        f"You (player 1) are at [5, 2] facing left, holding {held}.\n"
        f"Pot at [4, 2]: {pot}.\nThe counters are empty.\nSteps from you to the nearest: {dist}."
    )


def test_heuristic_v2_learns_the_recipe_first():
    # looking is free, a press costs points: the indicator first, the button when it cannot be reached
    assert _ask(SYSTEM_V2, _state()) == "go_to_indicator()"
    no_indicator = (
        _state() + "\nYour plan go_to_indicator() cannot be done now: no recipe indicator. Choose another skill."
    )
    assert _ask(SYSTEM_V2, no_indicator) == "press_button()"
    assert _ask(SYSTEM_DEMO, _state()) == "go_to_indicator()"
    assert _ask("Skills: pickup(obj), put_in_pot(), wait(n)", _state()) == "wait(3)"  # no way to learn: wait for a demo
    rejected = _state() + "\nYour plan press_button() cannot be done now: no button. Choose another skill."
    assert _ask(SYSTEM_DEMO, rejected) == "go_to_indicator()"


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


def test_heuristic_v2_does_not_walk_to_an_indicator_it_cannot_reach():
    base = "onion 3, tomato 2, dish 2, pot 1, serving spot 3, empty counter 1"
    assert _ask(SYSTEM_DEMO, _state(dist=base + ", recipe indicator 4")) == "go_to_indicator()"
    assert _ask(SYSTEM_DEMO, _state(dist=base + ", recipe indicator unreachable")) == "wait(3)"  # a demo will come
    walled = base + ", recipe indicator unreachable, button unreachable"
    assert _ask(SYSTEM_V2, _state(dist=walled)) not in ("go_to_indicator()", "press_button()")


def test_heuristic_v2_follows_a_demo():
    demo = _state(pot="1 of 3 ingredients (tomato), not cooking")
    assert _ask(SYSTEM_DEMO, demo) == "pickup(tomato)"
    assert _ask(SYSTEM_DEMO, _state(held="tomato", pot="1 of 3 ingredients (tomato), not cooking")) == "put_in_pot()"
    assert (
        _ask(SYSTEM_DEMO, _state(held="onion", pot="1 of 3 ingredients (tomato), not cooking"))
        == "place_obj_on_counter()"
    )


def test_heuristic_v2_cooks_the_known_recipe():
    known = "onion, tomato, tomato (seen on the indicator at step 3)"
    assert _ask(SYSTEM_V2, _state(recipe=known)) == "pickup(onion)"
    assert _ask(SYSTEM_V2, _state(recipe=known, pot="1 of 3 ingredients (onion), not cooking")) == "pickup(tomato)"
    assert (
        _ask(SYSTEM_V2, _state(recipe=known, held="tomato", pot="2 of 3 ingredients (onion, tomato), not cooking"))
        == "put_in_pot()"
    )
    assert (
        _ask(SYSTEM_V2, _state(recipe=known, held="onion", pot="2 of 3 ingredients (onion, tomato), not cooking"))
        == "place_obj_on_counter()"
    )
    assert _ask(SYSTEM_V2, _state(recipe=known, pot="cooking, ready in 5 steps")) == "pickup(dish)"
    assert _ask(SYSTEM_V2, _state(recipe=known, held="dish", pot="soup ready")) == "fill_dish_with_soup()"
    assert _ask(SYSTEM_V2, _state(recipe=known, held="soup of onion, tomato, tomato", pot="empty")) == "deliver_soup()"
    full_info = "onion, onion, onion"  # a V2 kitchen with the full view: no source in brackets
    assert _ask(SYSTEM_V2, _state(recipe=full_info)) == "pickup(onion)"


def test_heuristic_v2_shows_the_recipe_when_it_cannot_cook():
    far = "onion unreachable, tomato unreachable, dish unreachable, pot unreachable, serving spot unreachable, empty counter 1"
    assert (
        _ask(SYSTEM_V2, _state(recipe="tomato, tomato, tomato (seen on the indicator at step 1)", dist=far))
        == "press_button()"
    )


def test_recipe_line_contract():
    assert parse_recipe("Recipe: unknown (no recipe indicator in view).") is None
    assert parse_recipe("Recipe: unknown now; it was onion, onion, onion until step 40") is None
    assert parse_recipe("x. Recipe: unknown.") is None
    assert parse_recipe("Recipe: onion, onion, tomato (known since step 5).") == ("onion", "onion", "tomato")
    assert parse_recipe("Recipe: tomato, tomato, tomato.") == ("tomato",) * 3


def test_classic_prompts_are_not_v2():
    classic = "Skills:\n- pickup(obj)\n- put_onion_in_pot()\n- wait(n)\n" + _state(recipe="onion, onion, onion")
    assert not is_v2(classic)
    body = {"messages": [{"role": "user", "content": classic.replace("player 1", "player 0") + "\nAnswer."}]}
    assert heuristic_answer(body) == "Analysis: I hold nothing.\nIntention: pickup(onion)\nPlan: pickup(onion)"


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


def test_heuristic_v2_does_not_press_while_the_teammate_cooks_the_recipe():
    far = "onion unreachable, tomato unreachable, dish unreachable, pot unreachable, serving spot unreachable, empty counter 1"
    known = "tomato, tomato, tomato (seen on the indicator at step 1)"
    assert _ask(SYSTEM_V2, _state(recipe=known, dist=far, pot="1 of 3 ingredients (tomato), not cooking")) == "wait(3)"
    assert _ask(SYSTEM_V2, _state(recipe=known, dist=far, pot="cooking, ready in 4 steps")) == "wait(3)"
    assert (
        _ask(SYSTEM_V2, _state(recipe=known, dist=far, pot="1 of 3 ingredients (onion), not cooking"))
        == "press_button()"
    )


def test_a_lit_button_cannot_be_pressed_again():
    _, kitchens, _, _ = _play("grounded_coord_simple", {0: [Skill("press_button")]}, steps=10)
    book = _book("grounded_coord_simple")
    lit = kitchens[-1]
    assert book.failures(lit, 0, Skill("press_button")) == ["the button is lit already: the recipe shows on it now"]
    assert book.targets(lit, Skill("press_button")) == ()
    assert book.is_done(lit, 0, Skill("press_button"), 0)


# ---- the V2 responder's protocols: the button once per recipe, counter signals, demos -----------

PICTURE_GCS = (
    "X?X?I X?X X X X\nX?    X?D     O\nR     L P     S\nX?    X?D     T\nX?X?I X?X X X X"  # grounded_coord_simple
)
PICTURE_TTS = "X?X?I X?X X X X\nX?    X?D     O\nR     X?P     S\nX?    X?D     T\nX?X?I X?X X X X"  # test_time_simple
LEFT_ROOM = "onion unreachable, tomato unreachable, ingredient2 1, dish unreachable, pot unreachable, serving spot unreachable, empty counter 1"
RIGHT_ROOM = "onion 2, tomato 2, ingredient2 unreachable, dish 1, pot 1, serving spot 1, empty counter 1"
NO_LOOKING = (
    "\nYour plan go_to_indicator() cannot be done now: no recipe indicator can be reached. Choose another skill."
)
NO_PRESSING = "\nYour plan press_button() cannot be done now: no button can be reached. Choose another skill."


def _view(me=(5, 2), held="nothing", recipe="unknown (no recipe indicator in view)", pot="empty", counters="", step=20,
          memory=(), mate="is out of view and you have not seen it yet", dist=RIGHT_ROOM, picture=PICTURE_GCS) -> str:  # fmt: skip
    """A partial-view prompt as the proagent state template writes it (perception on)."""
    history = "".join(f"- step {s}: you chose {skill} (done)\n" for s, skill in memory)
    objects = f"Objects on counters: {counters}." if counters else "You see and remember no objects on the counters."
    return (
        (f"Recent history (oldest first):\n{history}\n" if history else "")
        + f"Step {step} of 200 ({200 - step} left). Score so far: 0. Recipe: {recipe}.\n"
        + "You see only the cells at most 2 away from you in x and in y; the rest is as you last saw it.\n"
        + f"Kitchen (x grows right, y grows down; two characters a cell; ? = out of view):\n{picture}\n"
        + f"You (player 1) are at [{me[0]}, {me[1]}] facing left, holding {held}.\nYour teammate (player 0) {mate}.\n"
        + f"Pot at [4, 2]: {pot}.\n{objects}\nSteps from you to the nearest (counting objects you remember): {dist}."
    )


def _notes(name: str) -> str:
    return tomllib.loads((KNOWLEDGE_DIR / "overcooked" / "layouts" / f"{name}.toml").read_text())["notes"]


def test_the_presser_presses_once_per_recipe():
    onions = "onion, onion, onion (seen on the indicator at step 3)"
    left = dict(me=(2, 2), recipe=onions, dist=LEFT_ROOM)  # from [2, 2] it sees the pot [4, 2]
    assert _ask(SYSTEM_V2, _view(**left, step=0)) == "press_button()"  # the start: nobody knows yet
    pressed = [(2, "press_button()"), (3, "wait(3)"), (6, "wait(3)")]
    assert _ask(SYSTEM_V2, _view(**left, step=9, memory=pressed)) == "wait(3)"  # the light may still be on
    assert _ask(SYSTEM_V2, _view(**left, pot="2 of 3 ingredients (onion, onion), not cooking")) == "wait(3)"
    assert _ask(SYSTEM_V2, _view(**left, pot="cooking, ready in 5 steps")) == "wait(3)"
    waits = [(s, "wait(3)") for s in (30, 33, 36, 39, 42)]
    assert _ask(SYSTEM_V2, _view(**left, step=44, memory=waits)) == "press_button()"  # the soup was taken: a new recipe
    assert (
        _ask(SYSTEM_V2, _view(**left, pot="1 of 3 ingredients (tomato), not cooking")) == "press_button()"
    )  # a wrong cook


def test_a_presser_that_cannot_see_the_pot_presses_after_a_delivery_it_saw():
    onions = "onion, onion, onion (seen on the indicator at step 40)"
    ring = dict(me=(1, 2), recipe=onions, dist=LEFT_ROOM, pot="empty (out of view; as of step 0)", step=50)
    assert _ask(SYSTEM_V2, _view(**ring)) == "wait(10)"  # nothing says the teammate needs it: it can press itself
    delivered = "is out of view; last seen at step 44 at [5, 2] facing right, holding nothing; the last skill you saw it complete was deliver_soup() (step 44)"
    assert _ask(SYSTEM_V2, _view(**ring, mate=delivered)) == "press_button()"
    assert _ask(SYSTEM_V2, _view(**ring, mate=delivered, memory=[(46, "press_button()")])) == "wait(10)"


def test_a_press_out_of_the_recent_history_is_remembered_by_the_button_line():
    """The recent history holds a few skills; the button line keeps when the light was last seen,
    so a presser whose teammate never cooks does not pay for the same recipe again and again."""
    onions = "onion, onion, onion (seen on the indicator at step 3)"
    left = dict(me=(2, 2), recipe=onions, dist=LEFT_ROOM, step=60, memory=[(s, "wait(3)") for s in (45, 48, 51, 54, 57)])
    assert _ask(SYSTEM_V2, _view(**left)) == "press_button()"  # no sign of an earlier press: the pot is empty
    shown = "\nButton indicator at [3, 2]: off; you last saw it lit at step 12."
    assert _ask(SYSTEM_V2, _view(**left) + shown) == "wait(3)"
    lit = "\nButton indicator at [3, 2]: lit, showing the recipe for 4 more steps."
    assert _ask(SYSTEM_V2, _view(**left) + lit) == "wait(3)"
    served = "is out of view; last seen at step 44 at [5, 2] facing right, holding nothing; the last skill you saw it complete was deliver_soup() (step 44)"
    assert _ask(SYSTEM_V2, _view(**left, mate=served) + shown) == "press_button()"  # a new recipe since the light
    unseen_delivery = "\nButton indicator at [3, 2]: off; you have not seen it lit since the soup served at step 50."
    assert _ask(SYSTEM_V2, _view(**left) + unseen_delivery) == "press_button()"


def test_the_cook_watches_the_button_and_presses_only_after_waiting():
    stale = "unknown now; it was onion, onion, onion until step 42, when a soup was served, and it may have changed"
    cannot = NO_LOOKING + NO_PRESSING
    assert (
        _ask(SYSTEM_V2, _view(me=(6, 2), recipe=stale, step=43) + cannot) == "pickup(dish)"
    )  # L [3, 2] is out of view
    assert _ask(SYSTEM_V2, _view(me=(5, 1), recipe=stale, step=46) + cannot) == "wait(3)"  # watching L
    # a cook who can press (grounded_coord_ring's inner room) gives the teammate two waits first
    assert _ask(SYSTEM_V2, _view(me=(5, 1), recipe=stale, step=46) + NO_LOOKING) == "wait(3)"
    waited = [(44, "go_to_indicator()"), (45, "wait(3)"), (48, "wait(3)")]
    assert _ask(SYSTEM_V2, _view(me=(5, 1), recipe=stale, step=51, memory=waited)) == "press_button()"


def test_signal_conventions_in_the_knowledge():
    assert parse_convention(_notes("test_time_simple")) == Convention(
        "ingredient2", ((3, 1), (3, 2), (3, 3)), ("tomato",) * 3, ("onion",) * 3
    )
    assert parse_convention(_notes("test_time_wide")) == Convention(
        "ingredient3", ((2, 3), (4, 3)), ("tomato",) * 3, ("onion",) * 3
    )
    assert parse_convention(_notes("grounded_coord_simple")) is None


def test_the_signaller_keeps_the_signal_true():
    system = SYSTEM_DEMO + "\n" + _notes("test_time_simple")
    tomatoes, onions = (
        "tomato, tomato, tomato (seen on the indicator at step 60)",
        "onion, onion, onion (seen on the indicator at step 60)",
    )
    left = dict(me=(2, 1), dist=LEFT_ROOM, picture=PICTURE_TTS)
    assert _ask(system, _view(**left, recipe=tomatoes)) == "pickup(ingredient2)"
    assert _ask(system, _view(**left, recipe=tomatoes, held="ingredient2")) == "place_obj_on_counter()"
    assert _ask(system, _view(**left, recipe=tomatoes, counters="ingredient2 at [3, 1]")) == "wait(2)"
    assert (
        _ask(system, _view(**left, recipe=onions, counters="ingredient2 at [3, 1]")) == "pickup(ingredient2)"
    )  # take it down
    assert _ask(system, _view(**left, recipe=onions, held="ingredient2")) == "wait(2)"  # and keep it in hand
    assert _ask(system, _view(**left, recipe=onions)) == "pickup(ingredient2)"  # ready for the next change


def test_the_cook_reads_the_signal_only_when_it_is_settled_and_in_view():
    system = SYSTEM_DEMO + "\n" + _notes("test_time_simple")
    cook = dict(picture=PICTURE_TTS)
    assert _ask(system, _view(**cook, me=(5, 1), counters="ingredient2 at [3, 3]") + NO_LOOKING) == "pickup(tomato)"
    assert _ask(system, _view(**cook, me=(5, 1)) + NO_LOOKING) == "pickup(onion)"
    assert _ask(system, _view(**cook, me=(5, 1), step=4) + NO_LOOKING) == "wait(1)"  # the signaller is still setting it
    served = "unknown now; it was tomato, tomato, tomato until step 18, when a soup was served, and it may have changed"
    assert (
        _ask(system, _view(**cook, me=(5, 1), recipe=served, counters="ingredient2 at [3, 3]") + NO_LOOKING)
        == "wait(1)"
    )
    assert (
        _ask(
            system,
            _view(**cook, me=(6, 2), counters="ingredient2 at [3, 3] (out of view; seen at step 9)") + NO_LOOKING,
        )
        == "pickup(dish)"
    )
    remembered = dict(**cook, me=(6, 3), counters="ingredient2 at [3, 3] (out of view; seen at step 12)")
    assert _ask(system, _view(**remembered, held="tomato")) == "put_in_pot()"  # picked on a settled reading
    assert _ask(system, _view(**remembered, held="onion")) == "place_obj_on_counter()"


def test_the_demo_cook_does_not_start_a_pot_while_the_teammate_serves():
    onions = "onion, onion, onion (seen on the indicator at step 60)"
    serving = "is at [5, 1] facing up, holding soup of onion, onion, onion"
    assert _ask(SYSTEM_DEMO, _view(recipe=onions, mate=serving)) == "wait(1)"
    assert _ask(SYSTEM_DEMO, _view(recipe=onions, mate=serving, held="onion")) == "wait(1)"
    assert (
        _ask(
            SYSTEM_DEMO, _view(recipe=onions, mate=serving, held="onion", pot="1 of 3 ingredients (onion), not cooking")
        )
        == "put_in_pot()"
    )
    idle = "is at [5, 1] facing up, holding nothing"
    assert _ask(SYSTEM_DEMO, _view(recipe=onions, mate=idle)) == "pickup(onion)"


def test_the_demo_cook_leaves_a_started_pot_to_the_teammate():
    seen = "onion, onion, onion (seen on the indicator at step 60)"
    filling = "1 of 3 ingredients (onion), not cooking"
    # its own carried onion could wait by the cooking pot and start the next one as a wrong demo
    assert _ask(SYSTEM_DEMO, _view(recipe=seen, pot=filling)) == "wait(3)"
    assert (
        _ask(SYSTEM_DEMO, _view(recipe=seen, pot="1 of 3 ingredients (tomato), not cooking")) == "wait(3)"
    )  # off track
    # a cook that learned it on the button (nobody else cooks) fills the pot itself
    lit = "onion, onion, onion (seen on the lit button indicator at step 60)"
    assert _ask(SYSTEM_DEMO, _view(recipe=lit, pot=filling)) == "pickup(onion)"
    # no demo right after the teammate filled a dish: its delivery may draw a new recipe
    filled = "is out of view; last seen at step 58 at [8, 2] facing left, holding nothing; the last skill you saw it complete was fill_dish_with_soup() (step 58)"
    assert _ask(SYSTEM_DEMO, _view(recipe=seen, mate=filled, step=61)) == "wait(1)"
    assert _ask(SYSTEM_DEMO, _view(recipe=seen, mate=filled, step=70)) == "pickup(onion)"
