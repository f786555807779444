"""Overcooked in the browser: how the generic replay page draws a kitchen.

`replay_drawing()` is this domain's hook for `proagent.web.replay_data`: it decodes a trace line
into the JSON that ``kitchen.js`` draws. A line carries the structured ``kitchen`` record (and on
step 0 the ``terrain``, after the last step the ``final`` state); traces written before those
existed have only the ASCII ``state``, which `ascii_kitchen` parses back (approximately), so old
runs still replay. Records written before ``domain_metrics`` kept the soups at top level.
"""

from __future__ import annotations

from pathlib import Path

from proagent.domains.overcooked.web.ascii_kitchen import parse_ascii, parse_terrain
from proagent.world.replay import EndFrame, ReplayDrawing

SCRIPT = Path(__file__).resolve().parent / "kitchen.js"  # defines Kitchen (both pages) and ReplayDomain
LEGACY_METRICS = ("soups", "wrong_soups")  # EpisodeRecord's fields before they moved into domain_metrics


def scene(first: dict) -> dict:
    """The kitchen's terrain rows (legacy characters), drawn under every frame, and V2's view radius
    (each player sees the (2r+1)-square around it) where the kitchen has one."""
    found = {"terrain": first.get("terrain") or parse_terrain(first["state"])}
    radius = first.get("view_radius")
    if isinstance(radius, int) and not isinstance(radius, bool) and 0 < radius <= 64:
        found["view_radius"] = radius
    return found


def frame(line: dict) -> dict:
    """The kitchen record of one step (`KitchenState.to_record`), exact or parsed from the ASCII."""
    return {"kitchen": line.get("kitchen") or parse_ascii(line["state"])}


def end(last: dict) -> EndFrame | None:
    """The kitchen after the last step, when the trace reached the end of the episode."""
    final = last.get("final")
    if not final:
        return None
    kitchen = final.get("kitchen") or parse_ascii(final["state"])
    return EndFrame(kitchen["step"], {"kitchen": kitchen})


def replay_drawing() -> ReplayDrawing:
    """The hook `proagent.web.replay_data.replay_drawing_for("overcooked")` returns."""
    return ReplayDrawing("overcooked", SCRIPT, scene, frame, end, LEGACY_METRICS)


__all__ = ["SCRIPT", "replay_drawing"]
