"""Yōkai rules on scripted turns and hand-built boards: action space, deal, phases, legality,
connectivity, the end of the game and the scores of eq. 1 and eq. 4."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from yokai_play import host, rollout_fn

from envs.yokai import (
    HINT_TABLE,
    NO_CARD,
    HintStatus,
    Phase,
    ReferenceYokai,
    YokaiConfig,
    YokaiConfigError,
    YokaiParams,
    YokaiState,
    available_layouts,
    final_outcome,
    make,
)
from envs.yokai.reference import adjacency, connected, legal_moves, outcome

SHAPED = YokaiParams(perfect_memory=True, shaping_scale=1.0)
ROWS = np.repeat(np.arange(3), 3).astype(np.int32)  # 9C colours by row of the start square: a won board
HINTS_9C = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]], bool)  # red, red/green, green/blue, red/blue


@pytest.fixture(scope="module")
def env():
    return make("9c_2p")


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(env.step)


@pytest.fixture(scope="module")
def mask(env):
    return jax.jit(env.actor_mask)


def built(env, colours=ROWS, hints=HINTS_9C, **fields) -> YokaiState:
    """A reference start with fields replaced; adjacency and the mask follow the positions."""
    ref = ReferenceYokai(env.config)
    state = ref.start(colours, hints)._replace(**fields)
    state = state._replace(adjacency=adjacency(state.card_pos))
    return state._replace(legal=ref.legal_actions(state))


def act(env, state, action: int) -> np.ndarray:
    out = np.full(env.num_agents, env.layout.noop, np.int32)
    out[int(state.player)] = action
    return out


def play(env, step, state, *actions: int):
    tr = None
    for a in actions:
        tr = step(jax.random.PRNGKey(0), state, jnp.asarray(act(env, state, a)), SHAPED)
        state = tr.state
    return tr


def test_action_space_follows_eq9():
    """1 + |Y| + |Y| g^2 + |H| + |H| g^2 + 1: the paper's 1,068 for 2-player 9C. For 2-player 16C
    the same formula gives 2,325; the paper prints 2,322, which no whole |H| reaches (101|H| = 704)."""
    assert make("9c_2p").num_actions == 1068
    assert make("16c_2p").num_actions == 2325
    for name in available_layouts():
        c = make(name).config
        assert c.num_actions == 2 + c.num_cards + (c.num_cards + c.num_hints) * c.grid_size**2 + c.num_hints


def test_action_layout_round_trips(env):
    lay = env.layout
    assert lay.decode(0).kind.name == "END" and lay.decode(lay.noop).kind.name == "NOOP"
    assert (lay.decode(lay.observe(8)).card, lay.decode(lay.reveal(3)).hint) == (8, 3)
    d = lay.decode(lay.move(5, 77))
    assert (d.kind.name, d.card, d.cell) == ("MOVE", 5, 77)
    d = lay.decode(lay.place(2, 40))
    assert (d.kind.name, d.hint, d.cell) == ("PLACE", 2, 40)
    with pytest.raises(ValueError, match="outside"):
        lay.decode(lay.size)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("9c_5p", "unknown yokai layout"),
        ("12c_2p", "unknown yokai layout"),
        (dict(num_players=5), "players"),
        (dict(num_cards=10), "split evenly"),
        (dict(grid_size=4), "no room"),
        (dict(hint_counts=(4, 3)), "only 3 such colour sets"),
        (dict(hint_counts=(1, 3, 1, 1)), "colour count"),
    ],
)
def test_bad_layouts_are_refused_in_one_line(spec, message):
    with pytest.raises(YokaiConfigError, match=message) as err:
        if isinstance(spec, str):
            make(spec)
        else:
            YokaiConfig(**{**dict(name="bad", num_cards=9, num_colours=3, grid_size=9, num_players=2, hint_counts=(1, 3)), **spec})
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
    with pytest.raises(YokaiConfigError, match="name or YokaiConfig"):
        make(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["9c_2p", "16c_3p"])
def test_reset_deals_by_table_7(name):
    env = make(name)
    c = env.config
    states = env.reset_batch(jax.random.split(jax.random.PRNGKey(3), 16))
    for i in range(16):
        s = YokaiState(*(np.asarray(x[i]) for x in states))
        assert sorted(np.bincount(s.card_colour)) == [c.cards_per_colour] * c.num_colours
        sizes = s.hint_colours.sum(1)
        assert [int((sizes == k + 1).sum()) for k in range(len(HINT_TABLE[(c.num_cards, c.num_players)]))] == list(
            HINT_TABLE[(c.num_cards, c.num_players)]
        )
        assert len({tuple(h) for h in s.hint_colours}) == c.num_hints  # no repeated colour set
        assert np.array_equal(s.card_pos, c.start_cells()) and np.array_equal(s.adjacency, adjacency(s.card_pos))
        assert np.flatnonzero(s.legal).tolist() == [0, *range(1, 1 + c.num_cards)]  # END or observe any card
    assert len({tuple(np.asarray(states.card_colour[i])) for i in range(16)}) > 1  # the deal depends on the key


def test_a_turn_runs_observe_observe_move_hint(env, step):
    lay, s = env.layout, built(env)
    tr = play(env, step, s, lay.observe(0))
    assert int(tr.state.phase) == Phase.OBSERVE_SECOND and not tr.state.legal[0]  # END only instead of the first look
    assert not tr.state.legal[lay.observe(0)] and tr.state.legal[lay.observe(1)]
    tr = play(env, step, tr.state, lay.observe(1))
    legal = np.flatnonzero(np.asarray(tr.state.legal))
    assert int(tr.state.phase) == Phase.MOVE and legal.min() >= lay.move_start and legal.max() < lay.reveal_start
    tr = play(env, step, tr.state, lay.move(0, 2 * 9 + 4))  # top-left card onto the cell above card 1
    assert int(tr.state.phase) == Phase.HINT and tuple(np.asarray(tr.state.card_pos[0])) == (2, 4)
    assert np.flatnonzero(np.asarray(tr.state.legal)).tolist() == [lay.reveal(h) for h in range(4)]
    tr = play(env, step, tr.state, lay.reveal(2))
    assert (int(tr.state.player), int(tr.state.phase), int(tr.state.step)) == (1, Phase.OBSERVE_FIRST, 4)
    assert np.asarray(tr.state.turn_cards).tolist() == [NO_CARD, NO_CARD]
    assert int(tr.state.hint_status[2]) == HintStatus.REVEALED and float(tr.reward) == 0


def test_hinted_card_is_neither_observed_moved_nor_hinted_again(env, mask):
    lay = env.layout
    hinted = dict(hint_status=np.array([2, 1, 0, 0], np.int32), hint_card=np.array([4, -1, -1, -1], np.int32))
    obs = np.asarray(mask(built(env, **hinted)))
    assert not obs[lay.observe(4)] and obs[lay.observe(3)]
    move = built(env, phase=np.int32(Phase.MOVE), **hinted)
    m = np.asarray(mask(move))
    assert not m[lay.move(4, 0) : lay.move(5, 0)].any() and m[lay.move(0, 0) : lay.move(1, 0)].any()
    place = np.asarray(mask(built(env, phase=np.int32(Phase.HINT), **hinted)))
    centre = 4 * 9 + 4  # card 4's cell
    assert not place[lay.place(1, centre)] and place[lay.place(1, centre - 1)]
    assert not place[lay.place(0, centre - 1)]  # a placed hint cannot be placed again
    assert place[lay.reveal(2)] and not place[lay.reveal(1)]


def snake() -> np.ndarray:
    return np.array([[4, c] for c in range(9)], np.int32)  # nine cards in one row across the grid


@pytest.mark.parametrize(
    "pos",
    [
        snake(),
        np.array([[4, 4], [4, 5], [4, 6], [5, 6], [6, 6], [6, 5], [6, 4], [5, 4], [3, 4]], np.int32),  # a ring + tail
        np.array([[2, 2], [3, 2], [4, 2], [4, 3], [4, 4], [3, 4], [2, 4], [2, 5], [5, 3]], np.int32),  # a U + stub
    ],
)
def test_move_mask_equals_brute_force_and_keeps_one_group(env, mask, pos):
    pos = np.asarray(pos, np.int32)
    s = built(env, card_pos=pos, phase=np.int32(Phase.MOVE))
    got = np.asarray(mask(s))[env.layout.move_start : env.layout.reveal_start].reshape(9, 81)
    want = legal_moves(pos, np.zeros(9, bool), 9)
    assert np.array_equal(got, want)
    cells = [tuple(p) for p in pos]
    for card, cell in zip(*np.nonzero(got), strict=True):  # every legal move keeps all cards connected
        assert connected([c for i, c in enumerate(cells) if i != card] + [divmod(int(cell), 9)])


def test_cut_cards_of_a_line_cannot_move(env, mask):
    s = built(env, card_pos=snake(), phase=np.int32(Phase.MOVE))
    moves = np.asarray(mask(s))[env.layout.move_start : env.layout.reveal_start].reshape(9, 81)
    assert moves.any(1).tolist() == [True] + [False] * 7 + [True]
    assert moves[0].sum() == 16  # the end card: above or below cards 1..8; its own cell does not count


def test_a_board_with_no_legal_move_skips_the_move(env, mask, step):
    """Both ends of a line carry hints and every other card is a cut card: NOOP passes to the hint."""
    hints = dict(hint_status=np.array([2, 2, 1, 0], np.int32), hint_card=np.array([0, 8, -1, -1], np.int32))
    s = built(env, card_pos=snake(), phase=np.int32(Phase.MOVE), **hints)
    assert np.flatnonzero(np.asarray(mask(s))).tolist() == [env.layout.noop]
    tr = play(env, step, s, env.layout.noop)
    assert int(tr.state.phase) == Phase.HINT and int(tr.state.step) == 1 and int(tr.state.player) == 0


def test_connectivity_and_adjacency_hold_in_random_play(env):
    ro = host(rollout_fn(env, 240)(jax.random.PRNGKey(7), SHAPED))
    for t in range(240):
        pos = ro.after.card_pos[t]
        assert len({tuple(p) for p in pos}) == 9 and connected(tuple(p) for p in pos)
        assert np.array_equal(ro.after.adjacency[t], adjacency(pos))
        placed = ro.before.hint_card[t][ro.before.hint_card[t] >= 0]
        assert np.array_equal(pos[placed], ro.before.card_pos[t][placed])  # hinted cards stay put
        assert int(ro.after.step[t]) == int(ro.before.step[t]) + 1  # every random action was legal


def test_game_ends_after_the_last_placement_at_8h_steps(env, step):
    """Never ending early: each turn reveals or places one hint, so the game lasts 8|H| steps."""
    s = built(env)
    for t in range(env.config.max_steps):
        assert not bool(s.done)
        legal = np.flatnonzero(np.asarray(s.legal))
        tr = play(env, step, s, int(legal[legal > 0][0]))
        s = tr.state
    assert bool(s.done) and int(s.step) == 32 and not bool(s.ended_early)
    assert (np.asarray(s.hint_status) == HintStatus.PLACED).all()
    assert np.flatnonzero(np.asarray(s.legal)).tolist() == [env.layout.noop]
    frozen = step(jax.random.PRNGKey(0), s, jnp.full(2, env.layout.noop), SHAPED)
    assert float(frozen.reward) == 0 and int(frozen.state.step) == 32 and bool(frozen.done)


def test_ending_at_once_scores_every_face_down_hint(env, step):
    won = play(env, step, built(env), 0)
    assert bool(won.done) and bool(won.state.ended_early) and bool(won.state.won)
    assert int(won.state.score) == 20 == env.config.max_score and float(won.reward) == 20
    mixed = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2], np.int32)  # columns, not rows: still three clusters
    assert float(play(env, step, built(env, colours=mixed), 0).reward) == 20
    split = np.array([0, 1, 0, 1, 0, 1, 2, 2, 2], np.int32)  # red and green cards scattered: 1 cluster of 3
    lost = play(env, step, built(env, colours=split), 0)
    assert not bool(lost.state.won) and int(lost.state.score) == 20 and float(lost.reward) == -1 - 2


@pytest.mark.parametrize(
    "colours, status, card, ended, score, won, reward",
    [
        # one face-down (5), one revealed (2), green/blue on red card 0 (wrong), red/blue on blue card 8
        (ROWS, [0, 1, 2, 2], [-1, -1, 0, 8], True, 5 + 2 + 1 - 1, True, 7.0),
        # all four placed correctly on the row-sorted board: 4, won
        (ROWS, [2, 2, 2, 2], [0, 1, 3, 2], False, 4, True, 4.0),
        # the same hints on a board where red and green are split, not ended early: -(3 - 1) - 0
        (np.array([0, 1, 0, 1, 0, 1, 2, 2, 2], np.int32), [2, 2, 2, 2], [0, 2, 6, 4], False, 4, False, -2.0),
        # lost, ended early, one wrong hint (green/blue on red card 0): -1 - 2 - 1
        (np.array([0, 1, 0, 1, 0, 1, 2, 2, 2], np.int32), [1, 1, 2, 0], [-1, -1, 0, -1], True, 5 + 4 - 1, False, -4.0),
    ],
)
def test_scores_follow_eq1_and_eq4(env, colours, status, card, ended, score, won, reward):
    s = built(
        env,
        colours=colours,
        hint_status=np.array(status, np.int32),
        hint_card=np.array(card, np.int32),
        ended_early=np.bool_(ended),
    )
    got = jax.jit(final_outcome, static_argnums=1)(jax.tree.map(jnp.asarray, s), 3)
    assert (int(got[0]), bool(got[1]), float(got[2])) == (score, won, reward)
    assert outcome(s, 3) == (score, won, reward)


def test_shaping_counts_new_looks_and_correct_hints(env, step):
    lay, s = env.layout, built(env, hint_status=np.array([1, 0, 0, 0], np.int32))
    tr = play(env, step, s, lay.observe(0))
    assert np.asarray(tr.shaped_reward).tolist() == [1.0, 1.0] and float(tr.reward) == 0
    tr = play(env, step, tr.state, lay.observe(1), lay.move(0, 2 * 9 + 4))
    assert float(tr.shaped_reward[0]) == 0
    tr = play(env, step, tr.state, lay.place(0, 3 * 9 + 4))  # red hint on card 1 (red): correct
    assert float(tr.shaped_reward[1]) == 1.0
    quiet = step(jax.random.PRNGKey(0), s, jnp.asarray(act(env, s, 1)), env.params)
    assert float(quiet.shaped_reward.sum()) == 0  # make()'s default scale is 0


def test_illegal_and_bystander_actions_change_nothing(env, step):
    lay, s = env.layout, built(env)
    for action in (lay.move(0, 0), lay.reveal(0), lay.noop, -5, lay.size + 3):
        tr = step(jax.random.PRNGKey(0), s, jnp.asarray(act(env, s, action)), SHAPED)
        for a, b in zip(tr.state, s, strict=True):
            assert np.array_equal(np.asarray(a), np.asarray(b))
    bystander = np.array([lay.observe(0), 0], np.int32)  # player 1's END is not read on player 0's turn
    tr = step(jax.random.PRNGKey(0), s, jnp.asarray(bystander), SHAPED)
    assert not bool(tr.done) and int(tr.state.phase) == Phase.OBSERVE_SECOND
