"""The balancing pass's spawn cells: a chunk's columns as words of row bits (`grass_spots`) give the
same grass counts and the same k-th grass cell, in EmCoop's x-major order, as counting the map padded
to whole chunks (the path kept for chunks wider than a word), on ragged maps and every chunk size."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.macrafter.balance import _grass_spots_by_counts, grass_mask, grass_spots
from envs.macrafter.rules import Material
from envs.macrafter.settings import CrafterSettings

MATERIALS = [Material.GRASS, Material.GRASS, Material.PLANT, Material.SAND, Material.TREE, Material.WATER]


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 12, 31, 32])
@pytest.mark.parametrize("height,width", [(64, 64), (20, 9), (33, 40)])
def test_grass_words_match_the_counted_blocks(chunk_size: int, height: int, width: int) -> None:
    cfg = CrafterSettings(width=width, height=height, chunk_size=chunk_size)
    rows, cols = cfg.chunks
    rng = np.random.default_rng(chunk_size * 1000 + height)
    by_words = jax.jit(lambda g, p: grass_spots(cfg, g, p))
    by_counts = jax.jit(lambda g, p: _grass_spots_by_counts(cfg, grass_mask(g), p))
    for _ in range(3):
        grid = jnp.asarray(rng.choice([int(m) for m in MATERIALS], size=(height, width)).astype(np.int8))
        pick = jnp.asarray(rng.integers(0, 2**32, rows * cols, dtype=np.uint64).astype(np.uint32))
        for got, want in zip(by_words(grid, pick), by_counts(grid, pick), strict=True):
            assert np.array_equal(got, want)
