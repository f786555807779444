"""What one MA-Crafter agent may know: its view window now, and what it saw before.

Crafter is partially observable: each agent sees the ``view_width x view_height`` cells around
it. A prompt built from the whole `CrafterView` would hand the model the map, every teammate's
position and bag, and void the exploration and coordination the world is about. The perceiver
cuts each true state to a `SeatView`: the window's cells now, the cells it remembers (as last
seen, and when), the teammates in view, and only its own bag and vitals. Its ``believed`` view
is a `CrafterView` whose never-seen cells are ``UNKNOWN``, whose teammates stand where last seen
(``UNSEEN`` outside the world if never) with empty bags: the Verificator, the judgement of a
running skill and the controller read it, so a check's text or a walk never uses what the agent
could not know. Hostile creatures are seen only while inside the window (never remembered: they
move). Belief correction reads only the events it witnessed: its own, and a teammate's
while that teammate was in view before or after the step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from envs.macrafter.env import CrafterEnv
from envs.macrafter.events import CrafterEvent
from envs.macrafter.symbolic import AgentState, CrafterView, Pos
from proagent.domains.macrafter.navigation import UNKNOWN

UNSEEN: Pos = (-1, -1)  # where a never-seen teammate is believed to be: nowhere in the world


@dataclass(frozen=True)
class SeatView:
    """One agent's honest picture of the world at one step."""

    believed: CrafterView
    seat: int
    window: tuple[Pos, Pos]  # top-left and bottom-right cells of the view (inclusive, clipped)
    visible: tuple[int, ...]  # teammates in view now
    last_seen: dict[int, int] = field(default_factory=dict)  # teammate -> the step it was last in view
    seen_step: dict[Pos, int] = field(default_factory=dict)  # remembered cell -> the step it was last seen

    @property
    def step(self) -> int:
        return self.believed.step

    @property
    def horizon(self) -> int:
        return self.believed.horizon

    def in_view(self, cell: Pos) -> bool:
        (x0, y0), (x1, y1) = self.window
        return x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1


def _blank(agent: AgentState, position: Pos) -> AgentState:
    """A teammate as another agent knows it: where it was seen, its bag and body unknown."""
    return replace(agent, position=position, inventory={}, vitals={})


class CrafterPerceiver:
    """Turns each true state into a `SeatView` for one seat, remembering across the episode."""

    def __init__(self, seat: int, view_width: int, view_height: int) -> None:
        self.seat = seat
        self.size = (view_width, view_height)
        self._grid: list[list[int]] = []
        self._seen_step: dict[Pos, int] = {}
        self._mates: dict[int, AgentState] = {}
        self._last_seen: dict[int, int] = {}
        self._visible: set[int] = set()
        self._believed: CrafterView | None = None
        self._witnessed: tuple[CrafterEvent, ...] = ()

    @classmethod
    def for_env(cls, env: CrafterEnv, seat: int) -> CrafterPerceiver:
        """The seat's senses under the env's view size."""
        return cls(seat, env.settings.view_width, env.settings.view_height)

    def believed_state(self) -> CrafterView:
        if self._believed is None:
            raise RuntimeError("believed_state() before observe()")
        return self._believed

    def witnessed(self) -> tuple[CrafterEvent, ...]:
        return self._witnessed

    def observe(self, state: CrafterView, events: Sequence[CrafterEvent] = ()) -> SeatView:
        if not self._grid or len(self._grid) != state.height:
            self._grid = [[UNKNOWN] * state.width for _ in range(state.height)]
        (x0, y0), (x1, y1) = window = state.window(self.seat, *self.size)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                self._grid[y][x] = state.grid[y][x]
                self._seen_step[(x, y)] = state.step
        visible = {
            a.seat
            for a in state.agents
            if a.seat != self.seat and a.alive and x0 <= a.position[0] <= x1 and y0 <= a.position[1] <= y1
        }
        for seat in visible:
            self._mates[seat] = _blank(state.agents[seat], state.agents[seat].position)
            self._last_seen[seat] = state.step
        saw = visible | self._visible
        self._witnessed = tuple(e for e in events if e.agent == self.seat or e.agent in saw)
        self._visible = visible
        agents = tuple(a if a.seat == self.seat else self._mates.get(a.seat, _blank(a, UNSEEN)) for a in state.agents)
        inside = SeatView(state, self.seat, window, ()).in_view
        self._believed = replace(
            state,
            grid=tuple(tuple(row) for row in self._grid),
            agents=agents,
            attempts=tuple(
                a for a in state.attempts if self.seat in a.participants or (a.cell is not None and inside(a.cell))
            ),
            shares=tuple(s for s in state.shares if self.seat in (s[0], s[1])),
            cows=tuple(c for c in state.cows if inside(c)),
            results=tuple(r if i == self.seat or i in visible else "none" for i, r in enumerate(state.results)),
            last_actions=tuple(a if i == self.seat or i in visible else 0 for i, a in enumerate(state.last_actions)),
        )
        return SeatView(
            self._believed,
            self.seat,
            window,
            tuple(sorted(visible)),
            dict(sorted(self._last_seen.items())),
            dict(self._seen_step),
        )


def seat_view(state: CrafterView | SeatView, seat: int) -> SeatView:
    """A seat's view; a whole state (the prompt check passes one) is cut to the seat's window now."""
    if isinstance(state, SeatView):
        return state
    return CrafterPerceiver(seat, state.settings.view_width, state.settings.view_height).observe(state)


def believed(state: CrafterView | SeatView) -> CrafterView:
    """The `CrafterView` the skills read: the seat's belief, or a whole state as given."""
    return state.believed if isinstance(state, SeatView) else state


__all__ = ["UNSEEN", "CrafterPerceiver", "SeatView", "believed", "seat_view"]
