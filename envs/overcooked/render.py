"""Pictures of a kitchen: ASCII for terminals and logs, RGB frames and GIFs for people.

RGB frames come from JaxMARL's jitted visualizer, so a whole recorded episode renders in one
vmapped call.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import jax
import numpy as np

from envs.overcooked.actions import Direction
from envs.overcooked.engine import StaticObject
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.symbolic import Item, KitchenState, Pos
from envs.seat_colours import SEAT_COLOURS

_TERRAIN = {
    StaticObject.EMPTY: " ",
    StaticObject.WALL: "X",
    StaticObject.POT: "P",
    StaticObject.GOAL: "S",
    StaticObject.PLATE_PILE: "D",
    StaticObject.RECIPE_INDICATOR: "R",
    StaticObject.BUTTON_RECIPE_INDICATOR: "L",
}
_ARROWS = {Direction.UP: "^", Direction.DOWN: "v", Direction.RIGHT: ">", Direction.LEFT: "<"}


def _item_char(item: Item | None) -> str:
    if item is None:
        return " "
    if item.kind == "ingredient":
        return ingredient_name(item.ingredients[0])[0]
    return "d" if item.kind == "dish" else "s"


def _pile_char(tile: int) -> str:
    return ingredient_name(tile - StaticObject.INGREDIENT_PILE_BASE)[0].upper()


def terrain_rows(tiles: np.ndarray) -> list[str]:
    """The static terrain of a layout's tile grid, one legacy kitchen character a cell
    (X counter, P pot, O/T/.. dispensers, D dishes, S serving, R/L indicators, space floor)."""
    rows = []
    for y in range(tiles.shape[0]):
        row = ""
        for x in range(tiles.shape[1]):
            tile = int(tiles[y, x])
            row += _pile_char(tile) if tile >= StaticObject.INGREDIENT_PILE_BASE else _TERRAIN[tile]
        rows.append(row)
    return rows


def render_ascii(kitchen: KitchenState, visible: Callable[[Pos], bool] | None = None) -> str:
    """Two characters a cell: terrain + content; players are an arrow (facing) + what they hold.

    Pots show their onion count, '~' while cooking, '!' when ready. With ``visible`` (a partial
    view) only cells it accepts show chefs and contents: a pot or counter out of view is 'P?' /
    'X?' (the static map is layout knowledge and stays).
    """
    tiles = kitchen.layout.tiles
    players = {p.position: p for p in kitchen.players if visible is None or visible(p.position)}
    lines = []
    for y in range(tiles.shape[0]):
        cells = []
        for x in range(tiles.shape[1]):
            pos, tile = (x, y), int(tiles[y, x])
            if visible is not None and not visible(pos) and tile in (StaticObject.POT, StaticObject.WALL):
                cells.append(_TERRAIN[tile] + "?")
            elif pos in players:
                p = players[pos]
                cells.append(_ARROWS[p.orientation] + _item_char(p.held))
            elif pos in kitchen.pot_at:
                pot = kitchen.pot_at[pos]
                mark = (
                    "!"
                    if pot.ready
                    else "~"
                    if pot.cooking
                    else (str(len(pot.ingredients)) if pot.ingredients else " ")
                )
                cells.append("P" + mark)
            elif tile >= StaticObject.INGREDIENT_PILE_BASE:
                cells.append(_pile_char(tile) + " ")
            else:
                cells.append(_TERRAIN[tile] + _item_char(kitchen.counter_items.get(pos)))
        lines.append("".join(cells).rstrip())
    legend = [
        f"t={kitchen.step}/{kitchen.horizon}  recipe: {', '.join(kitchen.recipe_names)}",
        *(
            f"player {p.index}: at {p.position} facing {p.orientation.name.lower()}, holding "
            f"{p.held.describe() if p.held else 'nothing'}"
            for p in kitchen.players
        ),
    ]
    return "\n".join(lines + legend)


@cache
def _visualizer():
    """JaxMARL's visualizer, its agent colours set to ours before anything is traced (it reads the
    module's ``AGENT_COLORS`` when a state is first rendered)."""
    import jax.numpy as jnp
    from jaxmarl.viz import overcooked_v2_visualizer as viz

    # JaxMARL draws agents red, blue, ...: the reverse of our pages for a two-seat kitchen.
    viz.AGENT_COLORS = jnp.array(SEAT_COLOURS, dtype=viz.AGENT_COLORS.dtype)
    return viz.OvercookedV2Visualizer()


def render_rgb(state: object, agent_view_size: int | None = None) -> np.ndarray:
    """One (unbatched) engine state to an (H, W, 3) uint8 frame."""
    return np.asarray(_visualizer()._render_state(state, agent_view_size), dtype=np.uint8)


@cache
def _jit_render_batch(agent_view_size: int | None) -> Callable[[object], jax.Array]:
    render = jax.vmap(_visualizer()._render_state, in_axes=(0, None))
    return jax.jit(lambda states: render(states, agent_view_size))


def render_rgb_batch(states: object, agent_view_size: int | None = None, chunk: int = 16) -> np.ndarray:
    """A stacked sequence of states (leading axis = time) to (T, H, W, 3) frames.

    Rendered by one jitted, vmapped call per ``chunk`` states (the last chunk padded with its final
    state, so one compiled shape serves every chunk): rendering a whole 400-step episode in one
    un-jitted vmap held ~4 GB of intermediates; chunks keep the peak at a few hundred MB."""
    total = int(jax.tree.leaves(states)[0].shape[0])
    render = _jit_render_batch(agent_view_size)
    frames = []
    for start in range(0, total, chunk):
        stop = min(start + chunk, total)
        part = jax.tree.map(lambda x, a=start, b=stop: _pad_rows(np.asarray(x[a:b]), chunk), states)
        frames.append(np.asarray(render(part), dtype=np.uint8)[: stop - start])
    return np.concatenate(frames) if frames else np.zeros((0, 0, 0, 3), np.uint8)


def _pad_rows(x: np.ndarray, rows: int) -> np.ndarray:
    """``x`` with its last row repeated up to ``rows`` rows."""
    missing = rows - x.shape[0]
    return x if missing <= 0 else np.concatenate([x, np.repeat(x[-1:], missing, axis=0)])


def save_gif(frames: np.ndarray, path: Path, fps: float = 5.0) -> Path:
    """Write frames as a looping GIF."""
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(f) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path


def stack_states(states: list[object]) -> object:
    """A list of single states to one batched pytree (for render_rgb_batch)."""
    return jax.tree.map(lambda *xs: np.stack(xs), *states)
