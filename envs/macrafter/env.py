"""MA-Crafter in JAX: EmCoop's (COOP²'s) multi-agent Crafter, pure and jit/vmap-able, never
auto-resetting.

One step, in EmCoop's order (``CooperativeEnv.step``; `docs/macrafter.md` names the source of
each rule, and `envs.macrafter.reference` restates it in plain NumPy):

The step itself is `envs.macrafter.step.CrafterStep`; this module adds the scenario, the reset,
the key and the views. One step, in order:

1. Shares, in seat order: the whole count of one good to another seat, at any distance.
2. Collections (`envs.macrafter.collect`): every ``do`` takes every resource within Manhattan
   ``collect_distance`` whose quorum of agents doing ``do`` hold its exact tool; each of them
   gets one unit, the team scores ``unit_value`` per participant; trees become grass, ores path,
   water stays, a cow is eaten.
3. A seat at health 0 that does not ``do`` is taken out of the world; the episode ends after
   this step (EmCoop truncates on the first removal).
4. Object updates in creation order (`envs.macrafter.update`): seats (sleep lock, move, sleep,
   place, make, the vitals and health clocks, the bag cap) and wandering cows.
5. Every ``balance_every`` steps, cows spawn and leave by chunk (`envs.macrafter.balance`).

Reward: the team score delta. Done at the horizon or at the first removal; a done state stays
frozen until the caller resets it. ``reset`` generates EmCoop's 64x64 world from its key for a
generated scenario (``emcoop``) and returns the fixed start of a hand-made or named map.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from envs.jitted import JittedEntryPoints, RunParams, Transition, hold_when_done, value_key
from envs.macrafter.draws import StepDraws, step_draws
from envs.macrafter.events import CrafterEvent, extract_events
from envs.macrafter.scenario import Scenario, ScenarioError, load_scenario, with_settings
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import CrafterState, blank_state, populate
from envs.macrafter.step import CrafterStep, touch
from envs.macrafter.symbolic import CrafterView, decode


class CrafterEnv(JittedEntryPoints):
    """One scenario. ``step`` draws the cows' moves and the balancing rolls from its key; ``reset``
    generates the world from its key for a generated scenario. Jitted and batched versions are
    cached per instance."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.settings: CrafterSettings = scenario.settings
        self.num_agents = scenario.num_agents
        cfg = scenario.settings
        self.rules = CrafterStep(cfg)
        self._blank = blank_state(cfg, scenario.agent_capacity)
        self._start = None if scenario.generated else start_of(scenario)

    @property
    def name(self) -> str:
        return self.scenario.name

    def program_key(self) -> str:
        return value_key(self.scenario)

    @property
    def horizon(self) -> int:
        return self.settings.horizon

    def state_for(self, scenario: Scenario) -> CrafterState:
        """The start state of another fixed scenario this env's compiled step can run: same
        settings (the team size aside) and agent capacity. Stack such states to batch worlds."""
        mine = self.scenario
        if scenario.agent_capacity != mine.agent_capacity:
            raise ScenarioError(
                f"scenario {scenario.name!r}: agent capacity {scenario.agent_capacity} differs from "
                f"env {mine.name!r}'s {mine.agent_capacity}"
            )
        theirs = scenario.settings.model_copy(update={"num_agents": mine.settings.num_agents})
        if theirs != mine.settings:
            raise ScenarioError(f"scenario {scenario.name!r}: its settings differ from env {mine.name!r}'s")
        if scenario.generated:
            raise ScenarioError(f"scenario {scenario.name!r} is generated at reset; reset with a key instead")
        return jax.tree.map(jnp.asarray, start_of(scenario))

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> CrafterState:
        if self._start is not None:
            return jax.tree.map(jnp.asarray, self._start)
        from envs.macrafter.terrain import generate  # the JAX world generator

        cfg = self.settings
        if self.scenario.seed is not None:  # emcoop:<seed>: one world whatever the key
            key = jax.random.PRNGKey(self.scenario.seed)
        world = generate(key, cfg.width, cfg.height, self.num_agents, cfg.cow_capacity)
        return start_in_jax(self._blank, cfg, world.grid, world.agents, world.cow_pos, world.cow_alive)

    def advance(self, state: CrafterState, actions: jax.Array, draws: StepDraws) -> CrafterState:
        """The step under given draws (what `step` runs; the equivalence tests call it directly)."""
        return self.rules.advance(state, actions, draws)

    @property
    def run_params(self) -> RunParams:
        return RunParams.of(self.settings.horizon)

    def step(self, key: jax.Array, state: CrafterState, actions: jax.Array) -> Transition:
        """Advance one step; ``actions`` (A,) primitive action ids (padding seats' are ignored)."""
        return self.step_with(self.run_params, key, state, actions)

    def step_with(self, params: RunParams, key: jax.Array, state: CrafterState, actions: jax.Array) -> Transition:
        """`step` under ``params`` (the horizon: the jitted steps take it as an input)."""
        cfg = self.settings
        balancing = (state.step + 1) % cfg.balance_every == 0  # as `CrafterStep` balances
        draws = step_draws(key, cfg.cow_capacity, self.rules.num_chunks, balancing)
        nxt = self.rules.advance_with(params, state, actions, draws)
        frozen = state.done
        # the map needs no pass: a done state's grid comes out of `advance` unchanged (its seats all wait)
        held = hold_when_done(frozen, state._replace(grid=None), nxt._replace(grid=None))
        next_state = held._replace(grid=nxt.grid)
        gain = jnp.where(frozen, jnp.float32(0), nxt.score - state.score)
        shaped = jnp.broadcast_to(gain, state.active.shape)  # per seat: the team's gain
        return Transition(state=next_state, reward=gain, shaped_reward=shaped, done=next_state.done)

    # ---- host-side views ----

    def symbolic(self, state: CrafterState) -> CrafterView:
        """The typed view of one (unbatched) state."""
        return decode(self.settings, state)

    def events(self, before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[CrafterEvent]:
        """What each agent's action did in the step from ``before`` to ``after``."""
        return extract_events(before, actions, after)


def start_of(scenario: Scenario) -> CrafterState:
    """The NumPy start state of a fixed scenario (its map, its cows, then its agents)."""
    return populate(
        scenario.settings,
        scenario.agent_capacity,
        scenario.grid_array(),
        np.asarray(scenario.agents, np.int32).reshape(-1, 2),
        np.asarray(scenario.cows, np.int32).reshape(-1, 2),
    )


def start_in_jax(
    blank: CrafterState,
    cfg: CrafterSettings,
    grid: jax.Array,
    agents: jax.Array,
    cow_pos: jax.Array,
    cow_alive: jax.Array,
) -> CrafterState:
    """`populate` for a world generated inside jit: cows first (slot order), then the agents."""
    s = jax.tree.map(jnp.asarray, blank)
    a, n = s.pos.shape[0], agents.shape[0]
    m = cow_alive.sum().astype(jnp.int32)
    cow_order = jnp.where(cow_alive, jnp.cumsum(cow_alive) - 1, -1)
    seat_order = jnp.where(jnp.arange(a) < n, m + jnp.arange(a), -1)
    active = jnp.arange(a) < n
    pos = s.pos.at[:n].set(agents.astype(jnp.int32))
    vitals = jnp.where(active[:, None], cfg.vital_max, s.vitals).astype(jnp.int32)
    touched = touch(cfg, touch(cfg, s.touched, pos, active), cow_pos, cow_alive)
    return s._replace(
        grid=grid.astype(jnp.int8),
        pos=pos,
        active=active,
        vitals=vitals,
        last_health=vitals[:, 0],
        cow_pos=jnp.where(cow_alive[:, None], cow_pos, -1).astype(jnp.int32),
        cow_alive=cow_alive,
        order=jnp.concatenate([seat_order, cow_order]).astype(jnp.int32),
        next_order=m + n,
        touched=touched,
    )


def make(scenario: str | Scenario, horizon: int | None = None) -> CrafterEnv:
    """Build an env by scenario name (``emcoop``, ``medium_3a``), ``random:<difficulty>:<seed>``
    (``@<n>`` for the team size) or Scenario; ``horizon`` overrides the settings' episode length."""
    sc = load_scenario(scenario)
    if horizon is not None:
        if horizon < 1:
            raise ScenarioError(f"horizon {horizon} must be >= 1")
        sc = with_settings(sc, {"horizon": str(horizon)})
    return CrafterEnv(sc)


__all__ = ["CrafterEnv", "make", "start_in_jax", "start_of"]
