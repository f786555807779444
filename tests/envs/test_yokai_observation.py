"""What each player may know: private colours only of cards it observed, face-down hints hidden,
the real-memory rule dropping moved cards; plus jit/vmap smoke, views, events and renderings."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from yokai_play import host, random_actions, rollout_fn

from envs.yokai import UNKNOWN, HintStatus, YokaiEventKind, YokaiParams, flatten, make

PERFECT = YokaiParams(perfect_memory=True, shaping_scale=0.0)
REAL = YokaiParams(perfect_memory=False, shaping_scale=0.0)


@pytest.fixture(scope="module")
def env():
    return make("9c_3p")


@pytest.fixture(scope="module")
def observe_all(env):
    return jax.jit(jax.vmap(env.observations))


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(env.step)


@pytest.mark.parametrize("params", [PERFECT, REAL], ids=["perfect", "real"])
def test_private_colours_are_only_observed_ones(env, observe_all, params):
    ro = host(rollout_fn(env, 160)(jax.random.PRNGKey(5), params))
    obs = host(observe_all(ro.after))  # (T, P, ...)
    held = obs.colours != UNKNOWN
    truth = np.broadcast_to(ro.after.card_colour[:, None, :], held.shape)
    assert held.any() and np.array_equal(obs.colours[held], truth[held])
    assert not (held & ~ro.after.seen).any()  # never a colour the player has not looked at
    face_down = ro.after.hint_status == HintStatus.FACE_DOWN
    assert not obs.hint_colours[np.broadcast_to(face_down[:, None, :], face_down.shape[:1] + (3,) + face_down.shape[1:])].any()
    if params is REAL:
        assert (ro.after.seen & ~ro.after.known).any()  # moved cards lost their remembered colour


def test_real_memory_drops_a_moved_card_perfect_memory_keeps_it(env, step, observe_all):
    lay = env.layout
    state = env.jit_reset(jax.random.PRNGKey(2))
    seen = {}
    for name, params in (("perfect", PERFECT), ("real", REAL)):
        s = state
        for a in (lay.observe(0), lay.observe(1), lay.move(0, 2 * 9 + 4)):
            s = step(jax.random.PRNGKey(0), s, jnp.full(3, lay.noop).at[0].set(a), params).state
        seen[name] = np.asarray(env.observations(s).colours)
    colours = np.asarray(state.card_colour)
    assert seen["perfect"][0, :2].tolist() == colours[:2].tolist()
    assert seen["real"][0, :2].tolist() == [UNKNOWN, colours[1]]  # card 0 moved, card 1 did not
    assert (seen["perfect"][1:] == UNKNOWN).all() and (seen["real"][1:] == UNKNOWN).all()
    view = env.player_view(s, 0)
    assert view.cards[0].colour is None and view.cards[1].colour is not None and view.cards[0].seen_by == (0,)
    assert all(h.colours is None for h in view.hints) and all(h.colours for h in env.symbolic(s).hints)


def test_reset_and_step_batch_under_vmap(env):
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    states = env.reset_batch(keys)
    actions = jax.vmap(lambda k, s: random_actions(env, k, s))(keys, states)
    tr = env.step_batch(keys, states, actions)
    assert tr.reward.shape == (4,) and tr.shaped_reward.shape == (4, 3) and tr.state.step.tolist() == [1] * 4
    assert env.legal_mask(env.jit_reset(keys[0])).shape == (3, env.num_actions)
    obs = env.observations(env.jit_reset(keys[0]))
    vec = flatten(jax.tree.map(lambda x: x[1], obs), 3, 9)
    assert vec.ndim == 1 and vec.dtype == jnp.float32 and jnp.isfinite(vec).all()


def test_events_and_renderings_of_one_turn(env, step):
    lay = env.layout
    s = env.jit_reset(jax.random.PRNGKey(4))
    views = [env.symbolic(s)]
    events = []
    for a in (lay.observe(3), lay.observe(4), lay.move(0, 2 * 9 + 4), lay.reveal(1)):
        actions = np.full(3, lay.noop)
        actions[int(s.player)] = a
        s = step(jax.random.PRNGKey(0), s, jnp.asarray(actions), PERFECT).state
        views.append(env.symbolic(s))
        events += env.events(views[-2], actions, views[-1])
    assert [e.kind for e in events] == [
        YokaiEventKind.OBSERVE,
        YokaiEventKind.OBSERVE,
        YokaiEventKind.MOVE,
        YokaiEventKind.REVEAL,
    ]
    assert events[2].origin == (3, 3) and events[2].target == (2, 4) and "moved card 0" in events[2].describe()
    assert events[3].hint_colours == views[-1].hints[1].colours
    assert all("colour" not in e.to_record() for e in events[:2])  # a look shows which card, not its colour
    text = env.render(s, player=1)
    assert "step 4, player 1 to observe_first" in text and "?" in text and "hint 1: revealed" in text
    img = env.render_rgb(s)
    assert img.shape == (144, 144, 3) and img.dtype == np.uint8
