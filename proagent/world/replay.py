"""How a world's episodes are drawn by the generic replay page (types only, no world, no JAX).

A world's light drawing module (Overcooked's ``proagent.domains.overcooked.web``) returns a
`ReplayDrawing`; `proagent.web.replay_data` calls its hooks and nothing else of the world.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EndFrame:
    """The state after an episode's last step: the trace keeps it in its last line."""

    step: int
    drawn: dict  # the fields the final frame draws, as `ReplayDrawing.frame` gives them


@dataclass(frozen=True)
class ReplayDrawing:
    """How one domain's episodes are drawn: the generic page and payload call these hooks and
    nothing else of the world, so a new domain plugs in without touching `proagent.web`.

    ``script`` is the domain's JS file; it must define a global ``ReplayDomain`` with
    ``draw(canvas, payload, frame, {names})``, ``seatColor(i)``, ``seatStatus(frame, i)`` (a text,
    or null when the frame has no such seat), ``horizon(frame)``, ``eventNote(event)`` (timeline
    text, or null) and ``notable`` (what the timeline lists besides decisions, or "").
    """

    domain: str
    script: Path
    scene: Callable[[dict], dict]  # the first trace line -> payload fields every frame draws on (a map)
    frame: Callable[[dict], dict]  # one trace line -> the fields its frame draws (merged into the frame)
    end: Callable[[dict], EndFrame | None]  # the last line -> the state after it (the final frame), or None
    legacy_metrics: tuple[str, ...] = ()  # top-level record fields older records kept instead of domain_metrics


__all__ = ["EndFrame", "ReplayDrawing"]
