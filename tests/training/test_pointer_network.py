"""The pointer family: its action layout, the item lookup by id channels (an item's logits follow the
item, not its label), its place among the stored network families, and its refusals."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from proagent.domains.yokai.rl_spec import YOKAI_RL, pointer_network
from proagent.training.networks import Network, encoder_name, init_params, policy_fns
from proagent.training.pointer_network import ActionBlock, ItemGroup, PointerConfig, neighbour_sum

# a 3 x 4 grid, board window 3 x 3, channels: 2 features, then the ids of 2 items
TINY = PointerConfig(
    groups=(ItemGroup(id_channel=2, count=2),),
    blocks=(ActionBlock(kind="global", count=2), ActionBlock(kind="item"), ActionBlock(kind="item_cell")),
    board=(3, 3),
    cell_dim=8,
    key_dim=4,
    fc_dim=8,
)


def _tiny_obs(cells_of_items: tuple[int, int]) -> np.ndarray:
    """Both items on the given board cells (row-major), with distinct features of their own."""
    obs = np.zeros((3, 4, 4), np.float32)
    for item, cell in enumerate(cells_of_items):
        row, col = divmod(cell, 3)
        obs[row, col, 2 + item] = 1.0
        obs[row, col, item] = 1.0  # item 0 carries feature 0, item 1 feature 1
    return obs


def test_the_blocks_lay_out_the_flat_action_space():
    assert TINY.num_actions == 2 + 2 + 2 * 9
    assert pointer_network(YOKAI_RL.make_env("9c_2p").config).num_actions == 1068  # eq. 9
    for layout in ("16c_2p", "16c_4p"):
        config = YOKAI_RL.make_env(layout).config
        assert pointer_network(config).num_actions == config.actions.size


def test_an_items_logits_follow_it_when_its_label_moves():
    """Swapping which id each item carries swaps their OBSERVE-like logits and their rows of
    (item, cell) logits, and leaves the global logits and the value alone: an item is scored from
    the cell it lies on. A dense head over a flat torso has no such property."""
    params = init_params(TINY, (3, 4, 4), jax.random.PRNGKey(0), TINY.num_actions)
    params = jax.tree.map(lambda x: x * 30, params)  # lift the near-zero initial heads
    apply = jax.jit(policy_fns(TINY, TINY.num_actions).step)
    obs = _tiny_obs((1, 7))
    swapped = obs.copy()
    swapped[..., [2, 3]] = obs[..., [3, 2]]
    (_, a, va), (_, b, vb) = apply(params, None, obs), apply(params, None, swapped)
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_allclose(a[:2], b[:2], atol=1e-5)
    np.testing.assert_allclose(float(va), float(vb), atol=1e-5)
    np.testing.assert_allclose(a[2:4], b[2:4][::-1], atol=1e-5)
    np.testing.assert_allclose(a[4:].reshape(2, 9), b[4:].reshape(2, 9)[::-1], atol=1e-5)
    assert not np.allclose(a[2], a[3], atol=1e-3)  # the two items are told apart


def test_neighbour_sum_adds_the_four_side_neighbours_inside_the_grid():
    x = jnp.arange(12, dtype=jnp.float32).reshape(1, 3, 4, 1)
    got = np.asarray(neighbour_sum(x))[0, ..., 0]
    grid = np.arange(12).reshape(3, 4)
    padded = np.pad(grid, 1)
    want = padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
    np.testing.assert_array_equal(got, want)


def test_a_manifest_stores_and_reloads_the_pointer_family():
    stored = TINY.model_dump(mode="json")
    loaded = TypeAdapter(Network).validate_python(stored)
    assert isinstance(loaded, PointerConfig) and loaded == TINY
    assert encoder_name(loaded) == "pointer" and not loaded.recurrent


def test_bad_pointer_configs_are_refused():
    with pytest.raises(ValidationError, match="names item group 1"):
        PointerConfig(groups=TINY.groups, blocks=(ActionBlock(kind="item", group=1),), board=(3, 3))
    with pytest.raises(ValueError, match="make 22 actions; the env has 6"):
        policy_fns(TINY, 6)


def test_yokai_offers_the_pointer_encoder_and_its_ids_are_the_observations():
    """The card and hint groups point at the id one-hot channels the Yōkai observation writes: in
    a fresh game each card's id channel is set on exactly one board cell, each hint's in the hint column."""
    env = YOKAI_RL.make_env("9c_2p")
    net = YOKAI_RL.network("pointer", "9c_2p", gpu=False)
    obs = np.asarray(env.observe(env.reset(jax.random.PRNGKey(0))))[0]
    g = env.config.grid_size
    cards, hints = net.groups
    card_ids = obs[:, :g, cards.id_channel : cards.id_channel + cards.count]
    assert card_ids.sum() == cards.count and np.all(card_ids.sum((0, 1)) == 1)
    hint_ids = obs[:, g, hints.id_channel : hints.id_channel + hints.count]
    assert np.array_equal(hint_ids[: hints.count], np.eye(hints.count))
