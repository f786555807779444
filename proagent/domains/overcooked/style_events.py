"""Per-agent event indicators in pure JAX, for style-weighted ("human proxy") PPO rewards.

JaxMARL's shaped reward uses fixed module constants. A human-proxy population instead needs its own
weights per event (prefer delivering, prefer fetching onions, avoid the pot, ...), so this module
derives, from ``(state, actions, next_state)`` of one step, which agent did which of
``STYLE_EVENTS``: ``event_indicators(env, state, actions, next_state) -> (agents, events)`` float32.
It is pure and jit/vmap friendly (it reads the engine's bitfields with jnp), and it agrees exactly
with the host-side ``envs.extract_events`` on every event both detect (see
``tests/training/test_style_events.py``). A style reward is then ``indicators @ weights``
(``style_reward``), with weights from a :class:`StyleWeights`, e.g. the named styles of
``knowledge/overcooked/human_proxy_styles.toml`` (``load_styles``).

How it works: the engine moves agents first, then resolves interactions in agent order; an agent
that interacts does not move, so its facing cell is read from ``state``; what it held before and
after is ``state.agents.inventory`` and ``next_state.agents.inventory``. An already finished
episode (``state.done``) yields no events.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from envs import Action, EnvState, OvercookedEnv
from envs.overcooked.engine import INDICATOR_ACTIVATION_TIME, DynamicObject, StaticObject
from proagent.paths import KNOWLEDGE_DIR

STYLE_EVENTS: tuple[str, ...] = (
    "pickup_onion",  # an onion from a dispenser
    "pickup_tomato",  # a tomato from a dispenser (V2 layouts)
    "pickup_dish",  # an empty dish from the dish dispenser
    "put_onion_in_pot",
    "put_tomato_in_pot",
    "start_cooking",  # the ingredient that filled the pot (auto-cook) / the start press (explicit cook)
    "pickup_soup",  # a held dish filled from a ready pot
    "deliver",  # a soup delivered at a serving spot (right recipe or not)
    "place_on_counter",  # anything put down on a counter
    "pickup_from_counter",  # anything taken from a counter
    "activate_indicator",  # a button recipe indicator pressed (V2 layouts)
    "interact_pot",  # INTERACT while facing a pot, whatever it did (no envs.extract_events equivalent)
)
EVENT_INDEX: dict[str, int] = {name: i for i, name in enumerate(STYLE_EVENTS)}

_DIRECTIONS = jnp.array([(0, -1), (0, 1), (1, 0), (-1, 0)], dtype=jnp.int32)  # UP, DOWN, RIGHT, LEFT (x, y)
_ONION = int(DynamicObject.BASE_INGREDIENT)  # ingredient 0
_TOMATO = int(DynamicObject.BASE_INGREDIENT) << 2  # ingredient 1


def _pot_idle(cell: jax.Array) -> jax.Array:
    """cell (..., 3) of a pot: neither cooking (timer > 0) nor holding a cooked soup."""
    return (cell[..., 2] == 0) & ((cell[..., 1] & DynamicObject.COOKED) == 0)


def event_indicators(env: OvercookedEnv, state: EnvState, actions: jax.Array, next_state: EnvState) -> jax.Array:
    """(agents, len(STYLE_EVENTS)) float32: 1.0 where that agent did that event in this step.

    ``actions`` are our ``Action`` indices (as given to ``env.step``) of one unbatched step; vmap
    over a batch. ``env`` contributes only static facts (the pot rule: auto-cook or explicit)."""
    agents, after = state.agents, next_state.agents
    interact = (actions == Action.INTERACT) & ~state.done
    vec = _DIRECTIONS[agents.dir]
    h, w = state.grid.shape[:2]
    fx = jnp.clip(agents.pos.x + vec[:, 0], 0, w - 1)
    fy = jnp.clip(agents.pos.y + vec[:, 1], 0, h - 1)
    tile = state.grid[fy, fx, 0]
    held, now = agents.inventory, after.inventory
    empty_before, empty_after = held == 0, now == 0
    picked_up = interact & empty_before & ~empty_after
    put_down = interact & ~empty_before & empty_after
    is_ingredient = ((held >> 2) != 0) & ((held & DynamicObject.PLATE) == 0)

    at_pot = tile == StaticObject.POT
    put_in_pot = put_down & at_pot & is_ingredient
    pot_before, pot_after = state.grid[fy, fx], next_state.grid[fy, fx]
    pot_started = at_pot & _pot_idle(pot_before) & ~_pot_idle(pot_after)
    same_pot = (fx[:, None] == fx[None, :]) & (fy[:, None] == fy[None, :])
    n = held.shape[0]
    later = jnp.arange(n)[None, :] > jnp.arange(n)[:, None]  # [i, j]: j acts after i
    earlier = later.T
    if env.dynamics.auto_cook:
        # the filler started it; two fillers of one pot in one step: the later one filled it
        could_start = put_in_pot
        beaten = jnp.any(same_pot & later & put_in_pot[None, :], axis=1)
    else:
        # an empty-handed press; two presses on one pot in one step: the first in engine order
        could_start = interact & empty_before & at_pot
        beaten = jnp.any(same_pot & earlier & could_start[None, :], axis=1)
    start_cooking = could_start & pot_started & ~beaten

    fresh = INDICATOR_ACTIVATION_TIME - 1
    at_button = tile == StaticObject.BUTTON_RECIPE_INDICATOR
    activated = interact & at_button & empty_before & (next_state.grid[fy, fx, 2] == fresh)

    events = {
        "pickup_onion": picked_up & (tile == StaticObject.INGREDIENT_PILE_BASE),
        "pickup_tomato": picked_up & (tile == StaticObject.INGREDIENT_PILE_BASE + 1),
        "pickup_dish": picked_up & (tile == StaticObject.PLATE_PILE),
        "put_onion_in_pot": put_in_pot & (held == _ONION),
        "put_tomato_in_pot": put_in_pot & (held == _TOMATO),
        "start_cooking": start_cooking,
        "pickup_soup": interact
        & at_pot
        & (held == DynamicObject.PLATE)
        & ((now & DynamicObject.COOKED) != 0)
        & ((now & DynamicObject.PLATE) != 0),
        "deliver": put_down & (tile == StaticObject.GOAL) & ((held & DynamicObject.COOKED) != 0),
        "place_on_counter": put_down & (tile == StaticObject.WALL),
        "pickup_from_counter": picked_up & (tile == StaticObject.WALL),
        "activate_indicator": activated,
        "interact_pot": interact & at_pot,
    }
    return jnp.stack([events[name] for name in STYLE_EVENTS], axis=-1).astype(jnp.float32)


def style_reward(indicators: jax.Array, weights: jax.Array) -> jax.Array:
    """(..., agents, events) x (events,) -> (..., agents) per-agent style reward."""
    return indicators @ weights


class StyleWeights(BaseModel):
    """A named play style: a weight per event (events not named weigh 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    weights: dict[str, float] = Field(default_factory=dict)

    @field_validator("weights")
    @classmethod
    def _known_events(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(weights) - set(STYLE_EVENTS))
        if unknown:
            raise ValueError(f"unknown style events {unknown}; known: {list(STYLE_EVENTS)}")
        return weights

    def vector(self) -> np.ndarray:
        """(len(STYLE_EVENTS),) float32, in STYLE_EVENTS order."""
        return np.array([self.weights.get(name, 0.0) for name in STYLE_EVENTS], dtype=np.float32)


STYLES_FILE = KNOWLEDGE_DIR / "overcooked" / "human_proxy_styles.toml"


def load_styles(path: Path = STYLES_FILE) -> dict[str, StyleWeights]:
    """The named styles of a TOML file: one ``[styles.<name>]`` table each, with ``description``
    and a ``weights`` table of event -> weight."""
    data = tomllib.loads(path.read_text())
    tables: Mapping[str, dict] = data.get("styles", {})
    return {name: StyleWeights(name=name, **table) for name, table in tables.items()}
