"""CUBE's rules in plain NumPy and Python, written for reading, not speed.

Why a second implementation: the JAX step is vectorized rectangle arithmetic that is easy to get
subtly wrong; this one walks explicit cell-occupancy maps, emits its events as it resolves them,
and asserts the invariants (one agent per cell, no agent in a block). A test drives both with the
same random actions and requires identical states, rewards and events; the speed benchmark
compares the two. The state layout is the env's (``CubeEnvState`` of NumPy arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from envs.cube.events import CubeEvent, CubeEventKind
from envs.cube.rules import NO_BLOCK, PUSH_ACTIONS, VECTORS, CubeAction, PushOutcome
from envs.cube.scenario import Pos, Scenario
from envs.cube.state import CubeEnvState, initial_state


class ReferenceStep(NamedTuple):
    state: CubeEnvState
    reward: np.float32
    shaped_reward: np.ndarray  # (A,) float32
    done: bool
    events: list[CubeEvent]


def _square(x: int, y: int, w: int) -> list[Pos]:
    return [(x + i, y + j) for j in range(w) for i in range(w)]


class _World:
    """Mutable occupancy maps for one step."""

    def __init__(self, scenario: Scenario, s: CubeEnvState) -> None:
        self.k = scenario.grid_size
        self.pos: dict[int, Pos] = {i: (int(p[0]), int(p[1])) for i, p in enumerate(s.agent_pos) if s.agent_active[i]}
        self.agent_at: dict[Pos, int] = {p: i for i, p in self.pos.items()}
        self.block: dict[int, tuple[int, int, int]] = {
            b: (int(s.block_pos[b, 0]), int(s.block_pos[b, 1]), int(s.block_weight[b]))
            for b in range(len(s.block_weight))
            if s.block_active[b]
        }
        self.block_at: dict[Pos, int] = {c: b for b, sq in self.block.items() for c in _square(*sq)}
        assert len(self.agent_at) == len(self.pos), "two agents on one cell"
        assert not set(self.agent_at) & set(self.block_at), "an agent inside a block"

    def in_grid(self, c: Pos) -> bool:
        return 0 <= c[0] < self.k and 0 <= c[1] < self.k

    def walkable(self, c: Pos) -> bool:
        """Inside the grid and left of the goal column: agents never enter the goal column."""
        return self.in_grid(c) and c[0] < self.k - 1

    def move_agent(self, i: int, to: Pos) -> None:
        assert to not in self.agent_at and to not in self.block_at and self.walkable(to)
        del self.agent_at[self.pos[i]]
        self.pos[i] = to
        self.agent_at[to] = i

    def move_block(self, b: int, to: tuple[int, int, int] | None) -> None:
        """Move block b to ``to`` (x, y, w), or remove it (None)."""
        for c in _square(*self.block[b]):
            del self.block_at[c]
        if to is None:
            del self.block[b]
            return
        self.block[b] = to
        for c in _square(*to):
            assert c not in self.block_at and c not in self.agent_at
            self.block_at[c] = b


class ReferenceCube:
    """The reference env for one scenario: ``reset()`` and ``step(state, actions)``."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario

    def reset(self) -> CubeEnvState:
        return initial_state(self.scenario)

    def step(self, state: CubeEnvState, actions: Sequence[int], record_events: bool = True) -> ReferenceStep:
        na = len(state.agent_pos)
        if state.done:
            return ReferenceStep(state, np.float32(0), np.zeros(na, np.float32), True, [])
        actions = [int(a) for a in actions]
        world = _World(self.scenario, state)
        out = {f: np.array(getattr(state, f)) for f in CubeEnvState._fields}
        for f in ("push_force", "push_aligned", "push_outcome"):
            out[f][:] = 0
        out["agent_push"][:] = NO_BLOCK
        shaped = np.zeros(na, np.float32)
        events: list[CubeEvent] = [] if record_events else None  # type: ignore[assignment]
        gain = 0
        pushed_ok: set[int] = set()  # agents that stepped forward behind a block they moved
        for d, action in enumerate(PUSH_ACTIONS):
            for b in range(len(state.block_weight)):
                if b in world.block:
                    gain += self._attempt(world, out, actions, d, action, b, shaped, events, int(state.step), pushed_ok)
        self._moves(world, actions, out, events, int(state.step), pushed_ok)
        for i, p in world.pos.items():
            out["agent_pos"][i] = p
        for b, (x, y, _) in world.block.items():
            out["block_pos"][b] = (x, y)
        out["block_active"][:] = [b in world.block for b in range(len(state.block_weight))]
        out["score"] = np.int32(state.score + gain)
        out["step"] = np.int32(state.step + 1)
        out["done"] = np.bool_(out["step"] >= self.scenario.horizon or not world.block)
        reward = np.float32(gain) - np.float32(self.scenario.step_cost)
        return ReferenceStep(CubeEnvState(**out), reward, shaped, bool(out["done"]), events or [])

    def _attempt(
        self,
        world: _World,
        out: dict,
        actions: list[int],
        d: int,
        action: int,
        b: int,
        shaped,
        events,
        step,
        pushed_ok: set[int],
    ) -> int:
        """Resolve one push attempt; return the weight delivered by it (0 if none)."""
        dx, dy = VECTORS[action]
        x, y, w = world.block[b]
        cells = set(_square(x, y, w))
        face = {(cx - dx, cy - dy) for cx, cy in cells} - cells
        on_face = sorted(world.agent_at[c] for c in face if c in world.agent_at)
        pushers = [i for i in on_face if actions[i] == action and out["agent_push"][i] == NO_BLOCK]
        out["push_aligned"][d, b], out["push_force"][d, b] = len(on_face), len(pushers)
        if not pushers:
            return 0
        out["agent_push"][pushers] = b
        dest = _square(x + dx, y + dy, w)
        if len(pushers) < w:
            outcome = PushOutcome.INSUFFICIENT_FORCE
        elif any(not world.in_grid(c) or world.block_at.get(c, b) != b or c in world.agent_at for c in dest):
            outcome = PushOutcome.BLOCKED_DESTINATION
        else:
            outcome = PushOutcome.OK
        out["push_outcome"][d, b] = outcome
        starts = {i: world.pos[i] for i in pushers}
        delivered = outcome == PushOutcome.OK and x + dx + w >= world.k
        if outcome == PushOutcome.OK:
            world.move_block(b, None if delivered else (x + dx, y + dy, w))
            out["block_pos"][b] = (x + dx, y + dy)  # a delivered block keeps where it touched the goal
            for i in pushers:
                world.move_agent(i, (starts[i][0] + dx, starts[i][1] + dy))
                shaped[i] += dx
            pushed_ok.update(pushers)
        if events is not None:
            kinds = [CubeEventKind.PUSH_OK] if outcome == PushOutcome.OK else [CubeEventKind.PUSH_FAILED]
            for kind in kinds + ([CubeEventKind.DELIVER] if delivered else []):
                for i in pushers:
                    target = (starts[i][0] + dx, starts[i][1] + dy)
                    name = CubeAction(action).name.lower()
                    events.append(CubeEvent(step, i, kind, starts[i], name, target, b, w, len(pushers), outcome.reason))
        return w if delivered else 0

    def _moves(self, world: _World, actions: list[int], out: dict, events, step: int, pushed_ok: set[int]) -> None:
        """Everyone but the successful pushers walks, by index. A failed pusher walks into the block it
        pushed: it stays (no event: its failed push says why) unless a later push took the block away."""
        for i in sorted(world.pos):
            action = actions[i]
            if action == CubeAction.STAY or i in pushed_ok:
                continue
            dx, dy = VECTORS[action]
            start = world.pos[i]
            target = (start[0] + dx, start[1] + dy)
            failed_pusher = out["agent_push"][i] != NO_BLOCK
            if not world.in_grid(target):
                reason = "wall"
            elif not world.walkable(target):
                reason = "goal"
            elif target in world.block_at:
                reason = "block"
            elif target in world.agent_at:
                reason = "agent"
            else:
                reason = None
                world.move_agent(i, target)
            if events is not None and not (failed_pusher and reason is not None):
                kind = CubeEventKind.MOVE if reason is None else CubeEventKind.BLOCKED_MOVE
                events.append(CubeEvent(step, i, kind, start, CubeAction(action).name.lower(), target, reason=reason))
