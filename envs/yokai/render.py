"""ASCII and RGB pictures of a Yōkai view (full or one player's), for logs, prompts and replays.

ASCII: one 3-character cell per grid square, ``R3*`` = a red card with id 3 carrying a hint, ``?``
for a colour the view does not hold, `` . `` for an empty square; a header names the turn and
phase, and one line per hint gives its status and colours. Only the rows and columns within one
square of a card are drawn, so the picture stays small while cards spread out.
"""

from __future__ import annotations

import numpy as np

from envs.yokai.rules import COLOUR_LETTERS, COLOUR_NAMES, HintStatus
from envs.yokai.scenario import YokaiConfig
from envs.yokai.symbolic import YokaiView

RGB = {
    "red": (214, 69, 65),
    "green": (76, 175, 80),
    "blue": (66, 133, 244),
    "purple": (156, 39, 176),
    None: (90, 90, 90),  # colour unknown to the view
}
BACKGROUND = (236, 232, 222)
HINT_MARK = (255, 255, 255)


def _window(view: YokaiView, grid_size: int) -> tuple[range, range]:
    rows = [c.position[0] for c in view.cards]
    cols = [c.position[1] for c in view.cards]
    r = range(max(min(rows) - 1, 0), min(max(rows) + 2, grid_size))
    c = range(max(min(cols) - 1, 0), min(max(cols) + 2, grid_size))
    return r, c


def _cell_text(view: YokaiView, cell: tuple[int, int]) -> str:
    card = view.card_at(cell)
    if card is None:
        return " . "
    letter = "?" if card.colour is None else COLOUR_LETTERS[COLOUR_NAMES.index(card.colour)]
    return f"{letter}{card.index:x}{'*' if card.hint is not None else ' '}"


def render_ascii(view: YokaiView, config: YokaiConfig) -> str:
    """The board, the turn and the hints as text lines."""
    who = "full view" if view.viewer is None else f"seen by player {view.viewer}"
    state = "game over" if view.done else f"player {view.player} to {view.phase.name.lower()}"
    lines = [f"step {view.step}, {state} ({who})"]
    rows, cols = _window(view, config.grid_size)
    lines.append("    " + "".join(f"{c:^3}" for c in cols))
    lines += [f"{r:>3} " + "".join(_cell_text(view, (r, c)) for c in cols) for r in rows]
    for h in view.hints:
        colours = "?" if h.colours is None else "/".join(h.colours)
        where = f" on card {h.card}" if h.status == HintStatus.PLACED else ""
        lines.append(f"hint {h.index}: {h.status.name.lower()} [{colours}]{where}")
    if view.done:
        lines.append(f"{'won' if view.won else 'lost'}, score {view.score}")
    return "\n".join(lines)


def render_rgb(view: YokaiView, config: YokaiConfig, cell_px: int = 16) -> np.ndarray:
    """(g * cell_px, g * cell_px, 3) uint8: cards as coloured squares, a white dot marks a hint."""
    g = config.grid_size
    img = np.empty((g * cell_px, g * cell_px, 3), np.uint8)
    img[:] = BACKGROUND
    pad, mid = max(cell_px // 8, 1), cell_px // 2
    for card in view.cards:
        r, c = card.position
        y, x = r * cell_px, c * cell_px
        img[y + pad : y + cell_px - pad, x + pad : x + cell_px - pad] = RGB[card.colour]
        if card.hint is not None:
            dot = max(cell_px // 6, 1)
            img[y + mid - dot : y + mid + dot, x + mid - dot : x + mid + dot] = HINT_MARK
    return img
