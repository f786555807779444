"""The pointer family: an actor-critic for grid observations whose actions name things on the grid.

Why: a world like Yōkai has a thousand actions made of a few kinds: "observe card i", "move card i
to cell c", "place hint h on the card at cell c". A dense head over a flat torso (the grid family)
must learn every (item, cell) pair as its own output, through one small vector, so it learns
"put the hint on a card of the hint's colour" only after a very long budget. This head scores an
(item, cell) action from the item's own features and the cell's own features (a bilinear form), so
what it learns for one pair holds for every pair, as a pointer network or a fully convolutional
policy does.

How the network finds the items: each item group (cards, hints) has a one-hot id block in the
observation's channels, set on the cell where the item lies; an item's embedding is its cell's
features (zero when it is on no cell). The id channels serve only this lookup and are hidden from
the cell encoder, so an id is a label: relabelling two items swaps their logits and changes
nothing else (a symmetry the agent need not learn). Cells mix with their four neighbours (``mixing`` rounds, as
shifted slices: cheap on a CPU, where a convolution inside the PPO scan is slow) and receive the
pooled board, so an empty target cell knows what lies next to it and what phase the game is in.

The action space is a sequence of ``ActionBlock`` s, laid out in order (the world's own flat
encoding): ``global`` actions scored from the pooled board, ``item`` actions (one per item of a
group), ``item_cell`` actions (item-major, then every cell of the ``board`` window row by row).
The config names no world: a world's RL spec builds it from its layout.
"""

from __future__ import annotations

from typing import Literal

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.initializers import constant
from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.training.initializers import orthogonal


class ItemGroup(BaseModel):
    """Items the observation marks by a one-hot id: channel ``id_channel + i`` is 1 on item i's cell."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id_channel: int = Field(ge=0)
    count: int = Field(ge=1)


class ActionBlock(BaseModel):
    """``count`` global actions, or one action per item of ``group`` (kind ``item``), or one per
    (item of ``group``, board cell) pair (kind ``item_cell``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["global", "item", "item_cell"]
    count: int = Field(1, ge=1, description="global actions in the block (global blocks only)")
    group: int = Field(0, ge=0, description="the item group the block names (item blocks only)")


class PointerConfig(BaseModel):
    """What rebuilds a pointer policy from its parameters; stored in every manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    groups: tuple[ItemGroup, ...]
    blocks: tuple[ActionBlock, ...]
    board: tuple[int, int] = Field(description="rows, columns of the board window (top left of the grid)")
    cell_dim: int = Field(32, ge=1, description="features per cell")
    mixing: int = Field(2, ge=0, description="rounds of mixing each cell with its four neighbours")
    key_dim: int = Field(16, ge=1, description="size of the item and cell vectors an item_cell logit multiplies")
    fc_dim: int = Field(64, ge=1, description="width of the pooled board's layer (global actions and value)")

    @model_validator(mode="after")
    def _blocks_name_groups(self) -> PointerConfig:
        for block in self.blocks:
            if block.kind != "global" and block.group >= len(self.groups):
                raise ValueError(f"an {block.kind} block names item group {block.group}; there are {len(self.groups)}")
        return self

    @property
    def recurrent(self) -> bool:
        return False

    @property
    def num_actions(self) -> int:
        cells = self.board[0] * self.board[1]
        sizes = {"global": lambda b: b.count, "item": lambda b: self.groups[b.group].count}
        sizes["item_cell"] = lambda b: self.groups[b.group].count * cells
        return sum(sizes[b.kind](b) for b in self.blocks)


def neighbour_sum(x: jax.Array) -> jax.Array:
    """(..., H, W, D) -> the sum of each cell's four side neighbours (zero beyond the edge)."""
    padded = jnp.pad(x, [(0, 0)] * (x.ndim - 3) + [(1, 1), (1, 1), (0, 0)])
    h, w = x.shape[-3], x.shape[-2]
    return (
        padded[..., :h, 1 : w + 1, :]
        + padded[..., 2:, 1 : w + 1, :]
        + padded[..., 1 : h + 1, :w, :]
        + padded[..., 1 : h + 1, 2:, :]
    )


def _dense(features: int, scale: float = np.sqrt(2)) -> nn.Dense:
    return nn.Dense(features, kernel_init=orthogonal(scale), bias_init=constant(0.0))


class PointerActorCritic(nn.Module):
    """obs (..., H, W, C) -> (logits (..., num_actions), value (...))."""

    config: PointerConfig

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        cfg = self.config
        x = obs.astype(jnp.float32)
        cells = nn.relu(_dense(cfg.cell_dim)(nn.relu(_dense(cfg.cell_dim)(x * self._without_ids(x.shape[-1])))))
        for _ in range(cfg.mixing):
            cells = cells + nn.relu(_dense(cfg.cell_dim)(jnp.concatenate([cells, neighbour_sum(cells)], -1)))
        pooled = jnp.concatenate([cells.mean((-3, -2)), cells.max((-3, -2))], -1)
        board = nn.relu(nn.LayerNorm()(_dense(cfg.fc_dim)(pooled)))
        cells = cells + _dense(cfg.cell_dim)(board)[..., None, None, :]
        rows, cols = cfg.board
        board_cells = cells[..., :rows, :cols, :].reshape(*cells.shape[:-3], rows * cols, cfg.cell_dim)
        items = [
            jnp.einsum("...hwn,...hwd->...nd", x[..., g.id_channel : g.id_channel + g.count], cells) for g in cfg.groups
        ]
        logits = [self._block(block, board, items, board_cells) for block in cfg.blocks]
        value = _dense(1, 1.0)(nn.relu(_dense(cfg.fc_dim)(board)))
        return jnp.concatenate(logits, -1), jnp.squeeze(value, -1)

    def _without_ids(self, channels: int) -> np.ndarray:
        """(channels,) 1.0, 0.0 on every group's id channels."""
        keep = np.ones(channels, np.float32)
        for g in self.config.groups:
            keep[g.id_channel : g.id_channel + g.count] = 0.0
        return keep

    def _block(self, block: ActionBlock, board: jax.Array, items: list[jax.Array], cells: jax.Array) -> jax.Array:
        """One block's logits, near 0 at initialisation (a near-uniform first policy)."""
        if block.kind == "global":
            return _dense(block.count, 0.01)(board)
        item = items[block.group]  # (..., n, D)
        if block.kind == "item":
            context = jnp.broadcast_to(board[..., None, :], (*item.shape[:-1], board.shape[-1]))
            return _dense(1, 0.01)(jnp.concatenate([item, context], -1))[..., 0]
        k = self.config.key_dim
        query = _dense(k, 0.1)(item)  # (..., n, k)
        key = _dense(k, 0.1)(cells)  # (..., cells, k)
        pair = jnp.einsum("...nk,...ck->...nc", query, key) / np.sqrt(k) + _dense(1, 0.01)(cells)[..., None, :, 0]
        return pair.reshape(*pair.shape[:-2], -1)
