"""Yōkai in the browser: how the generic replay page draws a game.

`replay_drawing()` is this domain's hook for `proagent.web.replay_data`: it decodes a trace line
into the JSON that ``yokai.js`` draws. A line carries the ``yokai`` record (`YokaiTable.to_record`:
the full table, every colour, since a replay is watched after the game), on step 0 the ``layout``
(`page_facts`: grid size, cards, colours, hints) and after the last step the ``final`` state. No JAX
and no env are imported: a replay only reads the trace.
"""

from __future__ import annotations

from pathlib import Path

from proagent.world.replay import EndFrame, ReplayDrawing

SCRIPT = Path(__file__).resolve().parent / "yokai.js"  # defines ReplayDomain


def scene(first: dict) -> dict:
    """The board every frame is drawn on; traces without ``layout`` on step 0 draw a 10 x 10 grid."""
    layout = first.get("layout")
    return {"board": layout if isinstance(layout, dict) and "grid_size" in layout else {"grid_size": 10}}


def frame(line: dict) -> dict:
    """The table before the step's action, or None when the line has none."""
    return {"yokai": line.get("yokai")}


def end(last: dict) -> EndFrame | None:
    """The table after the last step, when the trace reached the end of the game."""
    final = last.get("final")
    if not final or not final.get("yokai"):
        return None
    table = final["yokai"]
    return EndFrame(int(table.get("step", last.get("step", 0) + 1)), {"yokai": table})


def replay_drawing() -> ReplayDrawing:
    """The hook `proagent.web.replay_data.replay_drawing_for("yokai")` returns."""
    return ReplayDrawing("yokai", SCRIPT, scene, frame, end)


__all__ = ["SCRIPT", "replay_drawing"]
