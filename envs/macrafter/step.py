"""One MA-Crafter step under given draws: EmCoop's ``CooperativeEnv.step`` in JAX.

`CrafterStep` holds the settings' rules as static tables and runs the phases in EmCoop's order:
shares, collections (`envs.macrafter.collect`), the removal of a seat at health 0, the object
updates in creation order (`envs.macrafter.update`) and the cow balancing
(`envs.macrafter.balance`). It takes the step's random numbers as `StepDraws`, so the NumPy
reference (`envs.macrafter.reference`) can be fed the very same ones; `CrafterEnv.step` draws them
from its key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from envs.jitted import RunParams
from envs.macrafter.balance import Herd, balance, chunk_of, cow_ceiling
from envs.macrafter.batched import when
from envs.macrafter.collect import bag_of, collect, resource_tables, run_shares, split_bag
from envs.macrafter.draws import StepDraws
from envs.macrafter.rules import NUM_ACTIONS, PICKAXES, SHARE_BASE, Action, Vital
from envs.macrafter.settings import MAX_HORIZON, CrafterSettings
from envs.macrafter.state import RESULT, CrafterState
from envs.macrafter.update import DIRS, World, act_tables, marked, update_objects

_SHARE_RESULT = jnp.asarray([RESULT["none"], RESULT["ok"], RESULT["receiver_down"], RESULT["nothing"]], jnp.int32)
_DO_RESULT = jnp.asarray(
    [RESULT["none"], RESULT["ok"], RESULT["too_few"], RESULT["no_tool"], RESULT["nothing"]], jnp.int32
)


class CrafterStep:
    """The rules of one settings, ready to step any state of its sizes (pure: jit/vmap freely)."""

    def __init__(self, settings: CrafterSettings) -> None:
        self.settings = settings
        self.res = resource_tables(settings)
        self.acts = act_tables(settings)
        # sized for every horizon the settings allow (its first entries are the table of any
        # shorter one), so the horizon is an input of the compiled step, not a table size
        self.ceiling = cow_ceiling(MAX_HORIZON)

    @property
    def num_chunks(self) -> int:
        rows, cols = self.settings.chunks
        return rows * cols

    def advance(self, state: CrafterState, actions: jax.Array, draws: StepDraws) -> CrafterState:
        """The step under given draws (what `step` runs; the equivalence tests call it directly)."""
        return self.advance_with(RunParams.of(self.settings.horizon), state, actions, draws)

    def advance_with(
        self, params: RunParams, state: CrafterState, actions: jax.Array, draws: StepDraws
    ) -> CrafterState:
        """`advance` under ``params`` (the horizon, which `CrafterEnv`'s jitted steps take as an input)."""
        cfg = self.settings
        state = jax.tree.map(jnp.asarray, state)
        acts = jnp.asarray(actions, jnp.int32)
        in_world = state.active & ~state.removed
        # a done state's seats all wait, so its grid comes back as it was (`CrafterEnv.step` holds the rest)
        acts = jnp.where(in_world & ~state.done & (acts >= 0) & (acts < NUM_ACTIONS), acts, int(Action.NOOP))
        shares = run_shares(acts, in_world, bag_of(state.inventory, state.vitals))
        do = in_world & (acts == Action.DO)
        grid = marked(state.grid, state.cow_pos, state.cow_alive, 1)  # unmarked by update_objects
        got = collect(
            self.res, cfg, grid, state.pos, do, shares.bag, state.achievements, state.cow_pos, state.cow_alive
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
        wd = update_objects(cfg, self.acts, wd, acts, order, draws, crafters)
        step = state.step + 1
        herd, touched = self._balance(state._replace(order=order), wd, acts, step, params.horizon, draws)
        result = jnp.where(acts >= SHARE_BASE, _SHARE_RESULT[shares.result], wd.result)
        result = jnp.where(do, _DO_RESULT[got.result], result)
        result = jnp.where(dies, RESULT["died"], result)
        return state._replace(
            grid=wd.grid, pos=wd.pos, facing=wd.facing, removed=state.removed | dies, sleeping=wd.sleeping,
            inventory=wd.inventory, vitals=wd.vitals, counters=wd.counters, last_health=wd.last_health,
            achievements=wd.achievements, cow_pos=herd.cow_pos, cow_alive=herd.cow_alive, order=herd.order,
            next_order=herd.next_order, touched=touched, score=state.score + got.gain,
            score_units=state.score_units + got.units, step=step, done=jnp.any(dies) | (step >= params.horizon),
            last_action=acts, result=result.astype(jnp.int32), do_pos=state.pos,
            do_tools=shares.bag[:, jnp.asarray([int(p) for p in PICKAXES])] > 0, tgt_res=got.tgt_res,
            share_to=shares.to, share_good=shares.good, share_qty=shares.qty,
        )  # fmt: skip

    def _balance(
        self, state: CrafterState, wd: World, acts: jax.Array, step: jax.Array, horizon: jax.Array, draws: StepDraws
    ) -> tuple[Herd, jax.Array]:
        """Mark the chunks objects stand in (a placed plant is an object in EmCoop), then balance
        the cows on balancing steps (skipped otherwise, in a batch too, unless some env balances).
        The daylight's cow ceiling is read at the step, or at the horizon past it (as a table of
        the horizon's length was)."""
        cfg = self.settings
        touched = touch(cfg, state.touched, wd.pos, wd.in_world)
        touched = touch(cfg, touched, wd.cow_pos, wd.cow_alive)
        planted = (acts == Action.PLACE_PLANT) & (wd.result == RESULT["ok"])
        touched = touch(cfg, touched, wd.pos + DIRS[wd.facing], planted)
        herd = Herd(wd.cow_pos, wd.cow_alive, state.order, state.next_order)
        ceiling = self.ceiling

        def run(herd: Herd, x: tuple) -> Herd:
            grid, touched, pos, active, step, draws = x
            return balance(cfg, ceiling, herd, grid, touched, pos, active, step, draws)

        args = (wd.grid, touched, wd.pos, state.active, jnp.minimum(step, horizon), draws)
        herd = when(step % cfg.balance_every == 0, run, herd, args)
        return herd, touched


def _crafters(acts: jax.Array, in_world: jax.Array, sleeping: jax.Array, vitals: jax.Array, full: int) -> jax.Array:
    """(6,) how many seats press each MAKE_* this step (awake or rested): the paper's crafting quorum."""
    awake = in_world & ~(sleeping & (vitals[:, Vital.ENERGY] < full))
    making = acts - Action.MAKE_WOOD_PICKAXE
    return jnp.stack([jnp.sum(awake & (making == m)) for m in range(6)]).astype(jnp.int32)


def touch(cfg: CrafterSettings, touched: jax.Array, pos: jax.Array, live: jax.Array) -> jax.Array:
    """Mark the chunks holding each live object (one write per object, not a compare with every chunk)."""
    idx = jnp.where(live, chunk_of(cfg, jnp.maximum(pos, 0)), touched.size)  # out of range: dropped
    return touched.reshape(-1).at[idx].set(True, mode="drop").reshape(touched.shape)


__all__ = ["CrafterStep", "touch"]
