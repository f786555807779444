"""CUBE (EmCoop): cooperative block pushing on a grid, in JAX.

    from envs.cube import make, CubeAction
    env = make("medium_3a")                       # or "random:hard:7", or "my_scenario.toml"
    state = env.jit_reset(jax.random.PRNGKey(0))
    tr = env.jit_step(key, state, jnp.array([CubeAction.RIGHT] * env.num_agents))
    view = env.symbolic(tr.state)                 # typed CubeView
    events = env.events(env.symbolic(state), actions, view)

The rules are in ``envs/cube/env.py``'s docstring and ``docs/cube.md``.
"""

from envs.cube.env import CubeEnv, Transition, make
from envs.cube.events import CubeEvent, CubeEventKind, extract_events
from envs.cube.reference import ReferenceCube, ReferenceStep
from envs.cube.rules import FACES, PUSH_ACTIONS, CubeAction, PushOutcome
from envs.cube.scenario import (
    DIFFICULTIES,
    SCENARIOS,
    BlockSpec,
    Difficulty,
    Scenario,
    ScenarioError,
    available_scenarios,
    load_scenario,
    parse_scenario,
    random_scenario,
)
from envs.cube.state import CubeEnvState, initial_state
from envs.cube.symbolic import CubeBlock, CubeView, PushRecord, decode

__all__ = [
    "DIFFICULTIES",
    "FACES",
    "PUSH_ACTIONS",
    "SCENARIOS",
    "BlockSpec",
    "CubeAction",
    "CubeBlock",
    "CubeEnv",
    "CubeEnvState",
    "CubeEvent",
    "CubeEventKind",
    "CubeView",
    "Difficulty",
    "PushOutcome",
    "PushRecord",
    "ReferenceCube",
    "ReferenceStep",
    "Scenario",
    "ScenarioError",
    "Transition",
    "available_scenarios",
    "decode",
    "extract_events",
    "initial_state",
    "load_scenario",
    "make",
    "parse_scenario",
    "random_scenario",
]
