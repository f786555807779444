"""Pictures of a world: a grid canvas and the one GIF writer every world's `Rendering` uses."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from envs.seat_colours import SEAT_COLOURS
from proagent.world.capabilities import Rendering

# SEAT_COLOURS: one colour per seat everywhere, kept with the environments (the kitchen's frames use it
# too): every world's GIF and the web pages (the replay and human pages' scripts list the same colours;
# a test keeps them equal). Player 0 blue, player 1 green, ...
Colour = tuple[int, int, int]
CAPTION_PX = 22  # the strip under each GIF frame: step, score and the seats' colours
MIN_WIDTH = 480  # a GIF narrower than this is scaled up by a whole factor (pixels stay sharp)


def seat_colour(seat: int) -> Colour:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def hex_colour(colour: Colour) -> str:
    return "#" + "".join(f"{c:02x}" for c in colour)


def scaled(frame: np.ndarray, min_width: int = MIN_WIDTH) -> np.ndarray:
    """``frame`` enlarged by the smallest whole factor that makes it at least ``min_width`` wide."""
    factor = max(1, -(-min_width // max(1, frame.shape[1])))
    return frame if factor == 1 else np.repeat(np.repeat(frame, factor, axis=0), factor, axis=1)


def captioned(frame: np.ndarray, step: int, score: str, seats: int) -> np.ndarray:
    """``frame`` with a strip under it: the step, the score and a chip of each seat's colour."""
    from PIL import Image, ImageDraw, ImageFont

    height, width = frame.shape[:2]
    image = Image.new("RGB", (width, height + CAPTION_PX), (241, 239, 232))
    image.paste(Image.fromarray(np.asarray(frame, np.uint8)), (0, 0))
    draw, font = ImageDraw.Draw(image), ImageFont.load_default(size=13)
    text_y = height + 4
    draw.text((6, text_y), f"step {step}   score {score}", fill=(34, 34, 34), font=font)
    x = width - 6 - 74 * seats
    for seat in range(seats):
        draw.rectangle((x, text_y + 1, x + 12, text_y + 13), fill=seat_colour(seat))
        draw.text((x + 16, text_y), f"player {seat}", fill=(34, 34, 34), font=font)
        x += 74
    return np.asarray(image)


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
    state for the end grew with the episode, 83 MiB per 1,000 steps on counter_circuit).

    With ``seats`` (the team's size), each frame is enlarged to at least `MIN_WIDTH` pixels and
    gets a caption line: its step, the score so far (``scored`` gives it after each step, as the
    runner's ``on_step`` sees it) and each seat's colour."""

    def __init__(
        self, env: Any, rendering: Rendering, path: Path, chunk: int = 64, seats: int = 0,
        score_text: Callable[[float], str] = lambda score: f"{score:g}",
    ) -> None:  # fmt: skip
        self.env, self.rendering, self.chunk, self.seats, self.score_text = env, rendering, chunk, seats, score_text
        self.pending: list[tuple[Any, float]] = []  # (state, score after it)
        self._score = 0.0  # the score so far
        self.stream = GifStream(path, rendering.ms_per_frame)

    def append(self, state: Any) -> None:
        self.pending.append((state, self._score))
        if len(self.pending) > self.chunk:  # the newest waits for its score
            self._draw(self.pending[:-1])
            self.pending = self.pending[-1:]

    def scored(self, score: float) -> None:
        """The score after the state appended last (the runner appends a state, then reports the step)."""
        self._score = score
        if self.pending:
            self.pending[-1] = (self.pending[-1][0], score)

    def __len__(self) -> int:
        return self.stream.count + len(self.pending)

    def _draw(self, batch: list[tuple[Any, float]]) -> None:
        frames = self.rendering.frames(self.env, [state for state, _ in batch])
        for (_, score), frame in zip(batch, frames, strict=True):
            if self.seats:
                frame = captioned(
                    scaled(np.asarray(frame, np.uint8)), self.stream.count, self.score_text(score), self.seats
                )
            self.stream.add(frame)

    def save(self) -> Path:
        self._draw(self.pending)
        self.pending = []
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
