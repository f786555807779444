"""Cooperative environments in JAX, wrapped for agents that read symbolic state.

Every world has its package (``envs.overcooked``, ``envs.cube``, ``envs.yokai``, ``envs.macrafter``);
the one entry point of the same shape for all of them is the registry's
``proagent.domains.make_env("world:layout")`` (docs/envs.md). The names exported here are
Overcooked's, kept at the top level for its users:

    import envs
    env = envs.make("counter_circuit")                 # or a JaxMARL V2 name, or "kitchen.txt"
    state = env.jit_reset(jax.random.PRNGKey(0))
    tr = env.jit_step(key, state, jnp.array([envs.Action.UP, envs.Action.INTERACT]))
    kitchen = env.symbolic(tr.state)                   # typed KitchenState
    events = envs.extract_events(env.symbolic(state), actions, kitchen)
    print(envs.render_ascii(kitchen))
"""

from envs.overcooked.actions import Action, Direction
from envs.overcooked.env import Dynamics, EnvState, OvercookedEnv, Transition, make
from envs.overcooked.events import Event, EventKind, extract_events
from envs.overcooked.layouts import (
    CLASSIC_LAYOUTS,
    KitchenLayout,
    LayoutError,
    available_layouts,
    get_layout,
    parse_layout,
)
from envs.overcooked.presets import make_layout_env
from envs.overcooked.render import render_ascii, render_rgb, render_rgb_batch, save_gif, stack_states, terrain_rows
from envs.overcooked.symbolic import Item, KitchenMap, KitchenState, Player, Pos, Pot

__all__ = [
    "CLASSIC_LAYOUTS",
    "Action",
    "Direction",
    "Dynamics",
    "EnvState",
    "Event",
    "EventKind",
    "Item",
    "KitchenLayout",
    "KitchenMap",
    "KitchenState",
    "LayoutError",
    "OvercookedEnv",
    "Player",
    "Pos",
    "Pot",
    "Transition",
    "available_layouts",
    "extract_events",
    "get_layout",
    "make",
    "make_layout_env",
    "parse_layout",
    "render_ascii",
    "render_rgb",
    "render_rgb_batch",
    "save_gif",
    "stack_states",
    "terrain_rows",
]
