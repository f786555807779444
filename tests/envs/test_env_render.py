"""Determinism and pictures: exact ASCII renderings, RGB frames, GIFs."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from kitchen_helpers import CUSTOM, CUSTOM_SCRIPT, assert_trees_equal, play
from PIL import Image

import envs

# counter_circuit: player 0 passes onions over the middle counter (3,2), player 1 puts them in the pot (3,0)
CIRCUIT_SCRIPT = ["DD", "IS", "US", "IS", "DI", "IU", "UI", "ID", "DI", "IU", "UI", "ID", "SI", "SU", "SI"]


@pytest.fixture(scope="module")
def circuit_rollout(circuit):
    return play(circuit, CIRCUIT_SCRIPT)


def test_same_key_and_actions_give_identical_states(circuit):
    rng = np.random.default_rng(7)
    script = ["".join("UDRLSI"[a] for a in pair) for pair in rng.integers(0, 6, size=(60, 2))]
    a = play(circuit, script, seed=3)
    b = play(circuit, script, seed=3)
    for t, (x, y) in enumerate(zip(a.states, b.states)):
        assert_trees_equal(x, y, f"state {t}")
    assert a.rewards == b.rewards and a.shaped == b.shaped and a.events == b.events


def test_render_ascii_counter_circuit_reset(circuit):
    kitchen = circuit.symbolic(circuit.jit_reset(jax.random.PRNGKey(0)))
    assert envs.render_ascii(kitchen) == (
        "X X X P P X X X\n"
        "X     ^       X\n"
        "D   X X X X   S\n"
        "X     ^       X\n"
        "X X X O O X X X\n"
        "t=0/400  recipe: onion, onion, onion\n"
        "player 0: at (3, 3) facing up, holding nothing\n"
        "player 1: at (3, 1) facing up, holding nothing"
    )


def test_render_ascii_counter_circuit_mid_game(circuit_rollout):
    # step 12: two onions in the pot (3,0), one on the middle counter, player 1 facing it
    assert envs.render_ascii(circuit_rollout.kitchens[12]) == (
        "X X X P2P X X X\n"
        "X     v       X\n"
        "D   X XoX X   S\n"
        "X     ^       X\n"
        "X X X O O X X X\n"
        "t=12/400  recipe: onion, onion, onion\n"
        "player 0: at (3, 3) facing up, holding nothing\n"
        "player 1: at (3, 1) facing down, holding nothing"
    )
    # step 14: player 1 holds the third onion; step 15: the pot cooks
    assert envs.render_ascii(circuit_rollout.kitchens[14]).split("\n")[:2] == ["X X X P2P X X X", "X     ^o      X"]
    assert envs.render_ascii(circuit_rollout.kitchens[15]).split("\n")[0] == "X X X P~P X X X"


def test_render_ascii_ready_pot_dish_and_soup(make_env):
    r = play(make_env("cramped_room", **CUSTOM), CUSTOM_SCRIPT[:24])
    assert envs.render_ascii(r.kitchens[23]) == (
        "X X P!X X\n"
        "O   ^d^ O\n"
        "X       X\n"
        "X D X S X\n"
        "t=23/40  recipe: onion, onion, onion\n"
        "player 0: at (2, 1) facing up, holding dish\n"
        "player 1: at (3, 1) facing up, holding nothing"
    )
    lines = envs.render_ascii(r.kitchens[24]).split("\n")
    assert lines[:2] == ["X X P X X", "O   ^s^ O"]
    assert lines[5] == "player 0: at (2, 1) facing up, holding soup of onion, onion, onion"


def test_render_rgb(circuit, circuit_rollout):
    frame = envs.render_rgb(circuit_rollout.states[0])
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    h, w, _ = frame.shape
    assert h * circuit.layout.width == w * circuit.layout.height  # square tiles
    assert h >= 5 * circuit.layout.height and frame.std() > 0
    assert not np.array_equal(frame, envs.render_rgb(circuit_rollout.states[2]))  # player 0 now holds an onion


def test_save_gif(circuit_rollout, tmp_path):
    frames = np.stack([envs.render_rgb(s) for s in circuit_rollout.states[:4]])  # 4 different pictures
    path = envs.save_gif(frames, tmp_path / "episodes" / "ep.gif", fps=5)
    assert path.exists()
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == 4
        assert gif.size == (frames.shape[2], frames.shape[1])
        assert gif.info.get("loop") == 0 and gif.info.get("duration") == 200
        gif.seek(3)
        assert gif.convert("RGB").size == (frames.shape[2], frames.shape[1])


@pytest.mark.slow
def test_render_rgb_batch_matches_render_rgb(circuit_rollout):
    """A second visualizer compile (vmapped), a few seconds: slow."""
    states = circuit_rollout.states[:4]
    frames = envs.render_rgb_batch(envs.stack_states(states))
    assert frames.dtype == np.uint8 and frames.shape[0] == 4
    for frame, state in zip(frames, states):
        assert np.array_equal(frame, envs.render_rgb(state))
