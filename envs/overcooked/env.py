"""Overcooked as a pure, jit-friendly environment over JaxMARL's OvercookedV2 engine.

We do not rewrite the dynamics. We add what the engine leaves to its callers: our action
vocabulary, the classic dynamics options (cook time, soup reward, auto-cook), a step that never
auto-resets (an episode ends cleanly at the horizon and stays ended, which makes batches of
environments with per-env done handling trivial), and the score kept apart from shaped rewards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import NamedTuple

import jax
import jax.numpy as jnp
from pydantic import BaseModel, ConfigDict, Field

from envs.jitted import JittedEntryPoints, RunParams, value_key
from envs.overcooked import engine
from envs.overcooked.actions import TO_ENGINE
from envs.overcooked.engine import DynamicObject, StaticObject
from envs.overcooked.events import Event, extract_events
from envs.overcooked.layouts import KitchenLayout, get_layout
from envs.overcooked.symbolic import KitchenMap, KitchenState, decode

EnvState = engine.State


class Dynamics(BaseModel):
    """Game rules; the defaults are the classic (legacy overcooked_ai) ones ProAgent was tested on."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # a NaN reward would score NaN

    horizon: int = Field(400, ge=1, description="steps per episode")
    cook_time: int = Field(20, ge=1, le=100_000, description="steps a full pot cooks (at most an episode's bound)")
    soup_reward: float = Field(20.0, ge=-1e6, le=1e6, description="points per correctly delivered soup")
    auto_cook: bool = Field(True, description="a pot starts cooking by itself at 3 ingredients")
    agent_view_size: int | None = Field(
        None, ge=1, le=64, description="partial observation radius (V2); None = full grid"
    )
    wrong_soup_penalty: bool = Field(False, description="a wrong recipe costs the soup reward")
    new_recipe_on_delivery: bool = Field(False, description="V2: sample a new recipe after each correct delivery")
    random_agent_positions: bool = Field(False, description="V2: chefs start at random free cells (within their room)")
    indicate_successful_delivery: bool = Field(False, description="V2: serving spots signal a correct delivery")


class Transition(NamedTuple):
    """One step's outcome. ``reward`` is the score delta: soup deliveries, plus the engine's cost of
    pressing a V2 button indicator. Shaped rewards are apart and never in the score."""

    state: EnvState
    reward: jax.Array  # () float, sparse team score delta
    shaped_reward: jax.Array  # (num_agents,) float, engine's shaped rewards, never in the score
    done: jax.Array  # () bool, horizon reached (Overcooked only truncates, it never terminates)


class OvercookedEnv(JittedEntryPoints):
    """One kitchen with fixed dynamics. Methods are pure; jitted versions are cached per instance.

    Two training-only options go straight to the engine (JaxMARL implements both): with
    ``op_ingredients`` each agent sees those ingredients permuted, a permutation drawn per agent at
    every reset (Other-Play's symmetry class in the V2 paper, App. C.1.2); with ``start_states``
    (states stacked on a leading axis) every reset starts from one of them drawn at random, its
    step counter at 0 (state augmentation, the V2 paper's Algorithm 1). They are not game rules,
    so they are not ``Dynamics``: a trained agent plays and is scored without them.
    """

    def __init__(
        self,
        layout: KitchenLayout,
        dynamics: Dynamics | None = None,
        op_ingredients: tuple[int, ...] = (),
        start_states: EnvState | None = None,
    ) -> None:
        self.layout = layout
        self.dynamics = dynamics or Dynamics()
        self.op_ingredients = tuple(op_ingredients)
        self.augmented = start_states is not None
        self.num_agents = len(layout.starts)
        self.engine = engine.OvercookedV2(
            layout=engine.Layout(
                agent_positions=list(layout.starts),
                static_objects=layout.tiles,
                num_ingredients=max(layout.num_ingredients, 1),
                possible_recipes=[list(r) for r in layout.recipes],
            ),
            max_steps=self.dynamics.horizon,
            agent_view_size=self.dynamics.agent_view_size,
            start_cooking_interaction=not self.dynamics.auto_cook,
            negative_rewards=self.dynamics.wrong_soup_penalty,
            sample_recipe_on_delivery=self.dynamics.new_recipe_on_delivery,
            random_agent_positions=self.dynamics.random_agent_positions,
            indicate_successful_delivery=self.dynamics.indicate_successful_delivery,
            op_ingredient_permutations=list(self.op_ingredients) or None,
            initial_state_buffer=start_states,
        )

    def program_key(self) -> str | None:
        """The kitchen, its dynamics and the Other-Play ingredients; an env resetting to given start
        states (training only) is equal only to itself."""
        return None if self.augmented else value_key(self.layout, self.dynamics, self.op_ingredients)

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> EnvState:
        _, state = self.engine.reset(key)
        return state

    @property
    def run_params(self) -> RunParams:
        return RunParams.of(self.dynamics.horizon)

    def step(self, key: jax.Array, state: EnvState, actions: jax.Array) -> Transition:
        """Advance one step; a finished episode stays finished (no reward, no change)."""
        return self.step_with(self.run_params, key, state, actions)

    def step_with(self, params: RunParams, key: jax.Array, state: EnvState, actions: jax.Array) -> Transition:
        """`step` under ``params`` (the horizon: the jitted steps take it as an input)."""
        moved, reward, shaped = self.engine.step_agents(key, state, TO_ENGINE[actions])
        moved = self._apply_cook_time(state, moved)
        reward = reward + self._soup_reward_adjustment(state, actions, moved)
        step = state.step + 1
        moved = moved.replace(step=step, done=step >= params.horizon)
        frozen = state.done
        next_state = jax.tree.map(lambda old, new: jnp.where(frozen, old, new), state, moved)
        zero = jnp.zeros_like(shaped)
        return Transition(
            state=next_state,
            reward=jnp.where(frozen, 0.0, reward).astype(jnp.float32),
            shaped_reward=jnp.where(frozen, zero, shaped).astype(jnp.float32),
            done=next_state.done,
        )

    def observe(self, state: EnvState) -> jax.Array:
        """Per-agent grid observations (the engine's default encoding), shape (agents, H, W, C);
        with ``agent_view_size`` each agent sees a (2v+1)-square window around itself."""
        if self.dynamics.agent_view_size is None:
            return self.engine.get_obs_default(state)
        obs = self.engine.get_obs(state)
        return jnp.stack([obs[f"agent_{i}"] for i in range(self.num_agents)])

    def _apply_cook_time(self, before: EnvState, after: EnvState) -> EnvState:
        if self.dynamics.cook_time == engine.POT_COOK_TIME:
            return after
        # The engine starts a pot at POT_COOK_TIME and ticks it once in the same step.
        is_pot = after.grid[:, :, 0] == StaticObject.POT
        started = is_pot & (before.grid[:, :, 2] == 0) & (after.grid[:, :, 2] == engine.POT_COOK_TIME - 1)
        ticks = self.dynamics.cook_time - 1
        timer = jnp.where(started, ticks, after.grid[:, :, 2])
        items = after.grid[:, :, 1]
        if ticks == 0:
            items = jnp.where(started, items | DynamicObject.COOKED, items)
        grid = after.grid.at[:, :, 2].set(timer).at[:, :, 1].set(items)
        return after.replace(grid=grid)

    def _soup_reward_adjustment(self, before: EnvState, actions: jax.Array, after: EnvState) -> jax.Array:
        """Engine pays DELIVERY_REWARD a soup; rescale to ``soup_reward`` without touching the engine."""
        extra = self.dynamics.soup_reward - engine.DELIVERY_REWARD
        if extra == 0:
            return jnp.float32(0.0)
        agents = before.agents
        vec = jnp.array([(0, -1), (0, 1), (1, 0), (-1, 0)])[agents.dir]
        fx, fy = agents.pos.x + vec[:, 0], agents.pos.y + vec[:, 1]
        faces_goal = before.grid[fy, fx, 0] == StaticObject.GOAL
        held = agents.inventory
        delivered = (actions == 5) & faces_goal & ((held & DynamicObject.COOKED) != 0)
        correct = held == (before.recipe | DynamicObject.PLATE | DynamicObject.COOKED)
        paid = jnp.where(correct, 1.0, -1.0 if self.dynamics.wrong_soup_penalty else 0.0)
        return jnp.sum(delivered * paid) * extra

    # ---- host-side views ----

    @property
    def name(self) -> str:
        """The layout's canonical name (the domain interface names an env by it)."""
        return self.layout.name

    @cached_property
    def kitchen_map(self) -> KitchenMap:
        return KitchenMap(self.layout)

    def symbolic(self, state: EnvState) -> KitchenState:
        """The typed view of one (unbatched) state."""
        return decode(state, self.kitchen_map, self.dynamics.horizon)

    def events(self, before: KitchenState, actions: Sequence[int], after: KitchenState) -> list[Event]:
        """What each agent's interaction did in this step (knows whether pots cook by themselves)."""
        return extract_events(before, actions, after, auto_cook=self.dynamics.auto_cook)

    # ---- jitted and batched observations (reset/step: JittedEntryPoints) ----

    @cached_property
    def jit_observe(self):
        return jax.jit(self.observe)

    @cached_property
    def observe_batch(self):
        return jax.jit(jax.vmap(self.observe))


def make(layout: str | KitchenLayout, dynamics: Dynamics | None = None) -> OvercookedEnv:
    """Build an env by layout name, file path or KitchenLayout."""
    kitchen = get_layout(layout) if isinstance(layout, str) else layout
    return OvercookedEnv(kitchen, dynamics)
