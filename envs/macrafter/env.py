"""MA-Crafter in JAX: EmCoop's (COOP²'s) multi-agent Crafter, pure and jit/vmap-able, never
auto-resetting.

One step, in EmCoop's order (``CooperativeEnv.step``; `docs/macrafter.md` names the source of
each rule, and `envs.macrafter.reference` restates it in plain NumPy):

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

from envs.jitted import JittedEntryPoints, Transition, hold_when_done
from envs.macrafter.balance import Herd, balance, chunk_cells, chunk_of, cow_ceiling
from envs.macrafter.collect import bag_of, collect, resource_tables, run_shares, split_bag
from envs.macrafter.draws import StepDraws, step_draws
from envs.macrafter.events import CrafterEvent, extract_events
from envs.macrafter.rules import NUM_ACTIONS, PICKAXES, SHARE_BASE, Action, Material, Vital
from envs.macrafter.scenario import Scenario, ScenarioError, load_scenario, with_settings
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESULT, CrafterState, blank_state, populate
from envs.macrafter.symbolic import CrafterView, decode
from envs.macrafter.update import World, act_tables, update_objects

_SHARE_RESULT = jnp.asarray([RESULT["none"], RESULT["ok"], RESULT["receiver_down"], RESULT["nothing"]], jnp.int32)
_DO_RESULT = jnp.asarray(
    [RESULT["none"], RESULT["ok"], RESULT["too_few"], RESULT["no_tool"], RESULT["nothing"]], jnp.int32
)


class CrafterEnv(JittedEntryPoints):
    """One scenario. ``step`` draws the cows' moves and the balancing rolls from its key; ``reset``
    generates the world from its key for a generated scenario. Jitted and batched versions are
    cached per instance."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.settings: CrafterSettings = scenario.settings
        self.num_agents = scenario.num_agents
        cfg = scenario.settings
        self._res = resource_tables(cfg)
        self._acts = act_tables(cfg)
        self._cells = chunk_cells(cfg)
        self._ceiling = cow_ceiling(cfg.horizon)
        self._blank = blank_state(cfg, scenario.agent_capacity)
        self._start = None if scenario.generated else start_of(scenario)

    @property
    def name(self) -> str:
        return self.scenario.name

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
        world = generate(key, cfg.width, cfg.height, self.num_agents, cfg.cow_capacity)
        return start_in_jax(self._blank, cfg, world.grid, world.agents, world.cow_pos, world.cow_alive)

    def step(self, key: jax.Array, state: CrafterState, actions: jax.Array) -> Transition:
        """Advance one step; ``actions`` (A,) primitive action ids (padding seats' are ignored)."""
        cfg = self.settings
        draws = step_draws(key, cfg.cow_capacity, self._cells.shape[0])
        nxt = self.advance(state, actions, draws)
        frozen = state.done
        next_state = hold_when_done(frozen, state, nxt)
        gain = jnp.where(frozen, jnp.float32(0), nxt.score - state.score)
        shaped = jnp.broadcast_to(gain, state.active.shape)  # per seat: the team's gain
        return Transition(state=next_state, reward=gain, shaped_reward=shaped, done=next_state.done)

    def advance(self, state: CrafterState, actions: jax.Array, draws: StepDraws) -> CrafterState:
        """The step under given draws (what `step` runs; the equivalence tests call it directly)."""
        cfg = self.settings
        state = jax.tree.map(jnp.asarray, state)
        acts = jnp.asarray(actions, jnp.int32)
        in_world = state.active & ~state.removed
        acts = jnp.where(in_world & (acts >= 0) & (acts < NUM_ACTIONS), acts, int(Action.NOOP))
        shares = run_shares(acts, in_world, bag_of(state.inventory, state.vitals))
        do = in_world & (acts == Action.DO)
        got = collect(
            self._res, cfg, state.grid, state.pos, do, shares.bag, state.achievements, state.cow_pos, state.cow_alive
        )
        inventory, vitals = split_bag(got.bag, state.vitals)
        dies = in_world & ~do & (vitals[:, Vital.HEALTH] <= 0)
        in_world = in_world & ~dies
        crafters = _crafters(acts, in_world, state.sleeping, vitals, cfg.vital_max)
        wd = World(
            grid=got.grid, pos=state.pos, facing=state.facing, in_world=in_world, sleeping=state.sleeping,
            inventory=inventory, vitals=vitals, counters=state.counters, last_health=state.last_health,
            achievements=got.achievements, cow_pos=got.cow_pos, cow_alive=got.cow_alive,
            result=jnp.zeros_like(state.result),
        )  # fmt: skip
        a = state.pos.shape[0]
        order = state.order.at[a:].set(jnp.where(got.cow_alive, state.order[a:], -1))  # eaten cows leave
        wd = update_objects(cfg, self._acts, wd, acts, order, draws, crafters)
        step = state.step + 1
        herd, touched = self._balance(state._replace(order=order), wd, step, draws)
        result = jnp.where(acts >= SHARE_BASE, _SHARE_RESULT[shares.result], wd.result)
        result = jnp.where(do, _DO_RESULT[got.result], result)
        result = jnp.where(dies, RESULT["died"], result)
        return state._replace(
            grid=wd.grid, pos=wd.pos, facing=wd.facing, removed=state.removed | dies, sleeping=wd.sleeping,
            inventory=wd.inventory, vitals=wd.vitals, counters=wd.counters, last_health=wd.last_health,
            achievements=wd.achievements, cow_pos=herd.cow_pos, cow_alive=herd.cow_alive, order=herd.order,
            next_order=herd.next_order, touched=touched, score=state.score + got.gain,
            score_units=state.score_units + got.units, step=step, done=jnp.any(dies) | (step >= cfg.horizon),
            last_action=acts, result=result.astype(jnp.int32), do_pos=state.pos,
            do_tools=shares.bag[:, jnp.asarray([int(p) for p in PICKAXES])] > 0, tgt_res=got.tgt_res,
            share_to=shares.to, share_good=shares.good, share_qty=shares.qty,
        )  # fmt: skip

    def _balance(self, state: CrafterState, wd: World, step: jax.Array, draws: StepDraws) -> tuple[Herd, jax.Array]:
        cfg = self.settings
        touched = _touch(cfg, state.touched, wd.pos, wd.in_world)
        touched = _touch(cfg, touched, wd.cow_pos, wd.cow_alive)
        plants = (wd.grid == Material.PLANT).reshape(-1)  # a plant is an object in EmCoop: it opens its chunk
        ys, xs = jnp.divmod(jnp.arange(plants.shape[0]), wd.grid.shape[1])
        touched = _touch(cfg, touched, jnp.stack([xs, ys], -1), plants)
        herd = Herd(wd.cow_pos, wd.cow_alive, state.order, state.next_order)
        balanced = balance(cfg, self._cells, self._ceiling, herd, wd.grid, touched, wd.pos, state.active, step, draws)
        herd = jax.tree.map(lambda a, b: jnp.where(step % cfg.balance_every == 0, a, b), balanced, herd)
        return herd, touched

    # ---- host-side views ----

    def symbolic(self, state: CrafterState) -> CrafterView:
        """The typed view of one (unbatched) state."""
        return decode(self.settings, state)

    def events(self, before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[CrafterEvent]:
        """What each agent's action did in the step from ``before`` to ``after``."""
        return extract_events(before, actions, after)


def _crafters(acts: jax.Array, in_world: jax.Array, sleeping: jax.Array, vitals: jax.Array, full: int) -> jax.Array:
    """(6,) how many seats press each MAKE_* this step (awake or rested): the paper's crafting quorum."""
    awake = in_world & ~(sleeping & (vitals[:, Vital.ENERGY] < full))
    making = acts - Action.MAKE_WOOD_PICKAXE
    return jnp.stack([jnp.sum(awake & (making == m)) for m in range(6)]).astype(jnp.int32)


def _touch(cfg: CrafterSettings, touched: jax.Array, pos: jax.Array, live: jax.Array) -> jax.Array:
    """Mark the chunks holding each live object."""
    flat = touched.reshape(-1)
    idx = jnp.where(live, chunk_of(cfg, jnp.maximum(pos, 0)), flat.shape[0])
    return flat.at[idx].set(True, mode="drop").reshape(touched.shape)


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
    touched = _touch(cfg, _touch(cfg, s.touched, pos, active), cow_pos, cow_alive)
    return s._replace(
        grid=grid.astype(jnp.int32),
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
