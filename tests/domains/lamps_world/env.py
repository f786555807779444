"""Lamps on a line: N agents, K lamps on a 1-D line. Pressing a dark lamp lights it for ``duration``
steps; all lamps lit at once scores 1 and darkens them. Pure JAX engine (no auto-reset), a typed
host-side `LineState`, and events from two decoded states. A press is credited to the lowest seat
pressing that lamp, in the shaped reward and the events alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import NamedTuple

import jax
import jax.numpy as jnp

from envs.jitted import JittedEntryPoints, Transition, hold_when_done

SHAPED_LIGHT = 0.1  # shaped reward per lamp an agent lights (never part of the score)
EVENT_KINDS = ("arrive", "light", "wasted_press", "complete")


class Action(IntEnum):
    STAY, LEFT, RIGHT, PRESS = range(4)


@dataclass(frozen=True)
class Layout:
    name: str
    length: int
    lamp_cells: tuple[int, ...]
    starts: tuple[int, ...]
    duration: int = 4


LAYOUTS = {
    "line": Layout("line", length=7, lamp_cells=(1, 5), starts=(2, 4)),
    "line3": Layout("line3", length=9, lamp_cells=(1, 4, 7), starts=(0, 4, 8)),
}


class EnvState(NamedTuple):
    pos: jax.Array  # (agents,) int32 cells
    timers: jax.Array  # (lamps,) int32 steps each lamp stays lit; 0 = dark
    completions: jax.Array  # () int32 times all lamps were lit at once
    step: jax.Array  # () int32
    done: jax.Array  # () bool, horizon reached


@dataclass(frozen=True, slots=True)
class LineState:
    step: int
    horizon: int
    length: int
    duration: int
    positions: tuple[int, ...]
    lamp_cells: tuple[int, ...]
    timers: tuple[int, ...]
    completions: int

    @property
    def lit(self) -> tuple[bool, ...]:
        return tuple(t > 0 for t in self.timers)

    def lamp_at(self, cell: int) -> int | None:
        return self.lamp_cells.index(cell) if cell in self.lamp_cells else None

    def to_record(self) -> dict:
        return {**asdict(self), "lit": list(self.lit)}


@dataclass(frozen=True, slots=True)
class LampEvent:
    """``arrive`` (onto a lamp), ``light``, ``wasted_press``, ``complete`` (lit the last dark lamp)."""

    step: int
    agent: int
    kind: str
    lamp: int | None = None

    def to_record(self) -> dict:
        return asdict(self)


class LampsEnv(JittedEntryPoints):
    def __init__(self, layout: Layout, horizon: int) -> None:
        self.layout, self.horizon, self.num_agents, self.name = layout, horizon, len(layout.starts), layout.name

    def reset(self, key: jax.Array) -> EnvState:
        lamps = len(self.layout.lamp_cells)
        return EnvState(jnp.asarray(self.layout.starts, jnp.int32), jnp.zeros(lamps, jnp.int32), *jnp.zeros(2, jnp.int32),
                        jnp.bool_(False))

    def step(self, key: jax.Array, state: EnvState, actions: jax.Array) -> Transition:
        """Presses (at the cell before moving), lamp timers, completion, then moves."""
        actions = jnp.asarray(actions, jnp.int32)
        cells = jnp.asarray(self.layout.lamp_cells, jnp.int32)
        pressers = (state.pos[None, :] == cells[:, None]) & (actions == Action.PRESS)[None, :]  # (lamps, agents)
        newly = (state.timers == 0) & pressers.any(axis=1)
        first = jnp.argmax(pressers, axis=1)  # the lowest seat pressing each lamp gets the credit
        credit = (newly[:, None] & (first[:, None] == jnp.arange(self.num_agents)[None, :])).sum(axis=0)
        timers = jnp.where(newly, self.layout.duration, jnp.maximum(state.timers - 1, 0))
        complete = jnp.all(timers > 0)
        move = jnp.where(actions == Action.LEFT, -1, jnp.where(actions == Action.RIGHT, 1, 0))
        pos = jnp.clip(state.pos + move, 0, self.layout.length - 1).astype(jnp.int32)
        after = EnvState(pos, jnp.where(complete, 0, timers).astype(jnp.int32),
                         (state.completions + complete).astype(jnp.int32), state.step + 1, state.step + 1 >= self.horizon)
        next_state = hold_when_done(state.done, state, after)
        reward = jnp.where(state.done | ~complete, 0.0, 1.0).astype(jnp.float32)
        shaped = jnp.where(state.done, 0.0, SHAPED_LIGHT * credit).astype(jnp.float32)
        return Transition(next_state, reward, shaped, next_state.done)

    def symbolic(self, state: EnvState) -> LineState:
        host, layout = jax.device_get(state), self.layout
        return LineState(int(host.step), self.horizon, layout.length, layout.duration, tuple(int(p) for p in host.pos),
                         layout.lamp_cells, tuple(int(t) for t in host.timers), int(host.completions))

    def events(self, before: LineState, actions: Sequence[int], after: LineState) -> list[LampEvent]:
        """What each agent did in this step, by seat (the engine's credit rule)."""
        events, lighters = [], []
        for seat, action in enumerate(actions):
            here, lit_now = before.lamp_at(before.positions[seat]), [e.lamp for e in events if e.kind == "light"]
            if int(action) == Action.PRESS:
                lights = here is not None and before.timers[here] == 0 and here not in lit_now
                lighters += [seat] if lights else []
                events.append(LampEvent(before.step, seat, "light" if lights else "wasted_press", here))
            elif after.positions[seat] != before.positions[seat] and after.lamp_at(after.positions[seat]) is not None:
                events.append(LampEvent(before.step, seat, "arrive", after.lamp_at(after.positions[seat])))
        complete = after.completions > before.completions
        return events + [LampEvent(before.step, seat, "complete") for seat in lighters if complete]


def render_line(state: LineState) -> str:
    """The score, the cells (digits are agents, ``*`` a lit lamp, ``o`` a dark one) and the lamps."""
    row = ["."] * state.length
    for i, cell in enumerate(state.lamp_cells):
        row[cell] = "*" if state.lit[i] else "o"
    for seat, cell in enumerate(state.positions):
        row[cell] = str(seat) if row[cell] in ".o*" else "+"
    lamps = ", ".join(f"lamp {i} at {c} {f'lit {t}' if t else 'dark'}" for i, (c, t) in enumerate(zip(state.lamp_cells, state.timers)))
    return f"t={state.step}/{state.horizon} completions={state.completions}\n{''.join(row)}\n{lamps}"
