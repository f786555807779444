"""Hand-built CUBE views for tests: agents, blocks ((x, y), weight, delivered) and last pushes."""

from __future__ import annotations

from envs.cube import CubeBlock, CubeView


def cube_view(
    agents: tuple, blocks: tuple, size: int = 8, step: int = 0, pushes: tuple = (), agent_push: tuple | None = None
) -> CubeView:
    return CubeView(
        step=step,
        horizon=50,
        grid_size=size,
        agents=agents,
        blocks=tuple(CubeBlock(i, pos, w, done) for i, (pos, w, done) in enumerate(blocks)),
        score=0,
        done=False,
        pushes=pushes,
        agent_push=agent_push or tuple(-1 for _ in agents),
    )
