"""Pictures of a world: a grid canvas and the one GIF writer every world's `Rendering` uses."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from proagent.world.capabilities import Rendering

Colour = tuple[int, int, int]
SEAT_COLOURS: tuple[Colour, ...] = ((220, 60, 60), (60, 110, 220), (60, 170, 80), (160, 80, 200), (230, 140, 30), (30, 170, 170))


def seat_colour(seat: int) -> Colour:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


class GridCanvas:
    """A white picture of ``columns`` x ``rows`` cells of ``cell`` pixels; fill rectangles of cells."""

    def __init__(self, columns: int, rows: int, cell: int) -> None:
        self.cell = cell
        self.image = np.full((rows * cell, columns * cell, 3), 255, np.uint8)

    def fill(self, x: int, y: int, colour: Colour, width: int = 1, height: int = 1, inset: int = 1) -> None:
        """Cells ``x..x+width-1`` by ``y..y+height-1``, ``inset`` pixels in from their border."""
        c = self.cell
        self.image[y * c + inset : (y + height) * c - inset, x * c + inset : (x + width) * c - inset] = colour

    def fill_columns(self, first: int, colour: Colour) -> None:
        """Every cell from column ``first`` rightwards, edge to edge (a goal area)."""
        self.image[:, first * self.cell :] = colour


def write_gif(frames: Iterable[np.ndarray], path: Path, ms_per_frame: int) -> Path:
    """RGB frames as a looping animated GIF (the folder is made)."""
    from PIL import Image

    images = [Image.fromarray(np.asarray(f, np.uint8)) for f in frames]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=ms_per_frame, loop=0)
    return path


def gif_of_states(frame: Callable[[Any], np.ndarray], ms_per_frame: int) -> Callable[[Any, Sequence[Any], Path], None]:
    """A `Rendering.save_gif` from a picture of one symbolic state: decodes each engine state with
    the env (``env.symbolic``) and writes them all."""

    def save_gif(env: Any, states: Sequence[Any], path: Path) -> None:
        write_gif((frame(env.symbolic(s)) for s in states), path, ms_per_frame)

    return save_gif


def grid_rendering(
    key: str,
    text: Callable[[Any], str],
    record: Callable[[Any], dict],
    page_facts: Callable[[Any, Any], dict],
    frame: Callable[[Any], np.ndarray],
    ms_per_frame: int,
) -> Rendering:
    """The usual `Rendering` of a world: the trace line carries the structured state under ``key``
    each step, the layout's page facts on step 0 and the final state after the last step; the GIF
    is one ``frame`` per state."""

    def frame_extras(env: Any, state: Any, after: Any, done: bool) -> dict:
        extras: dict = {key: record(state)}
        if state.step == 0:
            extras["layout"] = page_facts(env, state)
        if done:
            extras["final"] = {"state": text(after), key: record(after)}
        return extras

    return Rendering(text, record, page_facts, frame_extras, gif_of_states(frame, ms_per_frame))
