"""Overcooked's RL spec (``OvercookedDomain.capabilities.rl``): what the one RL program needs of a kitchen.

- the env: ``OvercookedRLEnv`` wraps an ``OvercookedEnv``; the team reward is the score (soups
  delivered), the shaped reward is the engine's, and observations are stored as uint8 (the engine's
  int32 grid holds small counts and timers, < 256: the rollout and the minibatch shuffles move 4x
  fewer bytes, and the network casts to float32 anyway);
- the network: the grid family (``proagent.training.networks``), the V2 paper's recurrent network
  on a partial-view layout;
- Other-Play's symmetry: recipe ingredients permuted per agent at every reset (the engine's
  ``op_ingredients``); state augmentation: the engine's ``start_states``;
- human proxies' style events (``style_events``) and behaviour cloning's human data (``human_data``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp

from envs import Action, Dynamics, EnvState, KitchenLayout, OvercookedEnv, get_layout, make_layout_env
from envs.overcooked.presets import layout_dynamics
from proagent.world.rl_spec import EventIndicators, RLEnv, StepOut, Style


def check_observation_range(env: OvercookedEnv) -> None:
    if env.dynamics.cook_time > 255:
        raise ValueError(f"cook_time {env.dynamics.cook_time} does not fit the uint8 observations (max 255)")


@dataclass(frozen=True)
class OvercookedRLEnv:
    """A kitchen as the RL program sees it (``proagent.world.rl_spec.RLEnv``)."""

    env: OvercookedEnv
    num_actions: int = len(Action)

    def __post_init__(self) -> None:
        check_observation_range(self.env)

    @property
    def num_agents(self) -> int:
        return self.env.num_agents

    @property
    def horizon(self) -> int:
        return self.env.dynamics.horizon

    def reset(self, key: jax.Array) -> EnvState:
        return self.env.reset(key)

    def step(self, key: jax.Array, state: EnvState, actions: jax.Array) -> StepOut:
        tr = self.env.step(key, state, actions)
        return StepOut(state=tr.state, reward=tr.reward, score=tr.reward, shaped=tr.shaped_reward, done=tr.done)

    def observe(self, state: EnvState) -> jax.Array:
        return self.env.observe(state).astype(jnp.uint8)

    def observe_seat(self, state: EnvState, seat: jax.Array | int) -> jax.Array:
        return self.observe(state)[seat]

    def legal_actions(self, state: Any) -> None:
        """Every action is legal in every state: no mask."""

    def record(self) -> dict[str, Any]:
        return self.env.dynamics.model_dump()


def rl_env(env: OvercookedEnv) -> OvercookedRLEnv:
    """``env`` as the RL program drives it."""
    return OvercookedRLEnv(env)


def partner_env(layout: KitchenLayout, record: Mapping[str, Any]) -> OvercookedRLEnv:
    """The env a trained partner observes ``layout`` with: the rules it trained under (its manifest's
    ``dynamics``: a V2 partner's view radius), whatever the rules of the game it plays."""
    return OvercookedRLEnv(OvercookedEnv(layout, Dynamics(**record)))


def recipe_ingredients(layout: KitchenLayout) -> tuple[int, ...]:
    """The ingredients any recipe of ``layout`` uses: the paper's symmetry class on its layouts (two
    recipes of three identical ingredients each, permuted while every other ingredient stays)."""
    return tuple(sorted({i for recipe in layout.recipes for i in recipe}))


class IngredientSymmetry:
    """Other-Play as the OvercookedV2 paper applies it (App. C.1.2): each agent sees the recipe
    ingredients permuted, one permutation drawn per agent at every reset; JaxMARL's engine permutes
    every ingredient channel of the observation (held items, pots, dishes, piles, indicators)."""

    def permuted(
        self, env: RLEnv, chosen: tuple[int, ...] | None, group: str | None = None
    ) -> tuple[RLEnv, tuple[int, ...]]:
        if group not in (None, "ingredients"):
            raise ValueError(f"other-play on overcooked: no symmetry group {group!r}; the one group: ingredients")
        kitchen = _unwrap(env)
        layout = kitchen.layout
        items = chosen if chosen is not None else recipe_ingredients(layout)
        if len(items) < 2:
            raise ValueError(
                f"other-play on {layout.name}: needs at least two ingredients to permute, got {list(items)} "
                "(set them with --algo-set permute='[0,1]')"
            )
        if max(items) >= layout.num_ingredients:
            raise ValueError(f"other-play on {layout.name}: the layout has {layout.num_ingredients} ingredients")
        permuted = OvercookedEnv(layout, kitchen.dynamics, op_ingredients=items)
        return OvercookedRLEnv(permuted), tuple(permuted.op_ingredients)


class KitchenStartStates:
    """State augmentation through the engine: resets draw from the given states (step counter 0)."""

    def with_start_states(self, env: RLEnv, states: EnvState) -> RLEnv:
        kitchen = _unwrap(env)
        return OvercookedRLEnv(OvercookedEnv(kitchen.layout, kitchen.dynamics, start_states=jax.device_put(states)))


class KitchenStyles:
    """The named styles of ``knowledge/overcooked/human_proxy_styles.toml`` over ``STYLE_EVENTS``."""

    @property
    def events(self) -> tuple[str, ...]:
        from proagent.domains.overcooked.style_events import STYLE_EVENTS

        return STYLE_EVENTS

    def styles(self) -> Mapping[str, Style]:
        from proagent.domains.overcooked.style_events import load_styles

        styles = load_styles()
        return {
            name: Style(tuple(float(w) for w in style.vector()), style.model_dump(mode="json"))
            for name, style in styles.items()
        }

    def indicators(self, env: RLEnv) -> EventIndicators:
        from proagent.domains.overcooked.style_events import event_indicators

        kitchen = _unwrap(env)
        return lambda before, joint, after: event_indicators(kitchen, before, joint, after)


class HumanTrials:
    """The shipped human-human trials (``data/human``): one per classic layout."""

    def split(self, env: RLEnv, layout: str, max_stay_run: int | None, val_fraction: float):
        from proagent.domains.overcooked.human_data import bc_dataset

        return bc_dataset(_unwrap(env), max_stay_run, val_fraction)

    def provenance(self, layout: str) -> dict[str, Any]:
        from proagent.domains.overcooked.human_data import HUMAN_DATA, PROVENANCE, load_trials
        from proagent.paths import PROJECT_ROOT

        trials = load_trials(layout, HUMAN_DATA)
        summary = [
            {"trial_id": t.trial_id, "source_layout": t.source_layout, "steps": len(t.steps), "score": t.score}
            for t in trials
        ]
        return {"provenance": PROVENANCE, "file": str(HUMAN_DATA.relative_to(PROJECT_ROOT)), "trials": summary}


def _unwrap(env: RLEnv) -> OvercookedEnv:
    if not isinstance(env, OvercookedRLEnv):
        raise TypeError(f"an Overcooked hook got another world's env ({type(env).__name__})")
    return env.env


@dataclass(frozen=True)
class OvercookedRLSpec:
    """``proagent.world.rl_spec.RLSpec`` for Overcooked (classic and V2 kitchens)."""

    world: str = "overcooked"
    encoders: tuple[str, ...] = ("cnn", "fast", "pointwise")
    ppo_defaults: Mapping[str, int | float] = field(default_factory=dict)  # the program's defaults are this world's
    symmetries: IngredientSymmetry | None = field(default_factory=IngredientSymmetry)
    start_states: KitchenStartStates | None = field(default_factory=KitchenStartStates)
    styles: KitchenStyles | None = field(default_factory=KitchenStyles)
    demonstrations: HumanTrials | None = field(default_factory=HumanTrials)

    def layout_name(self, layout: str) -> str:
        return get_layout(layout).name

    def make_env(
        self, layout: str, horizon: int | None = None, record: Mapping[str, Any] | None = None
    ) -> OvercookedRLEnv:
        """The layout's own settings (the V2 paper's for its coordination layouts), or ``record``."""
        if record is None:
            return OvercookedRLEnv(make_layout_env(layout, 400 if horizon is None else horizon))
        dynamics = dict(record) if horizon is None else {**record, "horizon": horizon}
        return OvercookedRLEnv(OvercookedEnv(get_layout(layout), Dynamics(**dynamics)))

    def network(self, encoder: str, layout: str, gpu: bool):
        """auto: the paper's CNN on a GPU, the fast 1x1 encoder on CPU (~10x faster there); on a
        partial-view (V2) layout, and for ``pointwise``, the V2 paper's recurrent network (its
        CPU-sized sibling on CPU)."""
        from proagent.training.networks import V2_CPU_NETWORK, V2_PAPER_NETWORK, NetworkConfig

        if encoder not in ("auto", *self.encoders):
            raise ValueError(f"overcooked has no encoder {encoder!r}; choices: auto, {', '.join(self.encoders)}")
        partial_view = layout_dynamics(layout).get("agent_view_size") is not None
        if encoder == "pointwise" or (encoder == "auto" and partial_view):
            return V2_PAPER_NETWORK if gpu else V2_CPU_NETWORK
        return NetworkConfig(encoder=("cnn" if gpu else "fast") if encoder == "auto" else encoder)


OVERCOOKED_RL = OvercookedRLSpec()
