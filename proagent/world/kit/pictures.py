"""Pictures of a world: a grid canvas and the one GIF writer every world's `Rendering` uses."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from proagent.world.capabilities import Rendering

Colour = tuple[int, int, int]
SEAT_COLOURS: tuple[Colour, ...] = (
    (220, 60, 60),
    (60, 110, 220),
    (60, 170, 80),
    (160, 80, 200),
    (230, 140, 30),
    (30, 170, 170),
)


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
    stream = GifStream(path, ms_per_frame)
    for frame in frames:
        stream.add(frame)
    return stream.close()


class GifStream:
    """An animated GIF written a frame at a time, so no frame stays in memory once written.

    Pillow's own multi-frame save holds every frame until the file is written; this writes each one
    through Pillow's GIF encoder (``GifImagePlugin.getheader``/``getdata``) as it comes, with its
    own palette, into ``<path>.partial``, renamed to ``path`` by ``close``: a reader never sees half
    a GIF.
    """

    def __init__(self, path: Path, ms_per_frame: int) -> None:
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.ms_per_frame = ms_per_frame
        self.count = 0
        self._file: Any = None

    def add(self, frame: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image

        image = Image.fromarray(np.asarray(frame, np.uint8)).quantize(256, Image.Quantize.FASTOCTREE)
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.partial.open("wb")
            header, _ = GifImagePlugin.getheader(image, info={"loop": 0})
            self._file.write(b"".join(header))
        data = GifImagePlugin.getdata(image, duration=self.ms_per_frame, include_color_table=True, disposal=1)
        self._file.write(b"".join(data))
        self.count += 1

    def close(self) -> Path:
        if self._file is None:
            raise ValueError(f"{self.path}: a GIF needs at least one frame")
        self._file.write(b";")  # the GIF trailer
        self._file.close()
        self.partial.replace(self.path)
        return self.path


class GifRecorder:
    """An episode's GIF drawn as it plays: ``append`` takes each engine state (the runner's
    ``states`` sink); every ``chunk`` states are drawn (`Rendering.frames`), written to the file and
    let go, so memory holds at most ``chunk`` states whatever the horizon (holding every engine
    state for the end grew with the episode, 83 MiB per 1,000 steps on counter_circuit)."""

    def __init__(self, env: Any, rendering: Rendering, path: Path, chunk: int = 64) -> None:
        self.env, self.rendering, self.chunk = env, rendering, chunk
        self.pending: list[Any] = []
        self.stream = GifStream(path, rendering.ms_per_frame)

    def append(self, state: Any) -> None:
        self.pending.append(state)
        if len(self.pending) >= self.chunk:
            self._draw()

    def __len__(self) -> int:
        return self.stream.count + len(self.pending)

    def _draw(self) -> None:
        for frame in self.rendering.frames(self.env, self.pending):
            self.stream.add(frame)
        self.pending = []

    def save(self) -> Path:
        self._draw()
        return self.stream.close()


def save_gif(env: Any, rendering: Rendering, states: Iterable[Any], path: Path) -> Path:
    """A whole run of engine states as the world's GIF (what `GifRecorder` writes while playing)."""
    recorder = GifRecorder(env, rendering, path)
    for state in states:
        recorder.append(state)
    return recorder.save()


def frames_of_states(frame: Callable[[Any], np.ndarray]) -> Callable[[Any, Sequence[Any]], Iterable[np.ndarray]]:
    """A `Rendering.frames` from a picture of one symbolic state (each engine state decoded with
    ``env.symbolic``)."""

    def frames(env: Any, states: Sequence[Any]) -> Iterable[np.ndarray]:
        return [frame(env.symbolic(s)) for s in states]

    return frames


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

    return Rendering(text, record, page_facts, frame_extras, frames_of_states(frame), ms_per_frame)
