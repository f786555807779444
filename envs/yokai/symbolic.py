"""Typed views of a Yōkai state: the full one (every colour) and one per player (what it may know).

Prompts, events, renderings and judges read these views; nobody else decodes the state arrays.
Decoding runs on host NumPy arrays, outside jit, once per step, and accepts the JAX state and the
NumPy reference's state alike. A player view holds a card's colour only where that player's
private observation does, and a hint's colours only once the hint is face up.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from envs.yokai.rules import COLOUR_NAMES, NO_CARD, HintStatus, Phase
from envs.yokai.scenario import YokaiConfig
from envs.yokai.state import YokaiState

Cell = tuple[int, int]  # (row, col)


@dataclass(frozen=True, slots=True)
class YokaiCard:
    index: int
    position: Cell
    colour: str | None  # None: not known in this view
    hint: int | None  # the hint lying on it
    seen_by: tuple[int, ...]  # seats that have looked at it (public)


@dataclass(frozen=True, slots=True)
class YokaiHint:
    index: int
    status: HintStatus
    colours: tuple[str, ...] | None  # None while face down (in a player view)
    card: int | None  # the card it lies on, once placed


@dataclass(frozen=True, slots=True)
class YokaiView:
    """One decoded state. ``viewer`` is None for the full view, else the seat it belongs to."""

    viewer: int | None
    step: int
    player: int
    phase: Phase
    done: bool
    ended_early: bool
    won: bool
    score: int
    cards: tuple[YokaiCard, ...]
    hints: tuple[YokaiHint, ...]
    turn_cards: tuple[int, ...]  # cards observed in the current turn so far
    last_action: int
    last_player: int | None

    def card_at(self, cell: Cell) -> YokaiCard | None:
        return next((c for c in self.cards if c.position == cell), None)

    def to_record(self) -> dict:
        return {
            "viewer": self.viewer,
            "step": self.step,
            "player": self.player,
            "phase": self.phase.name.lower(),
            "done": self.done,
            "cards": [[c.index, *c.position, c.colour, c.hint] for c in self.cards],
            "hints": [[h.index, h.status.name.lower(), list(h.colours or ()), h.card] for h in self.hints],
        }


PlayerView = YokaiView  # a YokaiView whose ``viewer`` is a seat


def _host(state: YokaiState) -> YokaiState:
    return YokaiState(*(np.asarray(x) for x in jax.device_get(tuple(state))))


def _decode(state: YokaiState, config: YokaiConfig, viewer: int | None) -> YokaiView:
    s = _host(state)
    hint_on = {int(c): h for h, c in enumerate(s.hint_card) if c != NO_CARD}
    cards = tuple(
        YokaiCard(
            index=i,
            position=(int(s.card_pos[i, 0]), int(s.card_pos[i, 1])),
            colour=COLOUR_NAMES[int(s.card_colour[i])] if viewer is None or s.known[viewer, i] else None,
            hint=hint_on.get(i),
            seen_by=tuple(int(p) for p in np.flatnonzero(s.seen[:, i])),
        )
        for i in range(config.num_cards)
    )
    hints = []
    for h in range(config.num_hints):
        status = HintStatus(int(s.hint_status[h]))
        names = tuple(COLOUR_NAMES[c] for c in np.flatnonzero(s.hint_colours[h]))
        hidden = viewer is not None and status == HintStatus.FACE_DOWN
        card = int(s.hint_card[h])
        hints.append(YokaiHint(h, status, None if hidden else names, None if card == NO_CARD else card))
    return YokaiView(
        viewer=viewer,
        step=int(s.step),
        player=int(s.player),
        phase=Phase(int(s.phase)),
        done=bool(s.done),
        ended_early=bool(s.ended_early),
        won=bool(s.won),
        score=int(s.score),
        cards=cards,
        hints=tuple(hints),
        turn_cards=tuple(int(c) for c in s.turn_cards if c != NO_CARD),
        last_action=int(s.last_action),
        last_player=None if int(s.last_player) == NO_CARD else int(s.last_player),
    )


def decode(state: YokaiState, config: YokaiConfig) -> YokaiView:
    """The full view: every card's colour and every hint's colours."""
    return _decode(state, config, None)


def decode_player(state: YokaiState, config: YokaiConfig, player: int) -> PlayerView:
    """What seat ``player`` may know; ValueError for a seat outside the game."""
    if not 0 <= player < config.num_players:
        raise ValueError(f"seat {player} outside 0..{config.num_players - 1}")
    return _decode(state, config, player)
