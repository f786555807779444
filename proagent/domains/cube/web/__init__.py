"""CUBE in the browser: how the generic replay page draws a block-pushing episode.

`replay_drawing()` is this domain's hook for `proagent.web.replay_data`: it decodes a trace line
into the JSON that ``cube.js`` draws. A line carries the structured ``cube`` record
(`CubeView.to_record`: agents, blocks, the pushes of the step that led to it), on step 0 the
``layout`` (`CubeDomain.page_facts`: grid size, goal column, step cost, horizon) and after the last
step the ``final`` state. No JAX and no env are imported: a replay only reads the trace.
"""

from __future__ import annotations

from pathlib import Path

from proagent.world.replay import EndFrame, ReplayDrawing

SCRIPT = Path(__file__).resolve().parent / "cube.js"  # defines ReplayDomain


def scene(first: dict) -> dict:
    """The board every frame is drawn on (``board``: the payload's ``layout`` is the layout's name).
    Traces without ``layout`` on step 0 get it from the first ``cube`` record."""
    layout = first.get("layout")
    if isinstance(layout, dict) and "grid_size" in layout:
        return {"board": layout}
    cube = first.get("cube") or {}
    size = cube.get("grid_size")
    board = {
        "grid_size": size,
        "goal_column": size - 1 if isinstance(size, int) else None,
        "horizon": cube.get("horizon"),
    }
    return {"board": board}


def frame(line: dict) -> dict:
    """The CUBE record of one step (the state before the step's actions), or None when the line
    has none (the page then draws only the board)."""
    return {"cube": line.get("cube")}


def end(last: dict) -> EndFrame | None:
    """The state after the last step, when the trace reached the end of the episode."""
    final = last.get("final")
    if not final or not final.get("cube"):
        return None
    cube = final["cube"]
    return EndFrame(int(cube.get("step", last.get("step", 0) + 1)), {"cube": cube})


def replay_drawing() -> ReplayDrawing:
    """The hook `proagent.web.replay_data.replay_drawing_for("cube")` returns."""
    return ReplayDrawing("cube", SCRIPT, scene, frame, end)


__all__ = ["SCRIPT", "replay_drawing"]
