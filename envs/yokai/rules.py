"""Yōkai's shared vocabulary: turn phases, hint states, action kinds and the action encoding.

The JAX env, the NumPy reference, the symbolic views and the events all index these integer enums
and the same ``ActionLayout``, so an action stored as one int in a jitted rollout decodes to the
same (kind, card, cell, hint) everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

NO_CARD = -1  # "no card" in int fields (an unplaced hint's card, an empty turn-observation slot)
COLOUR_NAMES: tuple[str, ...] = ("red", "green", "blue", "purple")
COLOUR_LETTERS: tuple[str, ...] = ("R", "G", "B", "P")


class Phase(IntEnum):
    """The four steps of a turn, in order. Ending the game replaces ``OBSERVE_FIRST``."""

    OBSERVE_FIRST = 0
    OBSERVE_SECOND = 1
    MOVE = 2
    HINT = 3


TURN_STEPS = len(Phase)  # every turn is one action per phase (a move phase with no legal move: NOOP)


class HintStatus(IntEnum):
    """A hint card's life: face down in the pile, revealed (face up, unplaced), placed on a card."""

    FACE_DOWN = 0
    REVEALED = 1
    PLACED = 2


class ActionKind(IntEnum):
    """The blocks of the flat action space (eq. 9), in encoding order."""

    END = 0
    OBSERVE = 1
    MOVE = 2
    REVEAL = 3
    PLACE = 4
    NOOP = 5


@dataclass(frozen=True, slots=True)
class DecodedAction:
    """One flat action id split into its parts; unused parts are ``NO_CARD``. ``cell`` is
    ``row * grid_size + col``; a PLACE names the cell of the card that receives the hint."""

    kind: ActionKind
    card: int = NO_CARD
    cell: int = NO_CARD
    hint: int = NO_CARD

    def describe(self, grid_size: int) -> str:
        where = f"({self.cell // grid_size}, {self.cell % grid_size})" if self.cell >= 0 else ""
        if self.kind == ActionKind.OBSERVE:
            return f"observe card {self.card}"
        if self.kind == ActionKind.MOVE:
            return f"move card {self.card} to {where}"
        if self.kind == ActionKind.REVEAL:
            return f"reveal hint {self.hint}"
        if self.kind == ActionKind.PLACE:
            return f"place hint {self.hint} on the card at {where}"
        return self.kind.name.lower()


@dataclass(frozen=True, slots=True)
class ActionLayout:
    """The flat action space of eq. 9: ``1 + |Y| + |Y| g^2 + |H| + |H| g^2 + 1``.

    Blocks in order: END, OBSERVE card, MOVE (card, target cell), REVEAL hint, PLACE (hint, cell of
    the receiving card), NOOP. Hints are placed by cell, which is the reading of eq. 9 that gives
    the paper's 1,068 actions for 2-player 9C; non-acting players always send NOOP.
    """

    num_cards: int
    num_hints: int
    grid_size: int

    @property
    def cells(self) -> int:
        return self.grid_size * self.grid_size

    @property
    def observe_start(self) -> int:
        return 1

    @property
    def move_start(self) -> int:
        return 1 + self.num_cards

    @property
    def reveal_start(self) -> int:
        return self.move_start + self.num_cards * self.cells

    @property
    def place_start(self) -> int:
        return self.reveal_start + self.num_hints

    @property
    def noop(self) -> int:
        return self.place_start + self.num_hints * self.cells

    @property
    def size(self) -> int:
        return self.noop + 1

    def observe(self, card: int) -> int:
        return self.observe_start + card

    def move(self, card: int, cell: int) -> int:
        return self.move_start + card * self.cells + cell

    def reveal(self, hint: int) -> int:
        return self.reveal_start + hint

    def place(self, hint: int, cell: int) -> int:
        return self.place_start + hint * self.cells + cell

    def decode(self, action: int) -> DecodedAction:
        """The parts of one action id; raises ValueError outside ``[0, size)``."""
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} outside [0, {self.size})")
        if a == 0:
            return DecodedAction(ActionKind.END)
        if a < self.move_start:
            return DecodedAction(ActionKind.OBSERVE, card=a - self.observe_start)
        if a < self.reveal_start:
            card, cell = divmod(a - self.move_start, self.cells)
            return DecodedAction(ActionKind.MOVE, card=card, cell=cell)
        if a < self.place_start:
            return DecodedAction(ActionKind.REVEAL, hint=a - self.reveal_start)
        if a < self.noop:
            hint, cell = divmod(a - self.place_start, self.cells)
            return DecodedAction(ActionKind.PLACE, cell=cell, hint=hint)
        return DecodedAction(ActionKind.NOOP)
