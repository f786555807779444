"""The board as a graph, in JAX: adjacency, reachability (eq. 6) and legal card moves.

Connectivity is reachability on the adjacency matrix: ``(I + A)^(n-1)`` by repeated squaring,
positive everywhere iff the cards form one side-connected group. Legal moves are computed for all
(card, cell) candidates at once: for each card, the components of the board without it (one
batched reachability), then a target cell is legal iff it is empty and its side-neighbour cards
touch every one of those components, which is exactly "the board after the move is connected".
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

_OFFSETS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # the four side-neighbours of a cell


def adjacency_from_positions(pos: jax.Array) -> jax.Array:
    """(Y, Y) bool: cards at Manhattan distance 1 (side-neighbours)."""
    d = jnp.abs(pos[:, None, :] - pos[None, :, :]).sum(-1)
    return d == 1


def neighbours_of(pos: jax.Array, cell_row: jax.Array, cell_col: jax.Array) -> jax.Array:
    """(Y,) bool: the cards side-adjacent to one cell (the vector v of eq. 8)."""
    return (jnp.abs(pos[:, 0] - cell_row) + jnp.abs(pos[:, 1] - cell_col)) == 1


def reachability(adjacency: jax.Array) -> jax.Array:
    """(..., n, n) bool: ``(I + A)^(n-1) > 0`` by ceil(log2(n-1)) boolean squarings (eq. 6)."""
    n = adjacency.shape[-1]
    m = (adjacency | jnp.eye(n, dtype=bool)).astype(jnp.float32)
    for _ in range(max(1, math.ceil(math.log2(max(n - 1, 2))))):
        m = (jnp.matmul(m, m) > 0).astype(jnp.float32)
    return m > 0


def is_connected(adjacency: jax.Array) -> jax.Array:
    """() bool: all cards in one group."""
    return jnp.all(reachability(adjacency))


def occupancy(pos: jax.Array, grid_size: int) -> jax.Array:
    """(g*g,) int32: the card on each cell, -1 where empty."""
    cells = pos[:, 0] * grid_size + pos[:, 1]
    ids = jnp.arange(pos.shape[0], dtype=jnp.int32)
    return jnp.full((grid_size * grid_size,), -1, jnp.int32).at[cells].set(ids)


def cell_neighbour_cards(occ: jax.Array, grid_size: int) -> jax.Array:
    """(g*g, 4) int32: the card on each side-neighbour of every cell, -1 where empty or off-grid."""
    grid = occ.reshape(grid_size, grid_size)
    padded = jnp.pad(grid, 1, constant_values=-1)
    shifted = [padded[1 + dr : 1 + dr + grid_size, 1 + dc : 1 + dc + grid_size] for dr, dc in _OFFSETS]
    return jnp.stack(shifted, axis=-1).reshape(grid_size * grid_size, 4)


def _component_labels(adjacency: jax.Array) -> tuple[jax.Array, jax.Array]:
    """For each card c removed: (Y, Y) int32 label (lowest reachable card) of every other card in
    the board without c, and (Y,) int32 number of components of that board."""
    n = adjacency.shape[0]
    keep = ~jnp.eye(n, dtype=bool)  # keep[c, j]: card j stays when c is lifted
    without = adjacency[None] & keep[:, :, None] & keep[:, None, :]  # (c, i, j)
    reach = reachability(without) & keep[:, None, :]  # never reach the lifted card itself
    labels = jnp.argmax(reach, axis=-1).astype(jnp.int32)  # lowest reachable index (self for roots)
    roots = keep & (labels == jnp.arange(n)[None, :])
    return labels, jnp.sum(roots, axis=-1, dtype=jnp.int32)


def move_mask(pos: jax.Array, adjacency: jax.Array, hinted: jax.Array, grid_size: int) -> jax.Array:
    """(Y, g*g) bool: card c may move to cell q. Rules: c carries no hint, q is empty (so c's own
    cell is excluded), and the board with c at q is one side-connected group."""
    n = pos.shape[0]
    occ = occupancy(pos, grid_size)
    nbr = cell_neighbour_cards(occ, grid_size)  # (Q, 4)
    labels, n_comp = _component_labels(adjacency)  # (Y, Y), (Y,)
    valid = (nbr[None] >= 0) & (nbr[None] != jnp.arange(n)[:, None, None])  # (Y, Q, 4)
    lab = jnp.where(valid, jnp.take_along_axis(labels[:, None, :], jnp.maximum(nbr, 0)[None], axis=-1), -1)
    distinct = jnp.zeros(lab.shape[:2], jnp.int32)
    for s in range(4):  # count distinct component labels among the (up to) four neighbours
        new = valid[..., s]
        for t in range(s):
            new = new & (lab[..., s] != lab[..., t])
        distinct = distinct + new
    return (~hinted)[:, None] & (occ[None, :] < 0) & (distinct == n_comp[:, None]) & (n_comp[:, None] > 0)


def colour_clusters(adjacency: jax.Array, colours: jax.Array, num_colours: int) -> jax.Array:
    """(C,) bool: the cards of each colour form one side-connected cluster (among themselves)."""
    same = colours[:, None] == colours[None, :]
    reach = reachability(adjacency & same)
    of = colours[None, :] == jnp.arange(num_colours)[:, None]  # (C, Y)
    pair = of[:, :, None] & of[:, None, :]
    return jnp.all(~pair | reach[None], axis=(1, 2))


def hint_correct(hint_colours: jax.Array, hint_card: jax.Array, colours: jax.Array) -> jax.Array:
    """(H,) bool: a placed hint whose colour set holds the colour of the card under it."""
    under = colours[jnp.maximum(hint_card, 0)]
    return (hint_card >= 0) & jnp.take_along_axis(hint_colours, under[:, None], axis=-1)[:, 0]


def hinted_cards(hint_card: jax.Array, num_cards: int) -> jax.Array:
    """(Y,) bool: cards that carry a placed hint."""
    return jnp.any(hint_card[:, None] == jnp.arange(num_cards)[None, :], axis=0)
