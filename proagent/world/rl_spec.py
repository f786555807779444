"""The RL spec: what a world provides so that the one RL program (``proagent.training``) can train,
score, save and play its partners, whatever the world.

The program never imports a world's engine. It asks the world's spec (``Domain.capabilities.rl``) for an
``RLEnv`` of a layout (or scenario) and drives it through five pure functions: reset, step,
observe every seat, observe one seat, and the settings a manifest keeps to rebuild it. Everything
world-specific lives behind them: the observation encoding (per seat, in the dtype the rollout
stores), the team reward the learners train on, the score that is reported, and the per-agent
shaped reward the program anneals to 0 over ``shaping_horizon`` env steps.

Legal actions: ``RLEnv.legal_actions`` gives every seat's mask of legal actions, or ``None`` for a
world where every action is always legal (Overcooked, CUBE). The program masks the logits with it
(``proagent.training.networks.mask_logits``) wherever it samples, scores a log-probability or an entropy:
rollout, PPO loss, evaluation and partners. ``None`` is static: those worlds run with no mask at all,
so their training stays the same bit for bit.

Required of every spec: ``world``, ``layout_name``, ``make_env``, ``network`` (the network family
and its default size for a layout), ``encoders`` and ``ppo_defaults``. Optional, ``None`` where
the world has none (an algorithm that needs one is refused with one line):

- ``symmetries``     Other-Play's symmetry transform of the observations          (``--algo op``)
- ``start_states``   start episodes from given states                             (``--algo state_aug``)
- ``styles``         per-agent event indicators and named play styles             (``--algo human_proxy``)
- ``demonstrations`` recorded (observation, action) samples                       (``--algo bc``)

This module is the lowest layer: it imports nothing from proagent and no JAX at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    import jax
    import numpy as np
    from pydantic import BaseModel

State = Any  # a world's engine state: a pytree of arrays (batched by vmap)
# (state before, joint actions (A,), state after) -> (A, events) float32 indicators, pure
EventIndicators = Callable[[State, "jax.Array", State], "jax.Array"]


class StepOut(NamedTuple):
    """One step of an ``RLEnv``. ``reward`` is what the learners train on (with the shaping);
    ``score`` is what is reported (histories, evaluations, manifests). They differ where a world
    trains on a cost it does not score (CUBE's step cost)."""

    state: State
    reward: jax.Array  # () team reward
    score: jax.Array  # () team score delta
    shaped: jax.Array  # (A,) per-agent shaped reward, annealed by the program
    done: jax.Array  # () the episode ended: the program resets this env


class RLEnv(Protocol):
    """One layout or scenario as the RL program sees it. Every method is pure and jit/vmap friendly;
    an ended episode's state stays frozen (the program resets it)."""

    @property
    def num_agents(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    @property
    def horizon(self) -> int:
        """Steps of an evaluation episode."""
        ...

    def reset(self, key: jax.Array) -> State: ...

    def step(self, key: jax.Array, state: State, actions: jax.Array) -> StepOut: ...

    def observe(self, state: State) -> jax.Array:
        """(A, *obs_shape) every seat's observation, in the dtype the rollout stores (the network
        casts to float32)."""
        ...

    def observe_seat(self, state: State, seat: jax.Array | int) -> jax.Array:
        """(*obs_shape) one seat's observation: what a partner playing that seat sees."""
        ...

    def legal_actions(self, state: State) -> jax.Array | None:
        """(A, num_actions) bool: the actions each seat may take in ``state`` (a turn-based world
        lets the seats not on turn take only their no-op); ``None`` where every action is always
        legal. A world returns ``None`` for every state or for none: the choice is static."""
        ...

    def record(self) -> dict[str, Any]:
        """The env's settings as a manifest keeps them (JSON); ``make_env(layout, record=...)``
        rebuilds the env a checkpoint trained in."""
        ...


class Symmetries(Protocol):
    """Other-Play (Hu et al., 2020): each agent sees the world through a symmetry drawn at every
    reset, so no policy can rely on an arbitrary convention."""

    def permuted(
        self, env: RLEnv, chosen: tuple[int, ...] | None, group: str | None = None
    ) -> tuple[RLEnv, tuple[int, ...]]:
        """(``env`` with permuted observations, the items permuted). ``chosen`` names them in the
        world's terms (``None``: the world's own choice); ``group`` a symmetry family by the world's
        name for it (``None``: the world's default); a ValueError when nothing can be permuted or
        the world has no such family."""
        ...


class StartStates(Protocol):
    """State augmentation: episodes start from states other partners led into."""

    def with_start_states(self, env: RLEnv, states: State) -> RLEnv:
        """``env`` whose resets draw from ``states`` (leaves stacked on a leading axis)."""
        ...


class Style(NamedTuple):
    weights: tuple[float, ...]  # one per event, in ``StyleEvents.events`` order
    record: Mapping[str, Any]  # what a human proxy's manifest says about its style


class StyleEvents(Protocol):
    """Per-agent events a style weighs, for the never-annealed style rewards of human proxies."""

    @property
    def events(self) -> tuple[str, ...]: ...

    def styles(self) -> Mapping[str, Style]: ...

    def indicators(self, env: RLEnv) -> EventIndicators: ...


class Demonstrations(Protocol):
    """(observation, action) samples of recorded play, one per seat and step."""

    obs: np.ndarray  # (N, *obs_shape)
    actions: np.ndarray  # (N,) int

    def __len__(self) -> int: ...


class DemoSource(Protocol):
    """Recorded play of a world, for behaviour cloning."""

    def split(
        self, env: RLEnv, layout: str, max_stay_run: int | None, val_fraction: float
    ) -> tuple[Demonstrations, Demonstrations]:
        """(train, validation) samples of ``layout``; ``max_stay_run`` idle actions kept per idle
        run (None: all); the last ``val_fraction`` of each recording by time is held out. A
        ValueError names the layouts with data when ``layout`` has none."""
        ...

    def provenance(self, layout: str) -> dict[str, Any]:
        """Where the samples come from, as the manifest records it."""
        ...


class RLSpec(Protocol):
    """What one world gives the RL program (see the module docstring)."""

    @property
    def world(self) -> str:
        """The domain's name: its partners live in partners/<world>/<layout>/<algo>/."""
        ...

    @property
    def encoders(self) -> tuple[str, ...]:
        """``--encoder`` choices besides "auto"."""
        ...

    @property
    def ppo_defaults(self) -> Mapping[str, int | float]:
        """The world's PPO recipe: overrides of the program's defaults (``PPOConfig`` fields)."""
        ...

    @property
    def symmetries(self) -> Symmetries | None: ...

    @property
    def start_states(self) -> StartStates | None: ...

    @property
    def styles(self) -> StyleEvents | None: ...

    @property
    def demonstrations(self) -> DemoSource | None: ...

    def layout_name(self, layout: str) -> str:
        """The canonical name of a layout (or scenario); a ValueError naming the known ones."""
        ...

    def make_env(self, layout: str, horizon: int | None = None, record: Mapping[str, Any] | None = None) -> RLEnv:
        """The env of ``layout`` under its own settings, or those a manifest recorded
        (``record``); ``horizon`` overrides the episode length where the world allows it."""
        ...

    def network(self, encoder: str, layout: str, gpu: bool) -> BaseModel:
        """The network config (a family of ``proagent.training.networks``) for ``layout``:
        ``encoder`` "auto" picks by layout and backend; a ValueError for one the world lacks."""
        ...
