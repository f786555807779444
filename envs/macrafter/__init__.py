"""MA-Crafter (EmCoop): open-world cooperative collection and crafting for N agents, in JAX.

    from envs.macrafter import make, Action
    env = make("emcoop")                          # EmCoop's 64x64 world; "emcoop@6", "medium_3a", "random:hard:7"
    state = env.jit_reset(jax.random.PRNGKey(0))  # a generated world is drawn from the key
    tr = env.jit_step(key, state, jnp.array([Action.DO] * env.num_agents))
    view = env.symbolic(tr.state)                 # typed CrafterView
    events = env.events(env.symbolic(state), actions, view)

The shared vocabulary (`rules`), the rules' numbers (`settings`), the typed view (`symbolic`) and
the event stream (`events`) are the contract the agent side (`proagent.domains.macrafter`) reads.
"""

from envs.macrafter.env import CrafterEnv, make
from envs.macrafter.events import CrafterEvent, CrafterEventKind, extract_events
from envs.macrafter.rules import (
    ACTION_NAMES,
    NUM_ACTIONS,
    SHARE_GOODS,
    Achievement,
    Action,
    Item,
    Material,
    Vital,
    decode_share,
    share_action,
)
from envs.macrafter.scenario import (
    DIFFICULTIES,
    EMCOOP_TEAMS,
    LEGEND,
    SCENARIOS,
    TARGETS,
    Scenario,
    ScenarioError,
    available_scenarios,
    emcoop_world,
    from_text,
    load_scenario,
    random_scenario,
    setting_keys,
    to_text,
    with_agents,
    with_settings,
)
from envs.macrafter.settings import CrafterSettings, RecipeRule, ResourceRule
from envs.macrafter.state import RESULTS, CrafterState, populate
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView, decode

__all__ = [
    "ACTION_NAMES",
    "DIFFICULTIES",
    "EMCOOP_TEAMS",
    "LEGEND",
    "NUM_ACTIONS",
    "RESULTS",
    "SCENARIOS",
    "SHARE_GOODS",
    "TARGETS",
    "Achievement",
    "Action",
    "AgentState",
    "Attempt",
    "CrafterEnv",
    "CrafterEvent",
    "CrafterEventKind",
    "CrafterSettings",
    "CrafterState",
    "CrafterView",
    "Item",
    "Material",
    "RecipeRule",
    "ResourceRule",
    "Scenario",
    "ScenarioError",
    "Vital",
    "available_scenarios",
    "decode",
    "decode_share",
    "emcoop_world",
    "extract_events",
    "from_text",
    "load_scenario",
    "make",
    "populate",
    "random_scenario",
    "setting_keys",
    "share_action",
    "to_text",
    "with_agents",
    "with_settings",
]
