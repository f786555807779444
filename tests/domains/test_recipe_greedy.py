"""``recipe_greedy``: a scripted cook of the recipe it knows, perceiving like the LLM agent does.

demo_cook_simple (x right, y down), under the paper's rules (view radius 2, random starts within
each room, wrong-soup penalty, a new recipe after each correct delivery):

    y0  X X X X X R c X O X X      R recipe indicators (5,0) (5,4), c ingredient-2 piles
    y1  O . . . . . . X . . D      left room x 1..6: onions (0,1), tomatoes (0,3), the pot (7,2)
    y2  X . . . . . . P . . S      right room x 8..9: onions (8,0), tomatoes (8,4), dishes, serving
    y3  T . . . . . . X . . D
    y4  X X X X X R c X T X X

The left chef sees an indicator from most of its room; the right chef never can (x >= 6 from x 8),
so it never knows the recipe: it serves what the left chef cooks.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import jax
import jax.numpy as jnp
import pytest

import envs
from envs import Dynamics
from envs.overcooked.events import EventKind
from proagent.contract import Observation
from proagent.domains.overcooked import OvercookedDomain
from proagent.domains.overcooked.partners import make_partner
from proagent.domains.overcooked.partners.recipe_chef import RecipeChef, names
from proagent.runner.episode import run_episode

DOMAIN = OvercookedDomain()


def v2_env(layout: str, horizon: int, **settings: str) -> envs.OvercookedEnv:
    """The layout under its own (the paper's) rules with ``--env``-style overrides."""
    return DOMAIN.make_env_with(layout, horizon, settings)


def chefs(env: envs.OvercookedEnv) -> list[RecipeChef]:
    team = [DOMAIN.make_partner("recipe_greedy", env) for _ in range(2)]
    assert all(isinstance(chef, RecipeChef) for chef in team)
    return team  # type: ignore[return-value]


def play(env: envs.OvercookedEnv, team: list[RecipeChef], seed: int, tamper: dict[int, tuple[int, ...]] | None = None):
    """Step the env with the chefs; ``tamper[seat]`` replaces the hidden recipe field of the kitchen
    that seat is handed. Per step: the joint action, its events, each chef's known recipe then."""
    key = jax.random.PRNGKey(seed)
    state = env.reset(key)
    kitchen, events, steps = env.symbolic(state), [], []
    for seat, chef in enumerate(team):
        chef.reset(seat, seed + seat)
    while kitchen.step < env.dynamics.horizon:
        actions = []
        for seat, chef in enumerate(team):
            seen = replace(kitchen, recipe=tamper[seat]) if tamper and seat in tamper else kitchen
            actions.append(asyncio.run(chef.act(Observation(seat, seen, state, None, 0.0), events)))
        known = tuple(chef.recipe for chef in team)
        state = env.jit_step(jax.random.fold_in(key, kitchen.step), state, jnp.asarray(actions, dtype=jnp.int32)).state
        after = env.symbolic(state)
        events = env.events(kitchen, tuple(actions), after)
        steps.append((tuple(actions), events, known, tuple(kitchen.recipe)))
        kitchen = after
    return steps


def puts(steps, seat: int) -> list[int]:
    return [t for t, (_, events, _, _) in enumerate(steps) for e in events if e.kind == EventKind.PUT_IN_POT and e.agent == seat]


# ---- (a) honesty ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_the_hidden_recipe_field_does_not_steer_a_chef_that_cannot_see_it(seed):
    """The right chef of demo_cook_simple never sees an indicator: handing it a kitchen whose hidden
    recipe field says the other recipe must change nothing it does, and it never feeds the pot."""
    env = v2_env("demo_cook_simple", 120)
    honest = play(env, chefs(env), seed)
    other = {0: (1, 1, 1), 1: (0, 0, 0)}  # onion <-> tomato: the wrong one of the two possible recipes
    lied_to = play(env, chefs(env), seed, tamper={1: other[honest[0][3][0]]})
    assert [a for a, *_ in lied_to] == [a for a, *_ in honest]
    assert puts(honest, 1) == [] and all(known[1] is None for _, _, known, _ in honest)
    assert puts(honest, 0), "the left chef, which sees the indicator, cooks"


def test_a_cook_puts_only_what_the_recipe_it_read_takes():
    """grounded_coord_simple: the cook (right) sees no recipe indicator; it learns the recipe only
    when the left chef lights the button. Every put comes after that, and matches the truth."""
    env = v2_env("grounded_coord_simple", 150)
    steps = play(env, chefs(env), seed=0)
    cook_puts = puts(steps, 1)
    assert cook_puts, "the button showed the recipe to the cook"
    assert steps[0][2][1] is None  # it starts not knowing
    for t in cook_puts:
        _, events, known, truth = steps[t]
        (put,) = [e for e in events if e.kind == EventKind.PUT_IN_POT and e.agent == 1]
        assert known[1] == names(truth) and put.item.name in known[1]


# ---- (b) competence under the paper's rules -------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_a_pair_serves_correct_soups_and_no_wrong_one_on_demo_cook_simple(seed):
    env = v2_env("demo_cook_simple", 400)
    record = asyncio.run(run_episode(env, DOMAIN, chefs(env), 0, seed, 0))
    assert record.domain_metrics["soups"] >= 1 and record.domain_metrics["wrong_soups"] == 0
    assert record.score > 0


# ---- (c) the env's rules reach the chef -------------------------------------------------------


def first_recipe(env: envs.OvercookedEnv, seat: int) -> tuple[str, ...] | None:
    chef = DOMAIN.make_partner("recipe_greedy", env)
    state = env.reset(jax.random.PRNGKey(0))
    chef.reset(seat, 0)
    asyncio.run(chef.act(Observation(seat, env.symbolic(state), state, None, 0.0), []))
    return chef.recipe


def test_a_full_view_override_shows_the_right_chef_the_indicator_at_once():
    partial, full = v2_env("demo_cook_simple", 10), v2_env("demo_cook_simple", 10, agent_view_size="none")
    assert first_recipe(partial, 1) is None
    truth = names(full.symbolic(full.reset(jax.random.PRNGKey(0))).recipe)
    assert first_recipe(full, 1) == truth


def test_without_an_env_the_chef_takes_the_layouts_own_rules():
    assert make_partner("recipe_greedy", "demo_cook_simple").dynamics.agent_view_size == 2
    assert make_partner("recipe_greedy", "demo_cook_simple", dynamics=Dynamics()).dynamics.agent_view_size is None
    assert make_partner("recipe_greedy", "cramped_room").dynamics == Dynamics()


# ---- (d) the classic kitchens -----------------------------------------------------------------


def test_on_cramped_room_it_cooks_about_as_well_as_greedy():
    env = envs.make("cramped_room", Dynamics(horizon=400))
    scores = {}
    for name in ("recipe_greedy", "greedy"):
        team = [DOMAIN.make_partner(name, env), DOMAIN.make_partner(name, env)]
        scores[name] = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0)).score
    assert scores["recipe_greedy"] > 0
    assert scores["recipe_greedy"] >= 0.8 * scores["greedy"], scores


# ---- (e) listed where it can play ------------------------------------------------------------


def test_it_is_listed_on_v2_kitchens_and_by_the_cli(capsys):
    from proagent.cli import main

    v2 = DOMAIN.partner_names(envs.make("demo_cook_simple"))
    assert "recipe_greedy" in v2 and "greedy" not in v2
    assert "recipe_greedy" in DOMAIN.partner_names(envs.make("cramped_room"))
    assert main(["partners", "--domain", "overcooked"]) == 0
    assert "recipe_greedy" in capsys.readouterr().out.split(": ", 1)[1].split(", ")
