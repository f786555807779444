"""Yōkai game configurations: cards, colours, grid, players and the hint mix of the paper's Table 7.

A configuration is validated when it is built, so an invalid one never reaches the env: each
problem is one line naming the configuration. Named layouts are ``<cards>c_<players>p`` for the
two sizes of the paper (9C: nine cards of three colours on a 9 x 9 grid; 16C: sixteen cards of four
colours on a 10 x 10 grid) and two to four players: ``9c_2p`` ... ``16c_4p``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from envs.yokai.rules import COLOUR_NAMES, ActionLayout

MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_COLOURS = len(COLOUR_NAMES)

# Table 7: hint cards per colour count (1-, 2-, 3-colour), by version and number of players.
HINT_TABLE: dict[tuple[int, int], tuple[int, ...]] = {
    (9, 2): (1, 3),
    (9, 3): (2, 3),
    (9, 4): (3, 3),
    (16, 2): (2, 3, 2),
    (16, 3): (2, 4, 3),
    (16, 4): (3, 4, 3),
}
GRID_SIZE = {9: 9, 16: 10}
COLOURS = {9: 3, 16: 4}
_NAME = re.compile(r"^([0-9]{1,3})c_([0-9]{1,3})p$")  # ASCII digits, a few: never int() of thousands


class YokaiConfigError(ValueError):
    """An invalid or unknown Yōkai configuration; the message is one line."""


@dataclass(frozen=True)
class YokaiConfig:
    """One game size. ``hint_counts[k]`` hints of ``k + 1`` colours are drawn per episode, each set
    chosen at random (without repeats) among all ``C choose k + 1`` colour sets."""

    name: str
    num_cards: int
    num_colours: int
    grid_size: int
    num_players: int
    hint_counts: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "hint_counts", tuple(int(n) for n in self.hint_counts))
        validate(self)

    @property
    def num_hints(self) -> int:
        return sum(self.hint_counts)

    @property
    def cards_per_colour(self) -> int:
        return self.num_cards // self.num_colours

    @property
    def side(self) -> int:
        """Side of the starting square of cards (cards must form a full square)."""
        return math.isqrt(self.num_cards)

    @property
    def max_steps(self) -> int:
        """Longest episode: every hint revealed then placed, one hint action per 4-step turn."""
        return 8 * self.num_hints

    @property
    def actions(self) -> ActionLayout:
        return ActionLayout(self.num_cards, self.num_hints, self.grid_size)

    @property
    def num_actions(self) -> int:
        return self.actions.size

    @property
    def max_score(self) -> int:
        """Eq. 1 when the game is ended at once: every hint still face down."""
        return 5 * self.num_hints

    def start_cells(self) -> np.ndarray:
        """(Y, 2) int32 (row, col) of the centred starting square, card i at row-major slot i."""
        offset = (self.grid_size - self.side) // 2
        idx = np.arange(self.num_cards)
        return np.stack([offset + idx // self.side, offset + idx % self.side], axis=-1).astype(np.int32)

    def hint_candidates(self) -> list[np.ndarray]:
        """Per colour count k + 1: the (C choose k + 1, C) bool table of all colour sets of that size."""
        tables = []
        for k in range(len(self.hint_counts)):
            sets = list(combinations(range(self.num_colours), k + 1))
            table = np.zeros((len(sets), self.num_colours), bool)
            for i, s in enumerate(sets):
                table[i, list(s)] = True
            tables.append(table)
        return tables


def validate(c: YokaiConfig) -> None:
    """Raise YokaiConfigError (one line) on the first problem found."""

    def fail(msg: str) -> None:
        raise YokaiConfigError(f"yokai config {c.name!r}: {msg}")

    if not MIN_PLAYERS <= c.num_players <= MAX_PLAYERS:
        fail(f"{c.num_players} players; Yōkai takes {MIN_PLAYERS} to {MAX_PLAYERS}")
    if not 2 <= c.num_colours <= MAX_COLOURS:
        fail(f"{c.num_colours} colours; 2 to {MAX_COLOURS} are supported")
    if c.num_cards % c.num_colours:
        fail(f"{c.num_cards} cards do not split evenly into {c.num_colours} colours")
    if c.side * c.side != c.num_cards:
        fail(f"{c.num_cards} cards do not form the square the game starts from")
    if c.grid_size < c.side + 2:
        fail(f"grid {c.grid_size} leaves no room around the {c.side} x {c.side} starting square")
    if not c.hint_counts or len(c.hint_counts) > c.num_colours or min(c.hint_counts) < 0:
        fail(f"hint_counts {c.hint_counts} must give 0 or more hints per colour count 1..{c.num_colours}")
    for k, n in enumerate(c.hint_counts):
        if n > comb(c.num_colours, k + 1):
            fail(f"{n} hints of {k + 1} colours, but only {comb(c.num_colours, k + 1)} such colour sets exist")
    if not 1 <= c.num_hints <= c.num_cards - 2:
        fail(f"{c.num_hints} hints; need 1 to {c.num_cards - 2} so two cards stay observable")


def named_config(name: str) -> YokaiConfig:
    """The paper's configuration for ``<cards>c_<players>p``; YokaiConfigError names the choices."""
    m = _NAME.match(name.strip().lower())
    key = (int(m.group(1)), int(m.group(2))) if m else None
    if key not in HINT_TABLE:
        raise YokaiConfigError(f"unknown yokai layout {name!r}; one of {', '.join(available_layouts())}")
    cards, players = key
    return YokaiConfig(name.strip().lower(), cards, COLOURS[cards], GRID_SIZE[cards], players, HINT_TABLE[key])


def available_layouts() -> list[str]:
    return [f"{cards}c_{players}p" for cards, players in HINT_TABLE]


def load_config(spec: str | YokaiConfig) -> YokaiConfig:
    if isinstance(spec, YokaiConfig):
        return spec
    if not isinstance(spec, str):
        raise YokaiConfigError(f"yokai layout must be a name or YokaiConfig, not {type(spec).__name__}")
    return named_config(spec)
