"""CUBE in JAX: cooperative block pushing, pure and jit/vmap-able, never auto-resetting.

Rules of one step (``docs/cube.md`` has the long version; ``envs/cube/reference.py`` is the same
rules in plain NumPy, and a test holds the two to identical states, rewards and events):

1. Pushes, resolved sequentially: direction by direction (up, down, left, right), block by block
   (block index order), each against the positions left by the attempts before it. The force on
   a block's face is the number of agents standing on the cells adjacent to that face whose action
   is the push direction (a face has w cells, so force <= w). No force: no attempt. Force < w:
   failed (``INSUFFICIENT_FORCE``). The destination w x w area must lie in the grid and hold no
   other block and no agent, else failed (``BLOCKED_DESTINATION``); there are no chained pushes.
   On success the block moves one cell and its pushers step into the cells it left (always free:
   the block just vacated them). A block whose area reaches the goal column (the rightmost) is
   delivered: removed, team score += w.
2. Moves: agents that did not push successfully this step and chose a direction move in agent
   index order against the occupancy already resolved: the target must lie in the grid but not in
   the goal column (agents never enter it, as in COOP²), in no block, and on no agent's current cell (earlier movers at
   their new cells, later agents at their old cells). So two agents never share a cell; swaps fail; a chain of agents
   moving one way advances only where the leader has the lower index; two agents aiming at one free cell: the
   lower index gets it.

Reward: -step_cost each step plus the weights delivered in it. Done when no block is left or at
the horizon; a done state stays frozen (no change, zero reward) until the caller resets it.
The per-step push outcomes (force, agents on the face, outcome per (direction, block), and which
block each agent pushed) live in the state, for events and constraint metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.cube.events import CubeEvent, extract_events
from envs.cube.rules import NO_BLOCK, NUM_DIRECTIONS, VECTORS, CubeAction, PushOutcome
from envs.cube.scenario import Scenario, ScenarioError, load_scenario
from envs.cube.state import CubeEnvState, initial_state
from envs.cube.symbolic import CubeView, decode
from envs.jitted import JittedEntryPoints, RunParams, value_key


class Transition(NamedTuple):
    """One step's outcome. ``reward`` is the team score delta minus the step cost; the shaped
    reward is apart and never in the score: per agent +1 for taking part in a successful push to
    the right (toward the goal), -1 to the left."""

    state: CubeEnvState
    reward: jax.Array  # () float32
    shaped_reward: jax.Array  # (A,) float32
    done: jax.Array  # () bool


BLOCKED = PushOutcome.BLOCKED_DESTINATION


_VECTORS = np.asarray(VECTORS, np.int32)  # (dx, dy) by action


def _vector(action: int | jax.Array) -> tuple[int | jax.Array, int | jax.Array]:
    """(dx, dy) of an action: Python ints for a static action (folds into constants), else a lookup."""
    if isinstance(action, int):
        return VECTORS[action]
    table = jnp.asarray(_VECTORS)
    return table[action, 0], table[action, 1]


class _Work(NamedTuple):
    """The step's working copy: coordinates split into x/y vectors (cheaper under vmap)."""

    ax: jax.Array
    ay: jax.Array
    bx: jax.Array
    by: jax.Array
    active: jax.Array
    gain: jax.Array
    force: jax.Array
    aligned: jax.Array
    outcome: jax.Array
    agent_push: jax.Array
    pushed_ok: jax.Array  # (A,) took part in a successful push: stepped forward, does not move again
    shaped: jax.Array


def _inside(px: jax.Array, py: jax.Array, x: jax.Array, y: jax.Array, w: jax.Array) -> jax.Array:
    """Is cell (px, py) in the w x w square at (x, y)?"""
    return (px >= x) & (px < x + w) & (py >= y) & (py < y + w)


class CubeEnv(JittedEntryPoints):
    """One scenario. Methods are pure (the key is unused: the scenario fixes the start, and the
    rules are deterministic); jitted and batched versions are cached per instance."""

    def __init__(self, scenario: Scenario, unroll: bool = False) -> None:
        self.scenario = scenario
        # Rolled (fori_loop) compiles 5-10x faster, steps one env ~2x faster and a vmapped batch
        # about as fast as the unrolled Python loops (benchmarks/cube_speed.py); both are tested.
        self.unroll = unroll
        self.num_agents = len(scenario.agents)
        self.num_blocks = len(scenario.blocks)
        self._start = initial_state(scenario)

    @property
    def name(self) -> str:
        return self.scenario.name

    def program_key(self) -> str:
        return value_key(self.scenario, self.unroll)

    def state_for(self, scenario: Scenario) -> CubeEnvState:
        """The start state of another scenario that this env's compiled step can run: same grid
        size and capacities (this env's horizon and step cost apply). Stack such states to batch
        different layouts, e.g. many ``random:hard:<seed>`` scenarios, in one ``step_batch``."""
        mine = self.scenario
        for attr in ("grid_size", "agent_capacity", "block_capacity"):
            if getattr(scenario, attr) != getattr(mine, attr):
                raise ScenarioError(
                    f"scenario {scenario.name!r}: {attr} {getattr(scenario, attr)} differs from "
                    f"env {mine.name!r}'s {getattr(mine, attr)}"
                )
        return jax.tree.map(jnp.asarray, initial_state(scenario))

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> CubeEnvState:
        del key
        return jax.tree.map(jnp.asarray, self._start)

    @property
    def run_params(self) -> RunParams:
        return RunParams.of(self.scenario.horizon)

    def step(self, key: jax.Array, state: CubeEnvState, actions: jax.Array) -> Transition:
        """Advance one step; ``actions`` (A,) ints in CubeAction (padding agents' are ignored)."""
        return self.step_with(self.run_params, key, state, actions)

    def step_with(self, params: RunParams, key: jax.Array, state: CubeEnvState, actions: jax.Array) -> Transition:
        """`step` under ``params`` (the horizon: the jitted steps take it as an input)."""
        del key
        actions = jnp.asarray(actions, jnp.int32)
        work = self._pushes(state, actions)
        ax, ay = self._moves(state, actions, work)
        score = state.score + work.gain
        step = state.step + 1
        done = (step >= params.horizon) | ~jnp.any(work.active)
        moved = CubeEnvState(
            agent_pos=jnp.stack([ax, ay], axis=-1),
            agent_active=state.agent_active,
            block_pos=jnp.stack([work.bx, work.by], axis=-1),
            block_weight=state.block_weight,
            block_active=work.active,
            score=score,
            step=step,
            done=done,
            push_force=work.force,
            push_aligned=work.aligned,
            push_outcome=work.outcome,
            agent_push=work.agent_push,
        )
        frozen = state.done
        next_state = jax.tree.map(lambda old, new: jnp.where(frozen, old, new), state, moved)
        reward = work.gain.astype(jnp.float32) - jnp.float32(self.scenario.step_cost)
        return Transition(
            state=next_state,
            reward=jnp.where(frozen, jnp.float32(0), reward),
            shaped_reward=jnp.where(frozen, jnp.float32(0), work.shaped),
            done=next_state.done,
        )

    def _pushes(self, state: CubeEnvState, actions: jax.Array) -> _Work:
        nb, na = self.scenario.block_capacity, self.scenario.agent_capacity
        work = _Work(
            ax=state.agent_pos[:, 0],
            ay=state.agent_pos[:, 1],
            bx=state.block_pos[:, 0],
            by=state.block_pos[:, 1],
            active=state.block_active,
            gain=jnp.int32(0),
            force=jnp.zeros((NUM_DIRECTIONS, nb), jnp.int32),
            aligned=jnp.zeros((NUM_DIRECTIONS, nb), jnp.int32),
            outcome=jnp.zeros((NUM_DIRECTIONS, nb), jnp.int32),
            agent_push=jnp.full((na,), NO_BLOCK, jnp.int32),
            pushed_ok=jnp.zeros((na,), bool),
            shaped=jnp.zeros((na,), jnp.float32),
        )
        if self.unroll:  # Python ints: every index static, one straight-line XLA program
            for d in range(NUM_DIRECTIONS):
                for b in range(nb):
                    work = self._attempt(work, state, actions, d, b)
            return work
        # A rolled loop compiles in a fraction of the time (indices traced, shapes still static).
        body = lambda i, wk: self._attempt(wk, state, actions, i // nb, i % nb)
        return jax.lax.fori_loop(0, NUM_DIRECTIONS * nb, body, work)

    def _attempt(
        self, work: _Work, state: CubeEnvState, actions: jax.Array, d: int | jax.Array, b: int | jax.Array
    ) -> _Work:
        """Try pushing block b in direction d (record index d, action d + 1)."""
        k = self.scenario.grid_size
        dx, dy = _vector(d + 1)
        w, x, y, live = state.block_weight[b], work.bx[b], work.by[b], work.active[b]
        on_face = state.agent_active & live & _inside(work.ax + dx, work.ay + dy, x, y, w)
        pushers = on_face & (actions == d + 1) & (work.agent_push == NO_BLOCK)
        force = jnp.sum(pushers, dtype=jnp.int32)
        nx, ny = x + dx, y + dy
        in_grid = (nx >= 0) & (ny >= 0) & (nx + w <= k) & (ny + w <= k)
        others = work.active & (jnp.arange(work.active.shape[0]) != b)
        ow = state.block_weight
        hits_block = others & (nx < work.bx + ow) & (work.bx < nx + w) & (ny < work.by + ow) & (work.by < ny + w)
        hits_agent = state.agent_active & _inside(work.ax, work.ay, nx, ny, w)
        free = in_grid & ~jnp.any(hits_block) & ~jnp.any(hits_agent)
        tried = force > 0
        ok = tried & (force >= w) & free
        outcome = jnp.where(
            ~tried,
            int(PushOutcome.NONE),
            jnp.where(
                force < w, int(PushOutcome.INSUFFICIENT_FORCE), jnp.where(free, int(PushOutcome.OK), int(BLOCKED))
            ),
        )
        step_agents = pushers & ok
        delivered = ok & (nx + w >= k)
        return work._replace(
            ax=work.ax + step_agents * dx,
            ay=work.ay + step_agents * dy,
            bx=work.bx.at[b].set(jnp.where(ok, nx, x)),
            by=work.by.at[b].set(jnp.where(ok, ny, y)),
            active=work.active.at[b].set(live & ~delivered),
            gain=work.gain + jnp.where(delivered, w, 0),
            force=work.force.at[d, b].set(force),
            aligned=work.aligned.at[d, b].set(jnp.sum(on_face, dtype=jnp.int32)),
            outcome=work.outcome.at[d, b].set(outcome.astype(jnp.int32)),
            agent_push=jnp.where(pushers, b, work.agent_push),
            pushed_ok=work.pushed_ok | step_agents,
            shaped=work.shaped + step_agents.astype(jnp.float32) * dx,
        )

    def _moves(self, state: CubeEnvState, actions: jax.Array, work: _Work) -> tuple[jax.Array, jax.Array]:
        """Agents that did not push successfully move in agent index order against the occupancy
        resolved so far (a failed pusher walks too: into the block it pushed, so it stays unless a
        later push took that block away, COOP²'s rule)."""
        k = self.scenario.grid_size
        w = state.block_weight

        def move(i: int | jax.Array, pos: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            ax, ay = pos
            a = actions[i]
            dx, dy = _vector(a)
            tx, ty = ax[i] + dx, ay[i] + dy
            mover = state.agent_active[i] & (a != CubeAction.STAY) & ~work.pushed_ok[i]
            in_grid = (tx >= 0) & (ty >= 0) & (tx < k - 1) & (ty < k)  # the goal column is closed to agents
            in_block = jnp.any(work.active & _inside(tx, ty, work.bx, work.by, w))
            taken = jnp.any(state.agent_active & (ax == tx) & (ay == ty))
            ok = mover & in_grid & ~in_block & ~taken
            return ax.at[i].set(jnp.where(ok, tx, ax[i])), ay.at[i].set(jnp.where(ok, ty, ay[i]))

        pos = (work.ax, work.ay)
        if self.unroll:
            for i in range(self.scenario.agent_capacity):
                pos = move(i, pos)
            return pos
        return jax.lax.fori_loop(0, self.scenario.agent_capacity, move, pos)

    # ---- host-side views ----

    def symbolic(self, state: CubeEnvState) -> CubeView:
        """The typed view of one (unbatched) state."""
        return decode(state, self.scenario)

    def events(self, before: CubeView, actions: Sequence[int], after: CubeView) -> list[CubeEvent]:
        """What each agent did in the step from ``before`` to ``after`` (pushes, deliveries, moves)."""
        return extract_events(before, actions, after)


def make(scenario: str | Path | Scenario, unroll: bool = False) -> CubeEnv:
    """Build an env by scenario name, ``random:<difficulty>:<seed>``, ``coop2:<seed>``, TOML path or Scenario."""
    return CubeEnv(load_scenario(scenario), unroll=unroll)
