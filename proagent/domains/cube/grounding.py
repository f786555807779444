"""What one CUBE agent's prompt may hold (``ground``), its memory line, and the ASCII grid.

The grid is fully observable, so ``ground`` hides nothing; it precomputes what a planner would
otherwise have to count itself (BFS distance to each block's left face, pushers already there),
because a language model is poor at grid arithmetic and good at reading a number.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.cube import CubeView
from proagent.domains.cube.skills import block_ahead, face_distance, on_face
from proagent.world.types import TeammateView

EMPTY, GOAL = ".", "|"


def ground_facts(state: CubeView, seat: int, teammates: Sequence[TeammateView], score: float) -> dict:
    """Everything a seat may know, as JSON-able data for the templates."""
    x, y = state.agents[seat]
    return {
        "step": state.step,
        "horizon": state.horizon,
        "steps_left": state.horizon - state.step,
        "score": score,
        "grid_size": state.grid_size,
        "goal_column": state.goal_column,
        "me": {"seat": seat, "x": x, "y": y},
        "teammates": [
            {
                "seat": t.seat,
                "x": state.agents[t.seat][0],
                "y": state.agents[t.seat][1],
                "last_skill": t.last_skill,
                "last_action": t.last_action,
            }
            for t in teammates
        ],
        "blocks": [
            {
                "index": b.index,
                "x": b.position[0],
                "y": b.position[1],
                "weight": b.weight,
                "delivered": b.delivered,
                "to_goal": max(state.goal_column - (b.position[0] + b.weight - 1), 0),
                "distance": None if b.delivered else face_distance(state, seat, b),
                "on_face": 0 if b.delivered else on_face(state, b),
                "ahead": None if b.delivered else block_ahead(state, b),
            }
            for b in state.blocks
        ],
    }


def memory_line(facts: dict) -> str:
    left = [str(b["index"]) for b in facts["blocks"] if not b["delivered"]]
    me = facts["me"]
    return f"you at ({me['x']},{me['y']}); blocks left: {', '.join(left) or 'none'}"


def render_grid(state: CubeView) -> str:
    """Rows top to bottom: digits are agents, letters blocks (A = block 0), '|' the goal column."""
    rows = [[GOAL if x == state.goal_column else EMPTY for x in range(state.grid_size)] for _ in range(state.grid_size)]
    for block in state.remaining:
        for bx, by in block.cells:
            rows[by][bx] = chr(ord("A") + block.index)
    for seat, (ax, ay) in enumerate(state.agents):
        rows[ay][ax] = str(seat % 10)
    header = f"step {state.step}/{state.horizon} score {state.score}"
    return "\n".join([header, *("".join(r) for r in rows)])
