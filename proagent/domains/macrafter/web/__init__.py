"""MA-Crafter in the browser: how the generic replay page and the human page draw the world.

`replay_drawing()` is this world's hook for `proagent.web.replay_data`: it decodes a trace line
into the JSON that ``macrafter.js`` draws. A line carries the structured ``macrafter`` record (the
state before the step: `CrafterView.to_record` plus each agent's faced cell), the step's
``capability_changes`` (dZ: seat -> item -> units gained or lost), on step 0 the ``layout`` (the
world's size, material and item names and its rules) and after the last step the ``final`` state.
No JAX and no env are imported: a replay only reads the trace.
"""

from __future__ import annotations

from pathlib import Path

from proagent.world.replay import EndFrame, ReplayDrawing

SCRIPT = Path(__file__).resolve().parent / "macrafter.js"  # defines ReplayDomain and HumanDomain
RECORD_KEY = "macrafter"  # the same names as `proagent.domains.macrafter.rendering` writes
CHANGES_KEY = "capability_changes"


def scene(first: dict) -> dict:
    """The world every frame is drawn on (``world``): the layout's facts, or for traces without
    them the size and horizon of the first record (the page then uses its own names)."""
    layout = first.get("layout")
    if isinstance(layout, dict) and "width" in layout:
        return {"world": layout}
    state = first.get(RECORD_KEY) or {}
    return {"world": {"width": state.get("width"), "height": state.get("height"), "horizon": state.get("horizon")}}


def _changes(line: dict) -> dict:
    """The step's dZ when it is seat -> item -> integer, else {} (a run folder is untrusted)."""
    changes = line.get(CHANGES_KEY)
    if not isinstance(changes, dict):
        return {}
    return {
        str(seat): {str(k): v for k, v in items.items() if isinstance(v, int) and not isinstance(v, bool)}
        for seat, items in changes.items()
        if isinstance(items, dict)
    }


def frame(line: dict) -> dict:
    """The state before the step and the step's capability changes (None and {} when absent)."""
    return {RECORD_KEY: line.get(RECORD_KEY), "changes": _changes(line)}


def end(last: dict) -> EndFrame | None:
    """The state after the last step, when the trace reached the end of the episode."""
    final = last.get("final")
    if not isinstance(final, dict) or not isinstance(final.get(RECORD_KEY), dict):
        return None
    state = final[RECORD_KEY]
    step = state.get("step")
    return EndFrame(step if isinstance(step, int) else int(last.get("step", 0)) + 1, {RECORD_KEY: state, "changes": {}})


def replay_drawing() -> ReplayDrawing:
    """The hook `proagent.domains.replay_drawing_for("macrafter")` returns."""
    return ReplayDrawing("macrafter", SCRIPT, scene, frame, end)


__all__ = ["SCRIPT", "replay_drawing"]
