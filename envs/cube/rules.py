"""CUBE's shared vocabulary: actions, push outcomes, directions and limits.

The JAX env, the NumPy reference, the symbolic view and the events all index the same integer
enums, so a push record stored as ``(direction, block, outcome)`` ints in a jitted state decodes
to the same names everywhere.
"""

from __future__ import annotations

from enum import IntEnum


class CubeAction(IntEnum):
    """Primitive actions. A push is a move into a block's face: there is no separate push action."""

    STAY = 0
    UP = 1
    DOWN = 2
    LEFT = 3
    RIGHT = 4


class PushOutcome(IntEnum):
    """What a push attempt on one face did in one step (``NONE``: nobody pushed that face)."""

    NONE = 0
    OK = 1
    INSUFFICIENT_FORCE = 2
    BLOCKED_DESTINATION = 3

    @property
    def reason(self) -> str | None:
        """The failure reason as events and metrics name it (None unless the push failed)."""
        return {2: "insufficient_force", 3: "blocked_destination"}.get(int(self))


# Push directions in resolution order; a record's direction index d is ``action - 1``.
PUSH_ACTIONS: tuple[CubeAction, ...] = (CubeAction.UP, CubeAction.DOWN, CubeAction.LEFT, CubeAction.RIGHT)
NUM_DIRECTIONS = len(PUSH_ACTIONS)

# (dx, dy) per action, y grows downwards (row 0 is the top), x grows rightwards to the goal column.
VECTORS: tuple[tuple[int, int], ...] = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))

# The face pushers stand at for each push direction (pushing up means standing below the block).
FACES: dict[CubeAction, str] = {
    CubeAction.UP: "bottom",
    CubeAction.DOWN: "top",
    CubeAction.LEFT: "right",
    CubeAction.RIGHT: "left",
}

MIN_AGENTS = 2
MAX_AGENTS = 8
MAX_WEIGHT = MAX_AGENTS  # a block of weight w needs w agents on one face, and a face has w cells
MIN_GRID = 4
MAX_GRID = 64
MAX_HORIZON = 100_000  # steps of one episode, as every front end bounds them
MAX_STEP_COST = 1_000.0  # far above any cost per step a scenario means
MAX_SEED = 2**31 - 1  # a random scenario's seed (numpy's generator takes it whole)

NO_BLOCK = -1  # ``agent_push`` value of an agent that pushed nothing this step


def direction_name(action: int) -> str:
    return CubeAction(action).name.lower()


def action_from_name(name: str) -> CubeAction:
    try:
        return CubeAction[name.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown action {name!r}; one of {[a.name.lower() for a in CubeAction]}") from None
