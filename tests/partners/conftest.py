"""Fixtures for the partner tests: jitted envs shared across the session, a plain episode loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
from envs import Action, Direction, EnvState, Event, EventKind, KitchenState, OvercookedEnv, Pos
from proagent.domains.overcooked.partners import Partner


@dataclass
class Episode:
    score: float = 0.0
    events: list[Event] = field(default_factory=list)
    actions: list[tuple[Action, ...]] = field(default_factory=list)
    last: KitchenState | None = None

    def of(self, agent: int, kind: EventKind) -> list[Event]:
        return [e for e in self.events if e.agent == agent and e.kind == kind]

    @property
    def soups(self) -> int:
        return sum(1 for e in self.events if e.kind == EventKind.DELIVER and e.correct)


def run_episode(env: OvercookedEnv, partners: Sequence[Partner], seed: int = 0, steps: int = 400) -> Episode:
    """A Python loop over ``env.jit_step``; the partner in seat i is reset with ``seed + i``."""
    for seat, partner in enumerate(partners):
        partner.reset(seat, seed + seat)
    keys = np.asarray(jax.random.split(jax.random.PRNGKey(seed), steps))
    state = env.jit_reset(jax.random.PRNGKey(seed))
    kitchen = env.symbolic(state)
    episode = Episode()
    for step in range(steps):
        joint = tuple(Action(int(p.policy(kitchen, state))) for p in partners)
        transition = env.jit_step(keys[step], state, jnp.array([int(a) for a in joint]))
        state = transition.state
        after = env.symbolic(state)
        episode.events.extend(envs.extract_events(kitchen, joint, after))
        episode.actions.append(joint)
        episode.score += float(transition.reward)
        kitchen = after
    episode.last = kitchen
    return episode


@pytest.fixture(scope="session")
def make_env() -> Callable[[str], OvercookedEnv]:
    """One env per layout for the whole session: each jit compiles once."""
    return cache(envs.make)


@pytest.fixture(scope="session")
def play() -> Callable[..., Episode]:
    return run_episode


def build_state(
    env: OvercookedEnv, positions: Sequence[Pos], facing: Sequence[Direction], held: Sequence[int] = (0, 0)
) -> EnvState:
    """A kitchen set up by hand: players' positions, facings and held items (engine item codes)."""
    state = env.jit_reset(jax.random.PRNGKey(0))
    agents = state.agents
    agents = agents.replace(
        pos=agents.pos.replace(x=jnp.array([p[0] for p in positions]), y=jnp.array([p[1] for p in positions])),
        dir=jnp.array([int(d) for d in facing]),
        inventory=jnp.array(list(held)),
    )
    return state.replace(agents=agents)


@pytest.fixture(scope="session")
def build() -> Callable[..., EnvState]:
    return build_state
