"""The project's one action vocabulary (overcooked_ai order) and its map to the engine's.

Orientations share the first four indices with moves, so ``Action(direction)`` is "step that way"
and a player's facing can be compared with a move without a table.
"""

from __future__ import annotations

from enum import IntEnum

import jax.numpy as jnp
import numpy as np

from envs.overcooked.engine import OvercookedActionsEnum


class Action(IntEnum):
    UP = 0
    DOWN = 1
    RIGHT = 2
    LEFT = 3
    STAY = 4
    INTERACT = 5


class Direction(IntEnum):
    """Facing; same indices as the engine's Direction and as the move actions."""

    UP = 0
    DOWN = 1
    RIGHT = 2
    LEFT = 3

    @property
    def vector(self) -> tuple[int, int]:
        return DIRECTION_VECTORS[self]


DIRECTION_VECTORS: dict[Direction, tuple[int, int]] = {
    Direction.UP: (0, -1),
    Direction.DOWN: (0, 1),
    Direction.RIGHT: (1, 0),
    Direction.LEFT: (-1, 0),
}

MOVES: tuple[Action, ...] = (Action.UP, Action.DOWN, Action.RIGHT, Action.LEFT)

# ours -> engine, indexed by Action
_TO_ENGINE = np.array(
    [
        OvercookedActionsEnum.up,
        OvercookedActionsEnum.down,
        OvercookedActionsEnum.right,
        OvercookedActionsEnum.left,
        OvercookedActionsEnum.stay,
        OvercookedActionsEnum.interact,
    ],
    dtype=np.int32,
)
TO_ENGINE = jnp.asarray(_TO_ENGINE)


def action_from_name(name: str) -> Action:
    try:
        return Action[name.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown action {name!r}; one of {[a.name.lower() for a in Action]}") from None
