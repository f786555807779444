"""Fixtures for the controller tests: jitted envs shared across the session, hand-built kitchens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import jax
import jax.numpy as jnp
import pytest

import envs
from envs import Action, Direction, EnvState, KitchenState, OvercookedEnv, Pos
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.skills import Skill, SkillBook


@pytest.fixture(scope="session")
def make_env() -> Callable[[str], OvercookedEnv]:
    """One env per layout for the whole session: each jit compiles once."""
    return cache(envs.make)


def build_state(
    env: OvercookedEnv,
    positions: Sequence[Pos],
    facing: Sequence[Direction],
    held: Sequence[int] = (0, 0),
    pots: dict[Pos, tuple[int, int]] | None = None,
) -> EnvState:
    """A kitchen set up by hand: players (position, facing, engine item code), pots (content, timer)."""
    state = env.jit_reset(jax.random.PRNGKey(0))
    agents = state.agents
    agents = agents.replace(
        pos=agents.pos.replace(x=jnp.array([p[0] for p in positions]), y=jnp.array([p[1] for p in positions])),
        dir=jnp.array([int(d) for d in facing]),
        inventory=jnp.array(list(held)),
    )
    grid = state.grid
    for (x, y), (content, timer) in (pots or {}).items():
        grid = grid.at[y, x, 1].set(content).at[y, x, 2].set(timer)
    return state.replace(agents=agents, grid=grid)


@dataclass
class Drive:
    """A short run of one controller against a teammate that stays put."""

    actions: list[Action]
    kitchens: list[KitchenState]
    events: list[envs.Event]


def drive(env: OvercookedEnv, state: EnvState, skill: Skill, steps: int, seed: int = 0, agent: int = 0, **kw) -> Drive:
    """Step ``agent``'s controller on ``skill`` (others STAY) until it is done or ``steps`` run out."""
    kitchen = env.symbolic(state)
    book = SkillBook.for_kitchen(kitchen)
    controller = Controller(book, agent, seed, **kw)
    out = Drive([], [kitchen], [])
    for step in range(steps):
        if book.is_done(kitchen, agent, skill, step):
            break
        action = controller.act(kitchen, skill)
        joint = [Action.STAY] * env.num_agents
        joint[agent] = action
        state = env.jit_step(jax.random.PRNGKey(step), state, jnp.array([int(a) for a in joint])).state
        after = env.symbolic(state)
        out.events.extend(envs.extract_events(kitchen, joint, after))
        out.actions.append(action)
        out.kitchens.append(after)
        kitchen = after
    return out


@pytest.fixture(scope="session")
def build() -> Callable[..., EnvState]:
    return build_state


@pytest.fixture(scope="session")
def run_skill() -> Callable[..., Drive]:
    return drive
