"""Lamps on a line: the smallest cooperative world that exercises every part of the domain seam.

A 1-D line of cells holds K lamps at fixed cells and N agents. Each step every agent stays, steps
left or right, or presses. Pressing on a dark lamp lights it for ``duration`` steps; when all
lamps are lit at once the team scores 1 and every lamp goes dark again. The episode ends at the
horizon and then stays ended (no auto-reset), as Overcooked's env does, so a batch of episodes
needs no per-slot done handling.

The engine is pure JAX (``reset``/``step`` jit and vmap as they are); the host side decodes a
state into a small frozen `LineState` and derives the step's events from two decoded states. A
press is credited to the lowest seat pressing that lamp in the step, in both the engine (shaped
reward) and the events, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import NamedTuple

import jax
import jax.numpy as jnp

from envs.jitted import JittedEntryPoints

SHAPED_LIGHT = 0.1  # shaped reward per lamp an agent lights (never part of the score)


class Action(IntEnum):
    """Primitive actions; STAY is the idle action an agent still thinking plays."""

    STAY = 0
    LEFT = 1
    RIGHT = 2
    PRESS = 3


@dataclass(frozen=True)
class Layout:
    """One named line: its length, lamp cells, the agents' start cells and how long a lamp stays lit."""

    name: str
    length: int
    lamp_cells: tuple[int, ...]
    starts: tuple[int, ...]
    duration: int = 4


LAYOUTS: dict[str, Layout] = {
    "line": Layout("line", length=7, lamp_cells=(1, 5), starts=(2, 4)),
    "line3": Layout("line3", length=9, lamp_cells=(1, 4, 7), starts=(0, 4, 8)),
}


class EnvState(NamedTuple):
    """The engine state (a pytree: the eval's lockstep batching vmaps and slices it)."""

    pos: jax.Array  # (agents,) int32 cells
    timers: jax.Array  # (lamps,) int32 steps each lamp stays lit; 0 = dark
    completions: jax.Array  # () int32 times all lamps were lit at once
    step: jax.Array  # () int32
    done: jax.Array  # () bool, horizon reached


class Transition(NamedTuple):
    """One step's outcome, shaped like Overcooked's: ``reward`` is the score delta, shaped rewards apart."""

    state: EnvState
    reward: jax.Array  # () float32
    shaped_reward: jax.Array  # (agents,) float32
    done: jax.Array  # () bool


@dataclass(frozen=True, slots=True)
class LineState:
    """The typed symbolic state agents read; the core reads only ``step`` and ``horizon``."""

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

    @property
    def steps_left(self) -> int:
        return self.horizon - self.step

    @property
    def num_agents(self) -> int:
        return len(self.positions)

    def lamp_at(self, cell: int) -> int | None:
        """The index of the lamp on ``cell``, if any."""
        return self.lamp_cells.index(cell) if cell in self.lamp_cells else None

    def to_record(self) -> dict:
        return {**asdict(self), "lit": list(self.lit)}


@dataclass(frozen=True, slots=True)
class LampEvent:
    """Something one agent did in one step: ``arrive`` (stepped onto a lamp), ``light``, ``wasted_press``
    (pressed where nothing dark was), ``complete`` (lit a lamp that completed the line)."""

    step: int
    agent: int
    kind: str
    lamp: int | None = None

    def to_record(self) -> dict:
        return asdict(self)


EVENT_KINDS = ("arrive", "light", "wasted_press", "complete")


class LampsEnv(JittedEntryPoints):
    """One layout with a horizon. Methods are pure; the jitted versions are cached per instance."""

    def __init__(self, layout: Layout, horizon: int) -> None:
        self.layout = layout
        self.horizon = horizon
        self.num_agents = len(layout.starts)

    @property
    def name(self) -> str:
        return self.layout.name

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> EnvState:
        """The start is deterministic (the key is part of the interface, not used)."""
        del key
        return EnvState(
            pos=jnp.asarray(self.layout.starts, jnp.int32),
            timers=jnp.zeros(len(self.layout.lamp_cells), jnp.int32),
            completions=jnp.int32(0),
            step=jnp.int32(0),
            done=jnp.bool_(False),
        )

    def step(self, key: jax.Array, state: EnvState, actions: jax.Array) -> Transition:
        """Presses (at the cell before moving), lamp timers, completion, moves; a finished episode stays finished."""
        del key
        actions = jnp.asarray(actions, jnp.int32)
        cells = jnp.asarray(self.layout.lamp_cells, jnp.int32)
        pressers = (state.pos[None, :] == cells[:, None]) & (actions == Action.PRESS)[None, :]  # (lamps, agents)
        newly = (state.timers == 0) & pressers.any(axis=1)
        first = jnp.argmax(pressers, axis=1)  # the lowest seat pressing each lamp gets the credit
        credit = (newly[:, None] & (first[:, None] == jnp.arange(self.num_agents)[None, :])).sum(axis=0)
        timers = jnp.where(newly, self.layout.duration, jnp.maximum(state.timers - 1, 0))
        complete = jnp.all(timers > 0)
        timers = jnp.where(complete, 0, timers)
        move = jnp.where(actions == Action.LEFT, -1, jnp.where(actions == Action.RIGHT, 1, 0))
        step = state.step + 1
        moved = EnvState(
            pos=jnp.clip(state.pos + move, 0, self.layout.length - 1).astype(jnp.int32),
            timers=timers.astype(jnp.int32),
            completions=(state.completions + complete).astype(jnp.int32),
            step=step,
            done=step >= self.horizon,
        )
        frozen = state.done
        next_state = jax.tree.map(lambda old, new: jnp.where(frozen, old, new), state, moved)
        return Transition(
            state=next_state,
            reward=jnp.where(frozen | ~complete, 0.0, 1.0).astype(jnp.float32),
            shaped_reward=jnp.where(frozen, 0.0, SHAPED_LIGHT * credit).astype(jnp.float32),
            done=next_state.done,
        )

    # ---- host-side views ----

    def symbolic(self, state: EnvState) -> LineState:
        """The typed view of one (unbatched) state."""
        host = jax.device_get(state)
        return LineState(
            step=int(host.step),
            horizon=self.horizon,
            length=self.layout.length,
            duration=self.layout.duration,
            positions=tuple(int(p) for p in host.pos),
            lamp_cells=self.layout.lamp_cells,
            timers=tuple(int(t) for t in host.timers),
            completions=int(host.completions),
        )

    def events(self, before: LineState, actions: Sequence[int], after: LineState) -> list[LampEvent]:
        """What each agent did in this step, ordered by seat (the same credit rule as the engine)."""
        events: list[LampEvent] = []
        lit_now: list[int] = []
        lighters: list[int] = []
        for seat, action in enumerate(actions):
            here = before.lamp_at(before.positions[seat])
            if int(action) == Action.PRESS:
                if here is not None and before.timers[here] == 0 and here not in lit_now:
                    lit_now.append(here)
                    lighters.append(seat)
                    events.append(LampEvent(before.step, seat, "light", here))
                else:
                    events.append(LampEvent(before.step, seat, "wasted_press", here))
            elif after.positions[seat] != before.positions[seat] and after.lamp_at(after.positions[seat]) is not None:
                events.append(LampEvent(before.step, seat, "arrive", after.lamp_at(after.positions[seat])))
        if after.completions > before.completions:
            events += [LampEvent(before.step, seat, "complete") for seat in lighters]
        return events


def render_line(state: LineState) -> str:
    """Two lines of text: the cells (digits are agents, ``*`` a lit lamp, ``o`` a dark one) and the lamps."""
    cells = ["*" if state.lit[i] else "o" for i in range(len(state.lamp_cells))]
    row = ["."] * state.length
    for i, cell in enumerate(state.lamp_cells):
        row[cell] = cells[i]
    for seat, cell in enumerate(state.positions):
        row[cell] = str(seat) if row[cell] in ".o*" else "+"
    lamps = ", ".join(
        f"lamp {i} at {c} {'lit ' + str(t) if t else 'dark'}"
        for i, (c, t) in enumerate(zip(state.lamp_cells, state.timers))
    )
    return f"t={state.step}/{state.horizon} completions={state.completions}\n{''.join(row)}\n{lamps}"
