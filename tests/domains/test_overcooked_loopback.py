"""The Overcooked loopback responder (tests.support): a competent cook from the seat's grounding.

Groundings are built here as the agent builds them (the facts of `ground` / `ground_view`, the
memory, the feedback, the system prompt's skills and layout knowledge), so each case states what
the seat's prompt holds; the responder never sees a sentence of it."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import envs
from proagent.agent.prompts import Knowledge, load_knowledge
from proagent.domains.overcooked.domain import OvercookedDomain
from proagent.domains.overcooked.scripted_seat import Convention, is_v2, read_seat
from proagent.llm.types import Grounding
from proagent.paths import KNOWLEDGE_DIR
from tests.support.responders.overcooked import overcooked_answer

CLASSIC_SKILLS = (
    "pickup(obj)",
    "put_onion_in_pot()",
    "fill_dish_with_soup()",
    "deliver_soup()",
    "place_obj_on_counter()",
    "wait(n)",
)
V2_SKILLS = (
    "pickup(obj)",
    "put_in_pot()",
    "fill_dish_with_soup()",
    "deliver_soup()",
    "place_obj_on_counter()",
    "press_button()",
    "go_to_indicator()",
    "wait(n)",
)
DEMO_SKILLS = tuple(s for s in V2_SKILLS if s != "press_button()")
NEAR = {"onion": 3, "tomato": 2, "dish": 2, "pot": 1, "serving spot": 3, "empty counter": 1}
FAR = {"onion": None, "tomato": None, "dish": None, "pot": None, "serving spot": None, "empty counter": 1}
LEFT_ROOM = {**FAR, "ingredient2": 1}
RIGHT_ROOM = {"onion": 2, "tomato": 2, "ingredient2": None, "dish": 1, "pot": 1, "serving spot": 1, "empty counter": 1}
PICTURE_GCS = (
    "X?X?I X?X X X X\nX?    X?D     O\nR     L P     S\nX?    X?D     T\nX?X?I X?X X X X"  # grounded_coord_simple
)
PICTURE_TTS = "X?X?I X?X X X X\nX?    X?D     O\nR     X?P     S\nX?    X?D     T\nX?X?I X?X X X X"  # test_time_simple
ONIONS, TOMATOES = ["onion"] * 3, ["tomato"] * 3


def pot(status: str = "empty", *ingredients: str, seen_step: int | None = None) -> dict[str, Any]:
    """A pot at [4, 2]; ``seen_step``: out of view, as remembered from that step."""
    return {
        "position": [4, 2],
        "ingredients": list(ingredients),
        "num_ingredients": len(ingredients),
        "status": status,
        "ticks_left": 5 if status == "cooking" else 0,
        "in_view": seen_step is None,
        "seen_step": seen_step,
    }


def counter(item: str, x: int, y: int, seen_step: int | None = None) -> dict[str, Any]:
    return {"position": [x, y], "item": item, "in_view": seen_step is None, "seen_step": seen_step}


def mate(
    held: str | None = None,
    *,
    in_view: bool = False,
    seen: int | None = None,
    skill: str | None = None,
    at: int | None = None,
) -> dict[str, Any]:
    """The teammate: in view, last seen at step ``seen``, or never seen; its last completed skill seen at ``at``."""
    return {
        "index": 0,
        "position": [5, 1] if in_view or seen is not None else None,
        "facing": "up",
        "held": held,
        "in_view": in_view,
        "seen_step": seen,
        "last_skill": skill,
        "last_skill_step": at,
        "last_action": None,
    }


def button(lit_ticks: int = 0, last_lit: int | None = None, served: int | None = None) -> dict[str, Any]:
    return {
        "position": [3, 2],
        "in_view": True,
        "lit_ticks": lit_ticks,
        "last_lit_step": last_lit,
        "last_served": served,
    }


def full(
    held: str | None = None, pots: tuple = (), recipe: list[str] | None = None, dist: dict = NEAR
) -> dict[str, Any]:
    """A seat that sees the whole kitchen (``ground``): player 1 at [5, 2]."""
    return {
        "step": 5,
        "horizon": 400,
        "steps_left": 395,
        "score": 0.0,
        "recipe": recipe or [],
        "kitchen_ascii": "",
        "me": {"index": 1, "position": [5, 2], "facing": "left", "held": held},
        "teammate": {**mate(), "in_view": True},
        "pots": list(pots or (pot(),)),
        "counters": [],
        "distances": dict(dist),
    }


def view(
    me=(5, 2),
    held=None,
    recipe=None,
    how="indicator",
    since=3,
    stale=None,
    pots=(),
    counters=(),
    step=20,
    teammate=None,
    dist=RIGHT_ROOM,
    picture=PICTURE_GCS,
    buttons=(),
) -> dict[str, Any]:
    """A seat with a partial view (``ground_view``, radius 2): ``recipe`` None is not seen yet; with
    ``stale`` it was that recipe until the delivery at that step."""
    source = None if recipe is None else {"how": how, "step": since, "position": None, "stale_since": stale}
    return {
        "step": step,
        "horizon": 200,
        "steps_left": 200 - step,
        "score": 0.0,
        "recipe": recipe or [],
        "recipe_source": source,
        "view": {"radius": 2},
        "kitchen_ascii": picture,
        "me": {"index": 1, "position": list(me), "facing": "left", "held": held},
        "teammate": teammate or mate(),
        "pots": list(pots or (pot(),)),
        "buttons": list(buttons),
        "counters": list(counters),
        "distances": dict(dist),
    }


def ask(
    facts: dict,
    skills: tuple[str, ...] = V2_SKILLS,
    rejected: tuple[str, ...] = (),
    memory: tuple = (),
    signal: str | None = None,
) -> str:
    """The responder's plan for a planner prompt rendered from these values."""
    layout = {"name": signal or "x", "notes": "", "role": "", "signal": _signal(signal) if signal else None}
    grounding = Grounding(
        purpose="plan",
        seat=1,
        facts=facts,
        output_format="json",
        fields=("analysis", "intention", "plan"),
        teammates=(0,),
        skills=skills,
        layout=layout,
        feedback=tuple({"skill": s, "reasons": ["no"], "explanation": None} for s in rejected),
        memory=tuple(
            {"step": s, "skill": skill, "outcome": "done", "state": "", "analysis": None} for s, skill in memory
        ),
    )
    return overcooked_answer(grounding).rsplit("Plan: ", 1)[1]


def _signal(layout: str) -> dict:
    return tomllib.loads((KNOWLEDGE_DIR / "overcooked" / "layouts" / f"{layout}.toml").read_text())["signal"]


# ---- classic kitchens and the explainer ----------------------------------------------------------


def test_a_classic_cook_fills_the_pot_and_serves():
    assert ask(full(recipe=ONIONS), CLASSIC_SKILLS) == "pickup(onion)"
    assert ask(full("onion", (pot("filling", "onion"),), ONIONS), CLASSIC_SKILLS) == "put_onion_in_pot()"
    assert ask(full(None, (pot("cooking", *ONIONS),), ONIONS), CLASSIC_SKILLS) == "pickup(dish)"
    assert ask(full("dish", (pot("ready", *ONIONS),), ONIONS), CLASSIC_SKILLS) == "fill_dish_with_soup()"
    assert ask(full("soup of onion, onion, onion", (pot(),), ONIONS), CLASSIC_SKILLS) == "deliver_soup()"
    answer = overcooked_answer(_grounding_of(full(recipe=ONIONS), CLASSIC_SKILLS))
    assert answer == "Analysis: I hold nothing.\nIntention: pickup(onion)\nPlan: pickup(onion)"


def _grounding_of(facts: dict, skills: tuple[str, ...], purpose: str = "plan") -> Grounding:
    return Grounding(purpose=purpose, seat=1, facts=facts, output_format="json", skills=skills, skill="deliver_soup()")


def test_the_explainer_gets_one_sentence():
    assert (
        overcooked_answer(_grounding_of(full(), CLASSIC_SKILLS, "explain"))
        == "The skill's preconditions do not hold in this state."
    )


def test_classic_prompts_are_not_v2_and_a_recipe_unknown_to_the_seat_is():
    assert not is_v2(_grounding_of(full(recipe=ONIONS), CLASSIC_SKILLS))
    assert is_v2(_grounding_of(full(recipe=ONIONS), V2_SKILLS))
    assert is_v2(_grounding_of(view(), CLASSIC_SKILLS))  # a partial view without the recipe


def test_the_seat_knows_the_recipe_only_when_its_prompt_says_so():
    assert read_seat(_grounding_of(full(recipe=ONIONS), V2_SKILLS)).recipe == ("onion",) * 3
    assert read_seat(_grounding_of(view(), V2_SKILLS)).recipe is None
    assert read_seat(_grounding_of(view(recipe=ONIONS, stale=40), V2_SKILLS)).recipe is None
    known = read_seat(_grounding_of(view(recipe=["onion", "onion", "tomato"], since=5), V2_SKILLS))
    assert known.recipe == ("onion", "onion", "tomato") and known.recipe_on_indicator


# ---- V2: learning, demos, cooking ---------------------------------------------------------------


def test_the_v2_cook_learns_the_recipe_first():
    # looking is free, a press costs points: the indicator first, the button when it cannot be reached
    assert ask(full()) == "go_to_indicator()"
    assert ask(full(), rejected=("go_to_indicator()",)) == "press_button()"
    assert ask(full(), DEMO_SKILLS) == "go_to_indicator()"
    assert ask(full(), ("pickup(obj)", "put_in_pot()", "wait(n)")) == "wait(3)"  # no way to learn: wait for a demo
    assert ask(full(), DEMO_SKILLS, rejected=("press_button()",)) == "go_to_indicator()"


def test_the_v2_cook_does_not_walk_to_an_indicator_it_cannot_reach():
    assert ask(full(dist={**NEAR, "recipe indicator": 4}), DEMO_SKILLS) == "go_to_indicator()"
    assert ask(full(dist={**NEAR, "recipe indicator": None}), DEMO_SKILLS) == "wait(3)"  # a demo will come
    walled = {**NEAR, "recipe indicator": None, "button": None}
    assert ask(full(dist=walled)) not in ("go_to_indicator()", "press_button()")


def test_the_v2_cook_follows_a_demo():
    demo = (pot("filling", "tomato"),)
    assert ask(full(pots=demo), DEMO_SKILLS) == "pickup(tomato)"
    assert ask(full("tomato", demo), DEMO_SKILLS) == "put_in_pot()"
    assert ask(full("onion", demo), DEMO_SKILLS) == "place_obj_on_counter()"


def test_the_v2_cook_cooks_the_known_recipe():
    known = ["onion", "tomato", "tomato"]
    assert ask(full(recipe=known)) == "pickup(onion)"
    assert ask(full(pots=(pot("filling", "onion"),), recipe=known)) == "pickup(tomato)"
    assert ask(full("tomato", (pot("filling", "onion", "tomato"),), known)) == "put_in_pot()"
    assert ask(full("onion", (pot("filling", "onion", "tomato"),), known)) == "place_obj_on_counter()"
    assert ask(full(pots=(pot("cooking", *known),), recipe=known)) == "pickup(dish)"
    assert ask(full("dish", (pot("ready", *known),), known)) == "fill_dish_with_soup()"
    assert ask(full("soup of onion, tomato, tomato", (pot(),), known)) == "deliver_soup()"


def test_the_v2_cook_shows_the_recipe_when_it_cannot_cook_and_not_while_the_teammate_cooks_it():
    assert ask(full(recipe=TOMATOES, dist=FAR)) == "press_button()"
    assert ask(full(pots=(pot("filling", "tomato"),), recipe=TOMATOES, dist=FAR)) == "wait(3)"
    assert ask(full(pots=(pot("cooking", *TOMATOES),), recipe=TOMATOES, dist=FAR)) == "wait(3)"
    assert ask(full(pots=(pot("filling", "onion"),), recipe=TOMATOES, dist=FAR)) == "press_button()"


# ---- V2: the button once per recipe, counter signals, demos (partial views) ---------------------


def test_the_presser_presses_once_per_recipe():
    left = dict(me=(2, 2), recipe=ONIONS, dist=LEFT_ROOM)  # from [2, 2] it sees the pot [4, 2]
    assert ask(view(**left, step=0)) == "press_button()"  # the start: nobody knows yet
    pressed = ((2, "press_button()"), (3, "wait(3)"), (6, "wait(3)"))
    assert ask(view(**left, step=9), memory=pressed) == "wait(3)"  # the light may still be on
    assert ask(view(**left, pots=(pot("filling", "onion", "onion"),))) == "wait(3)"
    assert ask(view(**left, pots=(pot("cooking", *ONIONS),))) == "wait(3)"
    waits = tuple((s, "wait(3)") for s in (30, 33, 36, 39, 42))
    assert ask(view(**left, step=44), memory=waits) == "press_button()"  # the soup was taken: a new recipe
    assert ask(view(**left, pots=(pot("filling", "tomato"),))) == "press_button()"  # a wrong cook


def test_a_presser_that_cannot_see_the_pot_presses_after_a_delivery_it_saw():
    ring = dict(me=(1, 2), recipe=ONIONS, since=40, dist=LEFT_ROOM, pots=(pot(seen_step=0),), step=50)
    assert ask(view(**ring)) == "wait(10)"  # nothing says the teammate needs it: it can press itself
    delivered = mate(seen=44, skill="deliver_soup()", at=44)
    assert ask(view(**ring, teammate=delivered)) == "press_button()"
    assert ask(view(**ring, teammate=delivered), memory=((46, "press_button()"),)) == "wait(10)"


def test_a_press_out_of_the_recent_history_is_remembered_by_the_button_facts():
    """The recent history holds a few decisions; the button facts keep when the light was last
    seen, so a presser whose teammate never cooks does not pay for the same recipe again and again."""
    left = dict(me=(2, 2), recipe=ONIONS, dist=LEFT_ROOM, step=60)
    waits = tuple((s, "wait(3)") for s in (45, 48, 51, 54, 57))
    assert ask(view(**left), memory=waits) == "press_button()"  # no sign of an earlier press: the pot is empty
    assert ask(view(**left, buttons=(button(last_lit=12),)), memory=waits) == "wait(3)"
    assert ask(view(**left, buttons=(button(lit_ticks=4),)), memory=waits) == "wait(3)"
    served = mate(seen=44, skill="deliver_soup()", at=44)
    assert ask(view(**left, teammate=served, buttons=(button(last_lit=12),)), memory=waits) == "press_button()"
    assert ask(view(**left, buttons=(button(served=50),)), memory=waits) == "press_button()"  # a new recipe since


def test_the_cook_watches_the_button_and_presses_only_after_waiting():
    stale = dict(recipe=ONIONS, stale=42)
    cannot = ("go_to_indicator()", "press_button()")
    assert ask(view(me=(6, 2), step=43, **stale), rejected=cannot) == "pickup(dish)"  # L [3, 2] is out of view
    assert ask(view(me=(5, 1), step=46, **stale), rejected=cannot) == "wait(3)"  # watching L
    # a cook who can press (grounded_coord_ring's inner room) gives the teammate two waits first
    assert ask(view(me=(5, 1), step=46, **stale), rejected=("go_to_indicator()",)) == "wait(3)"
    waited = ((44, "go_to_indicator()"), (45, "wait(3)"), (48, "wait(3)"))
    assert ask(view(me=(5, 1), step=51, **stale), memory=waited) == "press_button()"


def test_the_signal_convention_is_data_that_says_what_the_notes_say():
    for name, item in (("test_time_simple", "ingredient2"), ("test_time_wide", "ingredient3")):
        knowledge = _knowledge(name)
        signal = knowledge.layout["signal"]
        assert signal["item"] == item and signal["present"] == TOMATOES and signal["absent"] == ONIONS
        cells = ", ".join(str(c) for c in signal["counters"])
        sentence = (
            f"Signal convention: an {item} on one of the counters {cells} means {', '.join(signal['present'])}; "
            f"no {item} on them means {', '.join(signal['absent'])}."
        )
        assert sentence in knowledge.layout["notes"]
    assert _knowledge("grounded_coord_simple").layout["signal"] is None
    seat = read_seat(
        Grounding(
            purpose="plan", seat=0, facts=view(), output_format="json", layout={"signal": _signal("test_time_simple")}
        )
    )
    assert seat.convention == Convention("ingredient2", ((3, 1), (3, 2), (3, 3)), ("tomato",) * 3, ("onion",) * 3)


def _knowledge(layout: str) -> Knowledge:
    return load_knowledge(
        KNOWLEDGE_DIR / "overcooked", layout, 0, OvercookedDomain().knowledge_facts(envs.make(layout))
    )


def test_no_other_layout_states_a_convention_without_its_data():
    for path in (KNOWLEDGE_DIR / "overcooked" / "layouts").glob("*.toml"):
        data = tomllib.loads(path.read_text())
        assert ("signal" in data) == bool(re.search(r"Signal convention", data["notes"])), path.name


def test_the_signaller_keeps_the_signal_true():
    left = dict(me=(2, 1), dist=LEFT_ROOM, picture=PICTURE_TTS, since=60)
    tts = dict(skills=DEMO_SKILLS, signal="test_time_simple")
    assert ask(view(**left, recipe=TOMATOES), **tts) == "pickup(ingredient2)"
    assert ask(view(**left, recipe=TOMATOES, held="ingredient2"), **tts) == "place_obj_on_counter()"
    assert ask(view(**left, recipe=TOMATOES, counters=(counter("ingredient2", 3, 1),)), **tts) == "wait(2)"
    assert ask(view(**left, recipe=ONIONS, counters=(counter("ingredient2", 3, 1),)), **tts) == "pickup(ingredient2)"
    assert ask(view(**left, recipe=ONIONS, held="ingredient2"), **tts) == "wait(2)"  # and keep it in hand
    assert ask(view(**left, recipe=ONIONS), **tts) == "pickup(ingredient2)"  # ready for the next change


def test_the_cook_reads_the_signal_only_when_it_is_settled_and_in_view():
    tts = dict(skills=DEMO_SKILLS, signal="test_time_simple", rejected=("go_to_indicator()",))
    sign, cook = (counter("ingredient2", 3, 3),), dict(picture=PICTURE_TTS)
    assert ask(view(**cook, me=(5, 1), counters=sign), **tts) == "pickup(tomato)"
    assert ask(view(**cook, me=(5, 1)), **tts) == "pickup(onion)"
    assert ask(view(**cook, me=(5, 1), step=4), **tts) == "wait(1)"  # the signaller is still setting it
    assert ask(view(**cook, me=(5, 1), recipe=TOMATOES, stale=18, counters=sign), **tts) == "wait(1)"
    remembered = (counter("ingredient2", 3, 3, seen_step=9),)
    assert ask(view(**cook, me=(6, 2), counters=remembered), **tts) == "pickup(dish)"
    remembered = dict(**cook, me=(6, 3), counters=(counter("ingredient2", 3, 3, seen_step=12),))
    no_rejection = dict(skills=DEMO_SKILLS, signal="test_time_simple")
    assert ask(view(**remembered, held="tomato"), **no_rejection) == "put_in_pot()"  # picked on a settled reading
    assert ask(view(**remembered, held="onion"), **no_rejection) == "place_obj_on_counter()"


def test_the_demo_cook_does_not_start_a_pot_while_the_teammate_serves():
    serving = mate("soup of onion, onion, onion", in_view=True)
    seen = dict(recipe=ONIONS, since=60, teammate=serving)
    assert ask(view(**seen), DEMO_SKILLS) == "wait(1)"
    assert ask(view(**seen, held="onion"), DEMO_SKILLS) == "wait(1)"
    assert ask(view(**seen, held="onion", pots=(pot("filling", "onion"),)), DEMO_SKILLS) == "put_in_pot()"
    idle = mate(in_view=True)
    assert ask(view(recipe=ONIONS, since=60, teammate=idle), DEMO_SKILLS) == "pickup(onion)"


def test_the_demo_cook_leaves_a_started_pot_to_the_teammate():
    seen = dict(recipe=ONIONS, since=60)
    filling = (pot("filling", "onion"),)
    # its own carried onion could wait by the cooking pot and start the next one as a wrong demo
    assert ask(view(**seen, pots=filling), DEMO_SKILLS) == "wait(3)"
    assert ask(view(**seen, pots=(pot("filling", "tomato"),)), DEMO_SKILLS) == "wait(3)"  # off track
    # a cook that learned it on the button (nobody else cooks) fills the pot itself
    assert ask(view(recipe=ONIONS, how="button", since=60, pots=filling), DEMO_SKILLS) == "pickup(onion)"
    # no demo right after the teammate filled a dish: its delivery may draw a new recipe
    filled = mate(seen=58, skill="fill_dish_with_soup()", at=58)
    assert ask(view(**seen, teammate=filled, step=61), DEMO_SKILLS) == "wait(1)"
    assert ask(view(**seen, teammate=filled, step=70), DEMO_SKILLS) == "pickup(onion)"
