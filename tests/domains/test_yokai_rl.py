"""Yōkai's RL spec: registration, the grid observation, the turn structure through the legal mask,
eq. 4 and the shaping, Other-Play's colour x rotation symmetries (each seat's view, legal actions
and chosen actions turned consistently), and the shipped partners (small, listed, loaded by the
world, playing whole games with legal actions only)."""

from __future__ import annotations

import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.yokai.rules import Phase
from proagent.contract import UnknownAgentError
from proagent.domains import get_domain
from proagent.domains.yokai import rl_obs
from proagent.domains.yokai.rl_spec import YOKAI_RL, SymmetricYokaiEnv
from proagent.paths import PARTNERS_DIR
from proagent.training import checkpoint
from proagent.training.partner import RLPartner
from proagent.training.worlds import rl_spec

ENV = YOKAI_RL.make_env("9c_2p")
CFG = ENV.config
CC = rl_obs.card_channels(CFG)  # card channels first; colour one-hot at 1..C


def _random_states(env, count: int, seed: int = 0):
    """States of random legal play (uniform over the mask), one per step of one game per key."""
    step = jax.jit(env.step)
    state = env.reset(jax.random.PRNGKey(seed))
    rng = np.random.default_rng(seed)
    states = [state]
    for i in range(count):
        legal = np.asarray(env.legal_actions(state))
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        state = step(jax.random.PRNGKey(i), state, jnp.asarray(actions)).state
        states.append(state)
    return states


def test_the_world_registers_its_spec_and_refuses_unknown_names():
    assert rl_spec("yokai") is YOKAI_RL
    assert YOKAI_RL.layout_name("9c_2p") == "9c_2p"
    assert (ENV.num_agents, ENV.num_actions, ENV.horizon) == (2, 1068, 32)
    with pytest.raises(ValueError, match="no encoder"):
        YOKAI_RL.network("mlp", "9c_2p", gpu=False)
    with pytest.raises(ValueError):
        YOKAI_RL.make_env("9c_5p")
    assert YOKAI_RL.make_env("9c_2p", record=ENV.record()).record() == ENV.record()
    assert YOKAI_RL.network("pointwise", "9c_2p", gpu=False).recurrent


def test_observation_is_the_seats_own_grid():
    state = ENV.reset(jax.random.PRNGKey(0))
    obs = np.asarray(ENV.observe(state))
    assert obs.shape == (2, 9, 10, rl_obs.obs_shape(CFG)[2]) and obs.dtype == np.uint8
    assert obs[0, :, :9, 0].sum() == 9 and obs[0, 3:6, 3:6, 0].all()  # nine cards in the centre square
    assert obs[0, :4, 9, CC].all() and obs[0, 4:, 9, CC].sum() == 0  # four hints in the hint column
    assert obs[0, ..., 1 : 1 + CFG.num_colours].sum() == 0  # no colour known yet
    # seat 0 observes card 0: only seat 0 sees its colour, both see that seat 0 looked at it
    after = ENV.step(jax.random.PRNGKey(0), state, jnp.array([CFG.actions.observe(0), CFG.actions.noop])).state
    mine, theirs = np.asarray(ENV.observe(after))
    colour = int(after.game.card_colour[0])
    assert mine[3, 3, 1 + colour] == 1 and theirs[3, 3, 1 : 1 + CFG.num_colours].sum() == 0
    seen = 1 + CFG.num_colours + 1 + CFG.num_colours  # own seat first
    assert mine[3, 3, seen] == 1 and theirs[3, 3, seen + 1] == 1


def test_only_the_acting_seat_chooses_and_the_reward_is_eq4_with_shaping():
    state = ENV.reset(jax.random.PRNGKey(1))
    legal = np.asarray(ENV.legal_actions(state))
    assert legal[0].sum() > 1 and np.flatnonzero(legal[1]).tolist() == [CFG.actions.noop]
    np.testing.assert_array_equal(legal, np.asarray(ENV.world.game.legal_mask(state.game)))
    out = ENV.step(jax.random.PRNGKey(0), state, jnp.array([CFG.actions.observe(4), CFG.actions.noop]))
    assert float(out.reward) == 0.0 and float(out.score) == 0.0  # eq. 4 pays at the end only
    assert np.asarray(out.shaped).tolist() == [1.0, 1.0]  # a first look at a card, weight 1 (annealed by the program)
    # END at once: lost, ended early, every cluster wrong (eq. 4: -1 - C)
    end = ENV.step(jax.random.PRNGKey(0), state, jnp.array([0, CFG.actions.noop]))  # END is action 0 (eq. 9)
    assert bool(end.done) and float(end.reward) == float(end.score) == -1.0 - CFG.num_colours


def test_rotation_tables_turn_cells_and_actions_back():
    turns = rl_obs.rotated_cells(9)
    assert (turns[0] == np.arange(81)).all() and turns[1][0] == 8  # top-left -> top-right
    back = turns[1][turns[3]]
    assert (back == np.arange(81)).all()
    table = rl_obs.action_to_real(CFG)
    layout = CFG.actions
    assert (np.sort(table, axis=1) == np.arange(layout.size)).all()  # each a permutation of the actions
    assert table[1, layout.move(2, 8)] == layout.move(2, 0)  # seen top-right after a turn: really top-left
    assert table[2, layout.observe(5)] == layout.observe(5) and table[3, layout.noop] == layout.noop


def test_each_seat_sees_its_own_symmetry_and_acts_through_it():
    sym, items = YOKAI_RL.symmetries.permuted(ENV, None)
    assert isinstance(sym, SymmetricYokaiEnv) and items == (0, 1, 2)
    state = sym.reset(jax.random.PRNGKey(3))
    state = state._replace(rotation=jnp.array([1, 0], jnp.int32), colours=jnp.array([[2, 0, 1], [0, 1, 2]], jnp.int32))
    layout = CFG.actions
    # seat 0 (turned once) looks at card 0 and then, in the move phase, its legal moves map to real legal moves
    for action in (layout.observe(0), layout.observe(1)):
        state = sym.step(jax.random.PRNGKey(0), state, jnp.array([action, layout.noop])).state
    assert int(state.world.game.phase) == Phase.MOVE
    seen_legal = np.asarray(sym.legal_actions(state))[0]
    real_legal = np.asarray(ENV.legal_actions(state.world))[0]
    table = rl_obs.action_to_real(CFG)
    assert seen_legal.sum() == real_legal.sum() > 0
    assert real_legal[table[1, np.flatnonzero(seen_legal)]].all()
    # what seat 0 sees: card 0 (really at (3, 3)) at the turned cell (3, 5), in its permuted colour
    obs = np.asarray(sym.observe(state))[0]
    real = int(state.world.game.card_colour[0])
    assert obs[3, 5, 1 + [2, 0, 1][real]] == 1 and obs[3, 3, 1 : 1 + CFG.num_colours].sum() == 0
    # every move seat 0 may choose puts the card where seat 0 then sees it: the cell it chose in its frame
    for move in np.flatnonzero(seen_legal)[:: max(1, int(seen_legal.sum()) // 6)]:
        card, seen_cell = divmod(int(move) - layout.move_start, layout.cells)
        moved = sym.step(jax.random.PRNGKey(0), state, jnp.array([move, layout.noop])).state
        after = np.asarray(sym.observe(moved))[0]
        assert after[(*divmod(seen_cell, 9), CC - CFG.num_cards + card)] == 1  # the card's id channel


def test_symmetry_groups_and_their_refusals():
    for group, rotates, recolours in (("rotation", True, False), ("colour", False, True)):
        sym, _ = YOKAI_RL.symmetries.permuted(ENV, None, group)
        states = jax.jit(jax.vmap(sym.reset))(jax.random.split(jax.random.PRNGKey(0), 64))
        assert bool((states.rotation != 0).any()) == rotates
        assert bool((states.colours != jnp.arange(3)).any()) == recolours
    with pytest.raises(ValueError, match="no symmetry group"):
        YOKAI_RL.symmetries.permuted(ENV, None, "mirror")
    with pytest.raises(ValueError, match="permutes all colours"):
        YOKAI_RL.symmetries.permuted(ENV, (0, 1), None)


def test_random_legal_play_always_ends_within_the_horizon():
    states = _random_states(ENV, ENV.horizon)
    assert bool(states[-1].game.done)
    for state in states[:-1]:
        legal = np.asarray(ENV.legal_actions(state))
        assert legal.any(axis=1).all()  # every seat always has a legal action (NOOP at least)


SHIPPED = sorted(p.parent for p in (PARTNERS_DIR / "yokai").glob(f"*/*/{checkpoint.MANIFEST_FILE}"))


def test_partners_ship_for_9c_2p_and_the_world_lists_them():
    names = {p.name for p in SHIPPED if p.parent.name == "9c_2p"}
    assert {"sp", "sp_s1", "op", "sp_hi_ent", "sp_pointer", "op_pointer"} <= names
    domain = get_domain("yokai")
    env = domain.make_env("9c_2p", domain.default_horizon("9c_2p"))
    assert names <= set(domain.partner_names(env)) and {"careful", "random"} <= set(domain.partner_names(env))
    with pytest.raises(UnknownAgentError, match="needs the env"):
        domain.make_partner("sp", None)


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_shipped_partner_is_small_and_plays_a_whole_game_legally(folder):
    params = folder / checkpoint.PARAMS_FILE
    manifest = checkpoint.load_manifest(folder)
    assert params.stat().st_size < 1_000_000
    assert hashlib.sha256(params.read_bytes()).hexdigest() == manifest.params_sha256
    assert manifest.world == "yokai" and manifest.self_play is not None and manifest.self_play.episodes >= 100
    domain = get_domain("yokai")
    world = domain.make_env(folder.parent.name, domain.default_horizon(folder.parent.name))
    partners = [domain.make_partner(folder.name, world) for _ in range(world.num_agents)]
    assert all(isinstance(p, RLPartner) for p in partners)
    _plays_a_whole_game_legally(world, partners, seed=0)


@pytest.mark.slow
def test_the_pointer_policy_trains_and_its_checkpoint_plays_a_whole_game(tmp_path):
    """``--encoder pointer``: the one RL program trains it (2 updates of 4 envs x 16 steps), the
    manifest stores the pointer family, and the checkpoint plays both seats of a game legally."""
    from proagent.training import cli
    from proagent.training.pointer_network import PointerConfig

    out = tmp_path / "pointer"
    argv = ["--domain", "yokai", "--layout", "9c_2p", "--algo", "sp", "--encoder", "pointer", "--steps", "128",
            "--num-envs", "4", "--set", "num_steps=16", "--set", "update_epochs=1", "--set", "num_minibatches=2",
            "--updates-per-call", "1", "--eval-episodes", "2", "--checkpoint-every", "0", "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    manifest = checkpoint.load_manifest(out)
    assert manifest.encoder == "pointer" and isinstance(manifest.network, PointerConfig)
    domain = get_domain("yokai")
    world = domain.make_env("9c_2p", domain.default_horizon("9c_2p"))
    partners = [domain.make_partner(str(out), world) for _ in range(2)]
    assert all(isinstance(p, RLPartner) for p in partners)
    _plays_a_whole_game_legally(world, partners, seed=1)


def _plays_a_whole_game_legally(world, partners, seed: int) -> None:
    """The partners, one per seat, play a game to its end choosing only legal actions."""
    for seat, partner in enumerate(partners):
        partner.reset(seat, seed=seat)
    state, step = world.reset(jax.random.PRNGKey(seed)), jax.jit(world.step)
    for _ in range(world.config.max_steps):
        legal = np.asarray(world.game.legal_mask(state.game))
        actions = [p.policy(None, state) for p in partners]
        assert all(legal[seat, a] for seat, a in enumerate(actions))
        state = step(jax.random.PRNGKey(0), state, jnp.asarray(actions)).state
        if bool(state.game.done):
            break
    assert bool(state.game.done)


@pytest.mark.slow
def test_the_shipped_pointer_partner_plays_better_than_random_and_as_its_manifest_says():
    """``sp_pointer`` learned something: replayed in self-play (200 fresh deals, sampling as
    trained) its return is within 4 standard errors of its manifest's and at least 1.0 above
    uniform random play (every logit equal) on the same deals."""
    from proagent.training.evaluate import self_play_score
    from proagent.training.networks import init_params

    folder = PARTNERS_DIR / "yokai" / "9c_2p" / "sp_pointer"
    params, manifest = checkpoint.load(folder)
    ours = self_play_score(ENV, manifest.network, params, seed=1, episodes=200)
    assert abs(ours.mean - manifest.self_play.mean) < 4 * np.hypot(ours.se, manifest.self_play.se)
    zeros = jax.tree.map(jnp.zeros_like, init_params(manifest.network, manifest.obs_shape, jax.random.PRNGKey(0), ENV.num_actions))
    uniform = self_play_score(ENV, manifest.network, zeros, seed=1, episodes=200)
    assert ours.mean > uniform.mean + 1.0, (ours, uniform)
