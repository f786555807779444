"""MA-Crafter's skills: parsing model text, checks worded for the explainer, done-tests, and the
controller grounding each skill on a real env (hand-drawn maps): navigation, quorum collection,
crafting together, placing and sharing."""

from __future__ import annotations

from dataclasses import replace

import jax
import jax.numpy as jnp
import pytest
from macrafter_maps import crafter_view, small_env

from envs.macrafter import Action, CrafterEnv, CrafterState, CrafterView
from proagent.domains.macrafter.controller import MACrafterController
from proagent.domains.macrafter.skills import NAVIGATE_TIMEOUT, MACrafterSkillBook, skill_book_for
from proagent.world.types import Skill, SkillParseError

OPEN = [
    ".........",
    ".T.......",
    "...0.....",
    ".........",
    "..1...2..",
    ".....I...",
    ".........",
    ".........",
    ".........",
]


def _run(env: CrafterEnv, state: CrafterState, skills: dict[int, Skill], limit: int) -> tuple[CrafterView, int]:
    """Step the seats' skills (others stay) until every skill is done; (last view, steps taken)."""
    view = env.symbolic(state)
    book = skill_book_for(view)
    gammas = {seat: MACrafterController(book, seat) for seat in skills}
    for seat, skill in skills.items():
        book.is_done(view, seat, skill, 0)
    for t in range(1, limit + 1):
        actions = [gammas[s].act(view, skills[s]) if s in skills else 0 for s in range(env.num_agents)]
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(actions)).state
        view = env.symbolic(state)
        if all(book.is_done(view, s, k, t) for s, k in skills.items()):
            return view, t
    return view, limit


def test_every_skill_parses_back_and_loose_texts_are_read() -> None:
    book = MACrafterSkillBook(3)
    skills = book.all_skills()
    assert Skill("share", "2, wood, 3") in skills and Skill("navigate", "agent, 1") in skills
    # share names 3 seats x 15 goods x 5 quantities; the rest is a few dozen
    assert all(book.parse(str(s)) == s for s in skills) and len(skills) < 300
    loose = {
        "Plan: share(id=1, item='wood', qty=2)": Skill("share", "1, wood, 2"),
        "navigate(player 2)": Skill("navigate", "agent, 2"),
        "navigate(agent_1)": Skill("navigate", "agent, 1"),
        "collect(wood)": Skill("collect", "tree"),
        "craft(wooden_pickaxe)": Skill("craft", "wood_pickaxe"),
        "move(north, 2)": Skill("move", "up, 2"),
        "move(left)": Skill("move", "left, 1"),
        "wait(3)": Skill("noop", 3),
        "sleep": Skill("sleep"),
        "place(sapling)": Skill("place", "plant"),
        "I will collect iron": Skill("collect", "iron"),
    }
    for text, skill in loose.items():
        assert book.parse(text) == skill, text
    for bad in ("fly(1)", "move(sideways, 2)", "share(1, wood, 9)", "navigate(agent)", "collect(gold)", "noop(99)"):
        with pytest.raises(SkillParseError):
            book.parse(bad)


def test_checks_name_what_is_missing() -> None:
    book = MACrafterSkillBook(3)
    view = crafter_view(OPEN, bags={0: {"wood": 1}, 1: {"stone_pickaxe": 1}})
    assert book.failures(view, 0, Skill("collect", "iron")) == [
        "collect(iron) needs a stone_pickaxe (you hold none) and 3 agents acting on it together"
    ]
    assert book.failures(view, 1, Skill("collect", "iron")) == []
    assert book.failures(view, 0, Skill("craft", "wood_pickaxe"))[0].startswith("craft(wood_pickaxe) needs a table")
    assert book.failures(view, 0, Skill("place", "furnace"))[0] == "place(furnace) needs 4 stone (you have 0)"
    assert book.failures(view, 0, Skill("place", "table")) == ["place(table) needs 2 wood (you have 1)"]
    assert book.failures(view, 0, Skill("share", "0, wood, 1"))[0].startswith("share names a teammate")
    assert book.failures(view, 0, Skill("share", "1, wood, 2")) == []  # hands over what it holds (EmCoop)
    assert book.failures(view, 0, Skill("share", "1, stone, 2")) == ["share(1, stone, 2) hands over stone, and you have none"]
    assert book.failures(view, 0, Skill("collect", "coal"))[0].startswith("collect(coal) needs a wood_pickaxe")
    assert "no diamond is in sight" in book.failures(view, 0, Skill("navigate", "diamond"))[0]
    assert book.failures(view, 0, Skill("sleep")) == ["you are not tired (energy 9 of 9)"]
    two = MACrafterSkillBook(2)
    pair = crafter_view([r.replace("2", ".") for r in OPEN], bags={0: {"stone_pickaxe": 1}})
    assert two.failures(pair, 0, Skill("collect", "iron")) == [
        "collect(iron) needs 3 agents acting together and the team has 2"
    ]


def test_navigate_walks_around_obstacles_to_face_the_target() -> None:
    rows = [
        ".........",
        ".0..S....",
        "....S....",
        "....S..T.",
        "....S....",
        "....S....",
        ".........",
        ".........",
        "........1",
    ]
    env, state = small_env(rows)
    view, steps = _run(env, state, {0: Skill("navigate", "tree")}, NAVIGATE_TIMEOUT)
    me = view.agents[0]
    assert steps < 20 and view.material(me.faced_cell).name == "TREE"
    view, _ = _run(env, state, {0: Skill("navigate", "agent, 1")}, NAVIGATE_TIMEOUT)
    assert view.agents[0].faced_cell == view.agents[1].position


def test_a_quorum_collects_iron_only_when_teammates_help() -> None:
    tools = {s: {"stone_pickaxe": 1} for s in range(3)}
    env, state = small_env(OPEN, tools)
    alone, _ = _run(env, state, {0: Skill("collect", "iron")}, 15)
    assert alone.agents[0].count("iron") == 0 and alone.attempts[0].outcome == "too_few"
    together = {s: Skill("collect", "iron") for s in range(3)}
    view, steps = _run(env, state, together, 30)
    assert steps < 30 and all(a.count("iron") == 1 for a in view.agents) and view.score > 0
    book = skill_book_for(view)  # the collection just made does not count for a collect begun now
    assert not book.is_done(view, 0, Skill("collect", "iron"), 0) and book.is_done(view, 0, Skill("collect", "iron"), 1)


def test_two_agents_each_craft_a_stone_pickaxe_after_placing_a_table() -> None:
    bags = {0: {"wood": 3, "stone": 1, "wood_pickaxe": 1}, 1: {"wood": 1, "stone": 1, "wood_pickaxe": 1}}
    env, state = small_env([r.replace("2", ".") for r in OPEN], bags)
    view, _ = _run(env, state, {0: Skill("place", "table")}, 10)
    assert view.cells_of(view.material(view.agents[0].faced_cell)) and view.agents[0].count("wood") == 1
    state = state._replace(grid=jnp.asarray(view.grid), pos=jnp.asarray([a.position for a in view.agents]))
    both = {0: Skill("craft", "stone_pickaxe"), 1: Skill("craft", "stone_pickaxe")}
    view, steps = _run(env, state, both, 30)
    assert steps < 30 and all(a.count("stone_pickaxe") == 1 for a in view.agents)


def test_share_hands_over_the_units_one_per_step() -> None:
    env, state = small_env([r.replace("2", ".") for r in OPEN], {0: {"wood": 3}})
    view, steps = _run(env, state, {0: Skill("share", "1, wood, 2")}, 20)
    assert view.agents[1].count("wood") == 2 and view.agents[0].count("wood") == 1 and steps < 20


def test_a_craft_gives_up_after_a_press_that_lacked_its_ingredients() -> None:
    book = MACrafterSkillBook(2)
    view = crafter_view(OPEN, bags={0: {"wood": 1}})
    craft = Skill("craft", "wood_pickaxe")
    failed = replace(view, last_actions=(int(Action.MAKE_WOOD_PICKAXE), 0), results=("missing_items", "none"))
    assert book.is_done(failed, 0, craft, 1) and not book.is_done(failed, 0, craft, 0)
    waiting = replace(failed, results=("too_few_crafters", "none"))
    assert not book.is_done(waiting, 0, craft, 1) and book.is_done(waiting, 0, craft, 12)
