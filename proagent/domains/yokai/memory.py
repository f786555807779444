"""One seat's senses at the Yōkai table (the world's `Perceiver`): what it may know, and remembers.

A seat's view of the table (`envs.yokai.decode_player`) holds the colours its private observation
holds now. In the real-memory setting a moved card's colour leaves every observation, so the seat
keeps its own sightings (card, colour, where and when it looked): once the colour is gone from the
view it is stated as *remembered*, with where the card was then, never as a fact about now. Every
event at the table is public (which card was looked at, never its colour), so a seat witnesses all
of them; the log keeps the latest few for the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.yokai import YokaiView
from envs.yokai.rules import ActionLayout, Phase
from envs.yokai.symbolic import Cell
from proagent.domains.yokai.table import TableEvent, YokaiTable

LOG_SIZE = 12  # events kept for the prompt


@dataclass(frozen=True, slots=True)
class Sighting:
    """A colour this seat saw: the card, its colour then, where the card lay and the step."""

    card: int
    colour: str
    position: Cell
    step: int


@dataclass(frozen=True, slots=True)
class SeatBelief:
    """What one seat believes: its own view of the table, the colours it remembers that its view
    no longer holds, the recent public events, and the acting player's legal actions (public)."""

    step: int
    horizon: int
    seat: int
    view: YokaiView
    remembered: tuple[Sighting, ...]
    log: tuple[str, ...]
    legal: frozenset[int]
    layout: ActionLayout
    num_players: int
    perfect_memory: bool

    @property
    def my_turn(self) -> bool:
        return self.view.player == self.seat and not self.view.done

    @property
    def phase(self) -> Phase:
        return self.view.phase

    def colour_of(self, card: int) -> str | None:
        """The colour this seat knows (its view) or remembers for ``card``; None if it never saw it."""
        known = self.view.cards[card].colour
        if known is not None:
            return known
        return next((s.colour for s in self.remembered if s.card == card), None)


def belief_of(table: YokaiTable, seat: int, sightings: dict[int, Sighting] | None = None,
              log: Sequence[str] = ()) -> SeatBelief:
    """``seat``'s belief from the table: its own view only; ``sightings`` (its memory) add the colours
    it saw that its view no longer holds."""
    view = table.seats[seat]
    remembered = tuple(
        s for card, s in sorted((sightings or {}).items()) if view.cards[card].colour is None
    )
    return SeatBelief(table.step, table.horizon, seat, view, remembered, tuple(log)[-LOG_SIZE:], table.legal,
                      table.layout, len(table.seats), table.perfect_memory)


class SeatMemory:
    """The `Perceiver` of one seat: its view each step, the sightings it keeps, the public events."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.sightings: dict[int, Sighting] = {}
        self.in_view: set[int] = set()  # cards whose colour the seat's view held at its last observation
        self.log: list[str] = []
        self.events: tuple[TableEvent, ...] = ()
        self.belief: SeatBelief | None = None

    def observe(self, state: YokaiTable, events: Sequence[TableEvent]) -> SeatBelief:
        """Update the sightings from the seat's own view (a colour it holds now) and log the events.
        A sighting keeps the step the seat looked: a colour that stays in view, unchanged and in
        place, is the same sighting (re-stamping it each step would make "when you saw it" the
        last step it was in view, which a theory-of-mind prompt would state falsely)."""
        for card in state.seats[self.seat].cards:
            if card.colour is None:
                self.in_view.discard(card.index)
                continue
            kept = self.sightings.get(card.index)
            same = kept is not None and (kept.colour, kept.position) == (card.colour, card.position)
            if not (same and card.index in self.in_view):
                self.sightings[card.index] = Sighting(card.index, card.colour, card.position, state.game.step)
            self.in_view.add(card.index)
        self.events = tuple(events)
        self.log = [*self.log, *(e.describe() for e in events if e.kind != "game_over")][-LOG_SIZE:]
        self.belief = belief_of(state, self.seat, self.sightings, self.log)
        return self.belief

    def believed_state(self) -> SeatBelief:
        if self.belief is None:
            raise RuntimeError("the seat has observed nothing yet")
        return self.belief

    def witnessed(self) -> Sequence[TableEvent]:
        return self.events
