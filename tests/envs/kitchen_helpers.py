"""Helpers for the envs tests: scripted play and readable views of the symbolic state.

A script is a list of two-letter strings, one per step: player 0's action then player 1's, with
U/D/R/L = up/down/right/left, S = stay, I = interact. ``"IS"`` = player 0 interacts, player 1 stays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

import envs
from envs import Action
from envs.overcooked.layouts import ingredient_name

LETTERS = {
    "U": Action.UP,
    "D": Action.DOWN,
    "R": Action.RIGHT,
    "L": Action.LEFT,
    "S": Action.STAY,
    "I": Action.INTERACT,
}


def wait(n: int) -> list[str]:
    """n steps where both players stay."""
    return ["SS"] * n


# ---- scripts shared by several test files (cramped_room: player 0 at (1,2), player 1 at (3,1)) ----

# Player 0 puts three onions into the pot (2,0), the third at step 15; player 1 stays.
THREE_ONIONS = [
    "US", "LS", "IS", "RS", "US", "IS",  # t0-5   up, face the onions (0,1), take, right, face the pot, put in
    "LS", "IS", "RS", "US", "IS",  # t6-10  second onion
    "LS", "IS", "RS", "US", "IS",  # t11-15 third onion
]

# A short-episode kitchen: cramped_room with cook_time 5, soup_reward 7, horizon 40, and a script
# that cooks, serves (+7 at step 27), starts another soup and reaches the horizon with an onion in hand.
CUSTOM = dict(cook_time=5, soup_reward=7.0, horizon=40)
CUSTOM_SCRIPT = [
    *THREE_ONIONS,  # cooking starts at step 15, ready at step 15 + 5 = 20
    "LS", "DS", "DS", "IS",  # t16-19 take a dish
    "RS", "US", "US",  # t20-22 under the pot
    "IS",  # t23 fill (ready since step 20)
    "DS", "RS", "DS", "IS",  # t24-27 deliver: +7
    "LS", "US", "LS", "IS", "RS", "US", "IS",  # t28-34 another onion into the pot
    "LS", "IS", "RS", "US",  # t35-38 fetch one more and face the pot with it
    "SS",  # t39 the last step: step 40 == horizon
]


def parse_script(script: list[str]) -> list[tuple[int, ...]]:
    out = []
    for entry in script:
        letters = entry.replace(" ", "")
        out.append(tuple(int(LETTERS[c]) for c in letters))
    return out


def item_str(item: envs.Item | None) -> str | None:
    """'onion', 'tomato', 'dish' or 'soup(onion,onion,onion)'."""
    if item is None:
        return None
    if item.kind == "soup":
        return "soup(" + ",".join(ingredient_name(i) for i in sorted(item.ingredients)) + ")"
    return item.name


def player_view(kitchen: envs.KitchenState) -> list[tuple]:
    """[(position, facing, held), ...] for each player, in player order."""
    return [(p.position, p.orientation.name.lower(), item_str(p.held)) for p in kitchen.players]


def pot_view(kitchen: envs.KitchenState) -> dict:
    """{position: (ingredient names, ticks_left, ready)} for every pot."""
    return {
        p.position: (tuple(ingredient_name(i) for i in sorted(p.ingredients)), p.ticks_left, p.ready)
        for p in kitchen.pots
    }


def counter_view(kitchen: envs.KitchenState) -> dict:
    return {pos: item_str(item) for pos, item in kitchen.counter_items.items()}


def event_view(event: envs.Event) -> tuple:
    """(step, agent, kind, position, item, correct) with plain values."""
    return (event.step, event.agent, event.kind.value, event.position, item_str(event.item), event.correct)


def normalise_expected_event(expected: tuple) -> tuple:
    return tuple(expected) + (None,) * (6 - len(expected))


@dataclass
class Rollout:
    states: list = field(default_factory=list)  # engine states, states[t].step == t (until the horizon)
    kitchens: list = field(default_factory=list)  # symbolic views of states
    events: list = field(default_factory=list)  # all events, in order
    rewards: list = field(default_factory=list)  # per step, python floats
    shaped: list = field(default_factory=list)  # per step, tuples of floats
    dones: list = field(default_factory=list)

    @property
    def score(self) -> float:
        return float(sum(self.rewards))

    @property
    def final(self) -> envs.KitchenState:
        return self.kitchens[-1]


def play(env: envs.OvercookedEnv, script: list[str], state=None, seed: int = 0) -> Rollout:
    """Reset (unless a state is given) and step the script, recording states, events and rewards."""
    key = jax.random.PRNGKey(seed)
    if state is None:
        state = env.jit_reset(key)
    kitchen = env.symbolic(state)
    out = Rollout(states=[state], kitchens=[kitchen])
    for t, actions in enumerate(parse_script(script)):
        tr = env.jit_step(jax.random.fold_in(key, t), state, jnp.array(actions, dtype=jnp.int32))
        after = env.symbolic(tr.state)
        out.events.extend(env.events(kitchen, actions, after))
        out.rewards.append(float(tr.reward))
        out.shaped.append(tuple(float(x) for x in np.asarray(tr.shaped_reward)))
        out.dones.append(bool(tr.done))
        out.states.append(tr.state)
        out.kitchens.append(after)
        state, kitchen = tr.state, after
    return out


def assert_trees_equal(a, b, context: str = "") -> None:
    """Exact equality of two pytrees of arrays (same structure, same dtypes, same values)."""
    leaves_a, tree_a = jax.tree.flatten(a)
    leaves_b, tree_b = jax.tree.flatten(b)
    assert tree_a == tree_b, f"{context}: different structure"
    for i, (x, y) in enumerate(zip(leaves_a, leaves_b)):
        x, y = np.asarray(x), np.asarray(y)
        same_type = x.dtype == y.dtype and x.shape == y.shape
        assert same_type, f"{context}: leaf {i} {x.dtype}{x.shape} vs {y.dtype}{y.shape}"
        assert np.array_equal(x, y), f"{context}: leaf {i} differs"


def index_tree(tree, i: int):
    """Env i of a batched pytree, as host numpy arrays (one transfer, no per-leaf device ops)."""
    return jax.tree.map(lambda x: np.asarray(x)[i], jax.device_get(tree))


def stack_trees(trees: list):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)
