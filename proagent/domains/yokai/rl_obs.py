"""Yōkai as a network sees it: the paper's image-like observation (App. D, "CNN": a g x (g + 1) grid
of per-cell features) and the symmetries Other-Play draws from (§5.1: colour permutations x the
four grid rotations), pure JAX.

The grid is the g x g board plus one extra column for the hints, so one tensor carries everything
the actions name: cards by id and cell (OBSERVE, MOVE), hints by id (REVEAL, PLACE). Channels, in
order (all 0/1, stored as uint8 like Overcooked's grids; the network casts to float32):

- on a card's cell (``card_channels``): card present; its colour one-hot as this seat holds it
  (the seat's private colours; all 0 when unknown); hinted; the colours of the hints on it; which
  seats have looked at it, own seat first; looked at this turn; the card's id one-hot;
- in the hint column, row h < |H| (``hint_channels``): hint present; status one-hot (face down,
  revealed, placed); its colours once face up; the hint's id one-hot;
- on every cell (``global_channels``): the phase one-hot; the acting seat relative to this one.

A symmetry is ``(colours, rotation)``: ``colours[c]`` is the colour a seat sees for real colour c,
``rotation`` quarter turns of the board (cell (r, c) -> (c, g - 1 - r) per turn; the starting
square of cards is centred, so every rotation is a symmetry of the game). Actions that name a cell
(MOVE, PLACE) are rotated with the board; ``action_to_real`` maps a seat's action back.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from envs.yokai.observation import YokaiObservation
from envs.yokai.rules import HintStatus
from envs.yokai.scenario import YokaiConfig

ROTATIONS = 4
PHASES = 4


def card_channels(config: YokaiConfig) -> int:
    c, p, y = config.num_colours, config.num_players, config.num_cards
    return 1 + c + 1 + c + p + 1 + y


def hint_channels(config: YokaiConfig) -> int:
    return 1 + len(HintStatus) + config.num_colours + config.num_hints


def global_channels(config: YokaiConfig) -> int:
    return PHASES + config.num_players


def card_id_channel(config: YokaiConfig) -> int:
    """The first channel of a card's id one-hot (the last block of ``card_channels``), set on its cell."""
    return card_channels(config) - config.num_cards


def hint_id_channel(config: YokaiConfig) -> int:
    """The first channel of a hint's id one-hot (the last block of ``hint_channels``), set in its row of the hint
    column."""
    return card_channels(config) + hint_channels(config) - config.num_hints


def obs_shape(config: YokaiConfig) -> tuple[int, int, int]:
    g = config.grid_size
    return g, g + 1, card_channels(config) + hint_channels(config) + global_channels(config)


def check_fits(config: YokaiConfig) -> None:
    """The hint column holds one hint per row: a layout with more hints than rows cannot be encoded."""
    if config.num_hints > config.grid_size:
        raise ValueError(
            f"yokai {config.name}: {config.num_hints} hints do not fit a {config.grid_size}-row hint column"
        )


def rotated_cells(grid_size: int) -> np.ndarray:
    """(4, g * g) int32: ``[k, cell]`` is where ``cell`` (row * g + col) lies after k quarter turns."""
    g = grid_size
    rows, cols = np.divmod(np.arange(g * g), g)
    table = []
    for _ in range(ROTATIONS):
        table.append(rows * g + cols)
        rows, cols = cols, g - 1 - rows
    return np.stack(table).astype(np.int32)


def action_to_real(config: YokaiConfig) -> np.ndarray:
    """(4, N) int32: ``[k, a]`` is the real action of action ``a`` chosen on a board seen turned k
    times: a MOVE's target cell and a PLACE's cell are turned back; every other action is itself."""
    layout, cells = config.actions, config.grid_size**2
    unturn = rotated_cells(config.grid_size)[(ROTATIONS - np.arange(ROTATIONS)) % ROTATIONS]  # (4, cells)
    table = np.tile(np.arange(layout.size, dtype=np.int32), (ROTATIONS, 1))
    for start, count in ((layout.move_start, config.num_cards), (layout.place_start, config.num_hints)):
        block = np.arange(start, start + count * cells)
        item, cell = np.divmod(block - start, cells)
        table[:, block] = start + item * cells + unturn[:, cell]
    return table


def identity_symmetry(config: YokaiConfig) -> tuple[jax.Array, jax.Array]:
    """The plain view: colours as they are, no rotation."""
    return jnp.arange(config.num_colours, dtype=jnp.int32), jnp.int32(0)


def _card_features(obs: YokaiObservation, config: YokaiConfig, recolour: jax.Array) -> jax.Array:
    """(Y, card_channels) per card, colours as the seat sees them (``recolour``: (C, C) one-hot map)."""
    y = config.num_cards
    colour = jax.nn.one_hot(obs.colours, config.num_colours) @ recolour  # unknown (-1): all zeros
    hint_cols = obs.hint_colours.astype(jnp.float32) @ recolour  # (H, C)
    on_card = jax.nn.one_hot(obs.hint_card, y)  # (H, Y); an unplaced hint (-1) is on no card
    hinted = on_card.sum(0)[:, None]
    hint_colour = jnp.minimum(on_card.T @ hint_cols, 1.0)
    seen = jnp.roll(obs.seen, -obs.me, axis=0).astype(jnp.float32).T  # (Y, P), own seat first
    this_turn = jax.nn.one_hot(obs.turn_cards, y).sum(0)[:, None]
    return jnp.concatenate([jnp.ones((y, 1)), colour, hinted, hint_colour, seen, this_turn, jnp.eye(y)], axis=1)


def _hint_features(obs: YokaiObservation, config: YokaiConfig, recolour: jax.Array) -> jax.Array:
    """(H, hint_channels) per hint: present, status, colours once face up, id."""
    h = config.num_hints
    status = jax.nn.one_hot(obs.hint_status, len(HintStatus))
    colours = obs.hint_colours.astype(jnp.float32) @ recolour  # face-down hints are all False already
    return jnp.concatenate([jnp.ones((h, 1)), status, colours, jnp.eye(h)], axis=1)


def encode(obs: YokaiObservation, config: YokaiConfig, colours: jax.Array, rotation: jax.Array) -> jax.Array:
    """(g, g + 1, channels) uint8 observation of one seat under the symmetry ``(colours, rotation)``."""
    g, cc, hc = config.grid_size, card_channels(config), hint_channels(config)
    recolour = jax.nn.one_hot(colours, config.num_colours)  # row c: the seen colour of real colour c
    cells = obs.card_pos[:, 0] * g + obs.card_pos[:, 1]
    cells = jnp.asarray(rotated_cells(g))[rotation, cells]
    board = jnp.zeros((g * g, cc + hc)).at[cells, :cc].set(_card_features(obs, config, recolour))
    column = jnp.zeros((g, cc + hc)).at[: config.num_hints, cc:].set(_hint_features(obs, config, recolour))
    grid = jnp.concatenate([board.reshape(g, g, -1), column[:, None, :]], axis=1)
    relative = (obs.player - obs.me) % config.num_players
    glob = jnp.concatenate([jax.nn.one_hot(obs.phase, PHASES), jax.nn.one_hot(relative, config.num_players)])
    glob = jnp.broadcast_to(glob, (g, g + 1, glob.shape[0]))
    return jnp.concatenate([grid, glob], axis=-1).astype(jnp.uint8)
