"""MA-Crafter (EmCoop): open-world cooperative collection and crafting for N agents, in JAX.

The shared vocabulary (`rules`), the rules' numbers (`settings`), the typed view (`symbolic`) and
the event stream (`events`) are the contract the agent side (`proagent.domains.macrafter`) reads.
"""

from envs.macrafter.events import CrafterEvent, CrafterEventKind
from envs.macrafter.rules import ACTION_NAMES, NUM_ACTIONS, Action, Item, Material, Vital, decode_share, share_action
from envs.macrafter.settings import CrafterSettings, RecipeRule, ResourceRule
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView

__all__ = [
    "ACTION_NAMES",
    "NUM_ACTIONS",
    "Action",
    "AgentState",
    "Attempt",
    "CrafterEvent",
    "CrafterEventKind",
    "CrafterSettings",
    "CrafterView",
    "Item",
    "Material",
    "RecipeRule",
    "ResourceRule",
    "Vital",
    "decode_share",
    "share_action",
]
