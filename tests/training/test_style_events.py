"""Style event indicators: exact agreement with envs.extract_events on real trajectories (scripted
greedy pairs, random pairs, the human trials), jit + vmap, and the named styles file."""

from __future__ import annotations

from functools import cache

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
from envs import Action, EventKind
from envs.overcooked.engine import StaticObject
from proagent.domains.overcooked import human_data as hd
from proagent.domains.overcooked.partners.registry import make_partner
from proagent.domains.overcooked.style_events import (
    EVENT_INDEX,
    STYLE_EVENTS,
    StyleWeights,
    event_indicators,
    load_styles,
    style_reward,
)

NO_EQUIVALENT = {"interact_pot"}


def expected_from_events(events, num_agents: int) -> np.ndarray:
    """extract_events -> the indicator matrix (interact_pot column left 0)."""
    out = np.zeros((num_agents, len(STYLE_EVENTS)), np.float32)
    for e in events:
        if e.kind in (EventKind.PICKUP_INGREDIENT, EventKind.PUT_IN_POT):
            verb = "pickup" if e.kind == EventKind.PICKUP_INGREDIENT else "put"
            name = f"{verb}_{e.item.name}" + ("_in_pot" if verb == "put" else "")
        else:
            name = {
                EventKind.PICKUP_DISH: "pickup_dish",
                EventKind.START_COOKING: "start_cooking",
                EventKind.FILL_DISH: "pickup_soup",
                EventKind.DELIVER: "deliver",
                EventKind.PLACE_ON_COUNTER: "place_on_counter",
                EventKind.PICKUP_FROM_COUNTER: "pickup_from_counter",
                EventKind.ACTIVATE_INDICATOR: "activate_indicator",
            }[e.kind]
        assert out[e.agent, EVENT_INDEX[name]] == 0, "one event of a kind per agent and step"
        out[e.agent, EVENT_INDEX[name]] = 1.0
    return out


def _stack(states):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


def play(env: envs.OvercookedEnv, names: tuple[str, str], steps: int, seed: int = 0):
    """A partner pair's trajectory: (states before, actions (T, 2), states after), host loop."""
    partners = [make_partner(name, env.layout) for name in names]
    for seat, p in enumerate(partners):
        p.reset(seat, seed + seat)
    state = env.jit_reset(jax.random.PRNGKey(seed))
    before, actions, after = [], [], []
    for t in range(steps):
        kitchen = env.symbolic(state)
        joint = jnp.array([int(p.policy(kitchen, state)) for p in partners])
        nxt = env.jit_step(jax.random.PRNGKey(t), state, joint).state
        before.append(state), actions.append(joint), after.append(nxt)
        state = nxt
    return _stack(before), jnp.stack(actions), _stack(after)


def human_replay(layout: str, start: int, stop: int):
    env = envs.make(layout)
    (trial,) = hd.load_trials(layout)
    states = hd.build_states(env, trial.steps[start:stop])
    actions = jnp.asarray(trial.actions[start:stop])
    keys = jax.random.split(jax.random.PRNGKey(0), stop - start)
    nxt = jax.jit(jax.vmap(env.step))(keys, states, actions).state
    return env, (states, actions, nxt)


@cache
def trajectories():
    """name -> (env, (before, actions, after)); built once per session."""
    out = {}
    for layout in ("cramped_room", "counter_circuit"):
        env = envs.make(layout)
        out[f"greedy/{layout}"] = (env, play(env, ("greedy", "greedy"), 300))
    asym = envs.make("asymmetric_advantages")
    out["random/asymmetric_advantages"] = (asym, play(asym, ("random", "random"), 200, seed=1))
    explicit = envs.make("cramped_room", envs.Dynamics(auto_cook=False))
    out["random/cramped_room/explicit_cook"] = (explicit, play(explicit, ("random", "random"), 200, seed=2))
    out["human/counter_circuit"] = human_replay("counter_circuit", 0, 600)
    out["human/asymmetric_advantages"] = human_replay("asymmetric_advantages", 0, 600)
    return out


def _host(tree, i):
    return jax.tree.map(lambda x: np.asarray(x)[i], tree)


@pytest.mark.parametrize(
    "name",
    [
        "greedy/cramped_room",
        "greedy/counter_circuit",
        "random/asymmetric_advantages",
        "random/cramped_room/explicit_cook",
        "human/counter_circuit",
        "human/asymmetric_advantages",
    ],
)
@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_agrees_with_extract_events(name):
    env, (before, actions, after) = trajectories()[name]
    got = np.asarray(jax.jit(jax.vmap(lambda s, a, n: event_indicators(env, s, a, n)))(before, actions, after))
    steps = got.shape[0]
    assert got.shape == (steps, env.num_agents, len(STYLE_EVENTS)) and got.dtype == np.float32
    before_h, after_h, actions_h = jax.device_get(before), jax.device_get(after), np.asarray(actions)
    counted = np.zeros(len(STYLE_EVENTS))
    for t in range(steps):
        k0, k1 = env.symbolic(_host(before_h, t)), env.symbolic(_host(after_h, t))
        expected = expected_from_events(env.events(k0, actions_h[t].tolist(), k1), env.num_agents)
        pot = EVENT_INDEX["interact_pot"]
        expected[:, pot] = [
            float(actions_h[t, p.index] == Action.INTERACT and env.kitchen_map.tile(p.facing) == StaticObject.POT)
            for p in k0.players
        ]
        np.testing.assert_array_equal(got[t], expected, err_msg=f"{name} step {t}")
        counted += expected.sum(0)
    assert counted.sum() > 0


@pytest.mark.slow  # scripted trajectories on every classic layout (~25 s on 2 cores); the slow CI step runs it
def test_trajectories_cover_the_classic_events():
    """Across the trajectories, every classic-layout event actually occurs (so agreement is tested)."""
    seen = set()
    for env, (before, actions, after) in trajectories().values():
        got = np.asarray(jax.vmap(lambda s, a, n, env=env: event_indicators(env, s, a, n))(before, actions, after))
        seen |= {STYLE_EVENTS[i] for i in np.flatnonzero(got.sum((0, 1)))}
    assert set(STYLE_EVENTS) - seen == {"pickup_tomato", "put_tomato_in_pot", "activate_indicator"}


@pytest.mark.slow  # scripted trajectories on every classic layout (~25 s on 2 cores); the slow CI step runs it
def test_jit_vmap_batch_and_done_states():
    env, (before, actions, after) = trajectories()["greedy/cramped_room"]
    f = jax.jit(lambda s, a, n: event_indicators(env, s, a, n))
    batched = jax.vmap(f)(before, actions, after)
    t = int(np.argmax(np.asarray(batched).sum((1, 2))))  # a step with events
    one = lambda tree: jax.tree.map(lambda x: x[t], tree)
    np.testing.assert_array_equal(f(one(before), actions[t], one(after)), batched[t])
    done = one(before).replace(done=jnp.array(True))
    assert float(f(done, actions[t], one(after)).sum()) == 0.0


def test_style_reward_and_named_styles():
    styles = load_styles()
    assert {"deliverer", "onion_fetcher", "pot_avoider"} <= set(styles)
    for style in styles.values():
        assert style.description and style.weights
        w = style.weights
        assert w.get("place_on_counter", 0) + w.get("pickup_from_counter", 0) <= 0, style.name
    deliverer = styles["deliverer"].vector()
    assert deliverer.shape == (len(STYLE_EVENTS),) and deliverer[EVENT_INDEX["deliver"]] > 0
    ind = np.zeros((2, len(STYLE_EVENTS)), np.float32)
    ind[1, EVENT_INDEX["deliver"]] = 1.0
    np.testing.assert_allclose(np.asarray(style_reward(jnp.asarray(ind), jnp.asarray(deliverer))), [0.0, 5.0])
    with pytest.raises(ValueError, match="unknown style events"):
        StyleWeights(name="x", weights={"juggle": 1.0})
