"""MA-Crafter in JAX: N agents in a Crafter world with EmCoop's cooperative rules, pure and
jit/vmap-able, never auto-resetting.

One step, in order (``docs/macrafter.md`` has the long version; every number is a setting):

1. A sleeping agent that takes any action other than NOOP or SLEEP wakes and acts; otherwise a
   sleeper does nothing. Down agents (health 0) and padding seats act as NOOP.
2. Shares are resolved against the start of the step (the giver holds one, the receiver is
   another live seat within ``share_distance``) and transferred at the end of it.
3. Moves, in seat order: the agent turns to face the way, then steps onto the cell if it is
   walkable (grass, sand, path) and no live agent holds it (earlier movers at their new cells).
4. DO acts on the first non-walkable cell along the facing line within ``collect_distance``:
   the agents acting on one resource cell are its participants; with at least the resource's
   quorum of them holding its tool the cell is collected, each capable participant gets one unit,
   the team scores ``unit_value`` once, stone/coal/iron/diamond become path (trees stay);
   else the attempt fails (too_few when fewer participants than the quorum, else no_tool). DO
   on water drinks, on a cow or a ripe plant eats it, on grass may find a sapling.
5. PLACE_* on the faced cell, paid from the placer's bag (a furnace needs a table nearby).
6. MAKE_*: the agents making the same item with its stations within ``station_radius``; with the
   recipe's quorum of them and a leader holding the ingredients, the leader pays and everyone
   in it gets the item.
7. Hostile creatures (only with ``hostile_creatures`` on; `envs.macrafter.creatures`): a DO on a
   faced creature hits it instead (step 4), creatures block moves and placing; after the agents
   acted they move, attack (the health lost wakes a sleeper) and spawn.
8. Vitals decay and regenerate, sleepers regain energy (and wake when full), saplings ripen;
   health 0 puts the agent down for the episode.

Reward: the team score delta. Done at the horizon or when every agent is down; a done state stays
frozen until the caller resets it. Each seat's result and its collection/craft attempt ride in
the state for the typed view (`decode`) and the events.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from envs.jitted import JittedEntryPoints, Transition, hold_when_done
from envs.macrafter.creatures import Creatures, after_agents, engage
from envs.macrafter.dynamics import Shares, apply_shares, move, resolve_shares, tables
from envs.macrafter.events import CrafterEvent, extract_events
from envs.macrafter.phases import Acted, collect_and_do, craft, place, vitals_and_plants
from envs.macrafter.rules import NUM_ACTIONS, Action, Vital
from envs.macrafter.scenario import Scenario, ScenarioError, load_scenario, with_settings
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESULT, CrafterState, creature_kinds, initial_state
from envs.macrafter.symbolic import CrafterView, decode


class CrafterEnv(JittedEntryPoints):
    """One scenario. ``reset`` ignores its key (the scenario fixes the world); ``step`` uses its
    key for saplings found on grass (and, with hostile creatures on, for their moves and spawns). Jitted and batched versions are cached per instance."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.settings: CrafterSettings = scenario.settings
        self.num_agents = scenario.num_agents
        self._tables = tables(scenario.settings)
        self._start = initial_state(scenario)
        self._hostile = len(creature_kinds(scenario.settings)) > 0

    @property
    def name(self) -> str:
        return self.scenario.name

    @property
    def horizon(self) -> int:
        return self.settings.horizon

    def state_for(self, scenario: Scenario) -> CrafterState:
        """The start state of another scenario this env's compiled step can run: same settings (the
        team size aside) and agent capacity. Stack such states to batch different worlds
        (``random:hard:<seed>``...); decode them with their own scenario's settings."""
        mine = self.scenario
        if scenario.agent_capacity != mine.agent_capacity:
            raise ScenarioError(
                f"scenario {scenario.name!r}: agent capacity {scenario.agent_capacity} differs from "
                f"env {mine.name!r}'s {mine.agent_capacity}"
            )
        theirs = scenario.settings.model_copy(update={"num_agents": mine.settings.num_agents})
        if theirs != mine.settings:
            raise ScenarioError(f"scenario {scenario.name!r}: its settings differ from env {mine.name!r}'s")
        return jax.tree.map(jnp.asarray, initial_state(scenario))

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> CrafterState:
        del key
        return jax.tree.map(jnp.asarray, self._start)

    def step(self, key: jax.Array, state: CrafterState, actions: jax.Array) -> Transition:
        """Advance one step; ``actions`` (A,) primitive action ids (padding seats' are ignored)."""
        t, cfg = self._tables, self.settings
        acts = jnp.asarray(actions, jnp.int32)
        live = state.active & state.alive
        acts = jnp.where(live & (acts >= 0) & (acts < NUM_ACTIONS), acts, int(Action.NOOP))
        wakes = state.sleeping & (acts != Action.NOOP) & (acts != Action.SLEEP)
        sleeping = state.sleeping & ~wakes
        shares = resolve_shares(acts, state.pos, live, state.inventory, cfg.share_distance)
        cr = Creatures(state.creature_pos, state.creature_alive, state.creature_health, state.creature_cooldown)
        if self._hostile:  # off: no key split, no creature work, so creature-free worlds are unchanged
            key, k_creatures = jax.random.split(key)
            engaged = engage(t, cfg, state.grid, cr, state.pos, state.facing, live, acts, state.inventory)
            pos, facing, moved, acting = engaged.pos, engaged.facing, engaged.moved, engaged.acting
        else:
            pos, facing, moved = move(t, state.grid, state.pos, state.facing, live, acts)
            acting = acts
        acted = collect_and_do(
            t, cfg, key, state.grid, state.plant_age, pos, facing, live, acting, state.inventory, state.vitals
        )
        acted = place(t, cfg, acted, pos, facing, live, acting)
        acted = craft(t, cfg, acted, pos, live, acts)
        inventory = apply_shares(acted.inventory, shares)
        sleeping = sleeping | (live & (acts == Action.SLEEP))
        damage, hit_kind = jnp.zeros_like(state.damage), jnp.full_like(state.hit_kind, -1)
        if self._hostile:
            acted, cr, damage, sleeping = after_agents(t, cfg, k_creatures, acted, engaged, live, sleeping)
            hit_kind = engaged.strikes.hit_kind
        grid, plant_age, vitals, counters = vitals_and_plants(
            cfg, acted.grid, acted.plant_age, acted.vitals, state.counters, sleeping, live
        )
        rested = state.sleeping & (vitals[:, Vital.ENERGY] >= cfg.vital_max)
        alive = state.alive & (vitals[:, Vital.HEALTH] > 0)
        sleeping = sleeping & ~rested & alive
        step = state.step + 1
        moved_state = state._replace(
            grid=grid,
            plant_age=plant_age,
            pos=pos,
            facing=facing,
            alive=alive,
            sleeping=sleeping,
            inventory=inventory,
            vitals=vitals,
            counters=counters,
            score=state.score + acted.gain,
            step=step,
            done=(step >= cfg.horizon) | ~jnp.any(alive & state.active),
            result=_result(acts, live, moved, acted.result, shares.result),
            **_step_records(acted, shares, cr, damage, hit_kind),
        )
        frozen = state.done
        next_state = hold_when_done(frozen, state, moved_state)
        return Transition(
            state=next_state,
            reward=jnp.where(frozen, jnp.float32(0), acted.gain),
            shaped_reward=jnp.where(frozen, jnp.float32(0), acted.shaped),
            done=next_state.done,
        )

    # ---- host-side views ----

    def symbolic(self, state: CrafterState) -> CrafterView:
        """The typed view of one (unbatched) state."""
        return decode(self.settings, state)

    def events(self, before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[CrafterEvent]:
        """What each agent's action did in the step from ``before`` to ``after``."""
        return extract_events(before, actions, after)


def _step_records(acted: Acted, shares: Shares, cr: Creatures, damage: jax.Array, hit_kind: jax.Array) -> dict:
    """The state's per-step records: each seat's attempt, share, the creatures and the damage taken."""
    return {
        "att_kind": acted.att_kind,
        "att_target": acted.att_target,
        "att_cell": acted.att_cell.astype(jnp.int32),
        "att_capable": acted.att_capable,
        "att_member": acted.att_member,
        "att_leader": acted.att_leader,
        "share_to": shares.to.astype(jnp.int32),
        "share_item": shares.item.astype(jnp.int32),
        "creature_pos": cr.pos,
        "creature_alive": cr.alive,
        "creature_health": cr.health,
        "creature_cooldown": cr.cooldown,
        "damage": damage.astype(jnp.int32),
        "hit_kind": hit_kind.astype(jnp.int32),
    }


def _result(acts: jax.Array, live: jax.Array, moved: jax.Array, acted: jax.Array, shared: jax.Array) -> jax.Array:
    """Each seat's step result: a move's ok/blocked, sleep, a share's outcome, else what its act gave."""
    is_move = live & (acts >= Action.LEFT) & (acts <= Action.DOWN)
    result = jnp.where(is_move, jnp.where(moved, RESULT["ok"], RESULT["blocked"]), acted)
    result = jnp.where(live & (acts == Action.SLEEP), RESULT["sleep"], result)
    return jnp.where(shared > 0, shared, result).astype(jnp.int32)


def make(scenario: str | Scenario, horizon: int | None = None) -> CrafterEnv:
    """Build an env by scenario name, ``random:<difficulty>:<seed>`` (``@<n>`` for the team size)
    or Scenario; ``horizon`` overrides the settings' episode length."""
    sc = load_scenario(scenario)
    if horizon is not None:
        if horizon < 1:
            raise ScenarioError(f"horizon {horizon} must be >= 1")
        sc = with_settings(sc, {"horizon": str(horizon)})
    return CrafterEnv(sc)


__all__ = ["CrafterEnv", "make"]
