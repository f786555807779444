"""Every number of MA-Crafter's rules, as one validated, recorded settings model.

The defaults are EmCoop's (COOP²'s) published setup, read from its code
(``ma_crafter/macrafter/paper_config.yaml``, ``data.yaml``, ``coop_env.py``, ``objects.py``,
``env.py``): a ``do`` collects every resource within Manhattan ``collect_distance`` of the agent
(no facing); a resource is taken when at least its quorum of the agents doing so hold its exact
tool, and each of them gets one unit; a collected unit scores ``base_value * quorum *
(1 + tool_tier_bonus * tier(tool))`` once per participant; crafting is one agent's act beside a
station (the paper's crafting quorum is a setting, ``RecipeRule.quorum``, off by default because
EmCoop's code lets one agent craft). Runs record ``settings.model_dump()`` in their config, so a
table states the rules it was made under. ``docs/macrafter.md`` names the EmCoop line of each rule.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from envs.macrafter.rules import MAX_AGENTS, MIN_AGENTS, TOOL_TIERS

ToolName = Literal["none", "wood_pickaxe", "stone_pickaxe", "iron_pickaxe"]
StationName = Literal["table", "furnace"]
ResourceName = Literal["tree", "stone", "coal", "iron", "diamond", "water", "cow"]
CraftName = Literal["wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"]
ItemName = Literal["wood", "stone", "coal", "iron", "diamond", "sapling"]
# The resources in state order (``CrafterState.tgt_res`` codes) and the item each gives.
RESOURCE_ORDER: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond", "water", "cow")
RESOURCE_GIVES: dict[str, str] = {
    "tree": "wood",
    "stone": "stone",
    "coal": "coal",
    "iron": "iron",
    "diamond": "diamond",
    "water": "drink",
    "cow": "food",
}
SCORED: tuple[str, ...] = ("tree", "stone", "coal", "iron", "diamond")  # the team score's resources
MAX_HORIZON = 10_000  # the longest episode the settings allow (the compiled step's daylight table covers it)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResourceRule(_Frozen):
    """How one resource is collected: by ``quorum`` agents within reach, each holding ``tool`` (that
    exact tool: EmCoop's ``satisfies_tool_requirement``); ``base_value`` scores each unit (0: none)."""

    quorum: int = Field(ge=1, le=MAX_AGENTS)
    tool: ToolName
    base_value: float = Field(ge=0, allow_inf_nan=False)


class RecipeRule(_Frozen):
    """What one craft consumes from the crafter's bag and which stations must be beside it.

    ``quorum`` is the paper's crafting rule (that many agents making the same item beside the
    station in one step, each paying its own ingredients); EmCoop's code has none (1)."""

    needs: dict[ItemName, int]
    stations: tuple[StationName, ...]
    quorum: int = Field(default=1, ge=1, le=MAX_AGENTS)


def _default_resources() -> dict[str, ResourceRule]:
    """``paper_config.yaml``: quorums and tools; ``team_score.base_values``: values."""
    return {
        "tree": ResourceRule(quorum=1, tool="none", base_value=1),
        "stone": ResourceRule(quorum=1, tool="wood_pickaxe", base_value=10),
        "coal": ResourceRule(quorum=2, tool="wood_pickaxe", base_value=25),
        "iron": ResourceRule(quorum=3, tool="stone_pickaxe", base_value=25),
        "diamond": ResourceRule(quorum=3, tool="iron_pickaxe", base_value=80),
        "water": ResourceRule(quorum=1, tool="none", base_value=0),
        "cow": ResourceRule(quorum=1, tool="none", base_value=0),
    }


def _default_recipes() -> dict[str, RecipeRule]:
    """``data.yaml`` ``make``: wood and stone tools beside a table, iron tools beside a furnace."""
    return {
        "wood_pickaxe": RecipeRule(needs={"wood": 1}, stations=("table",)),
        "stone_pickaxe": RecipeRule(needs={"wood": 1, "stone": 1}, stations=("table",)),
        "iron_pickaxe": RecipeRule(needs={"wood": 1, "coal": 1, "iron": 1}, stations=("furnace",)),
        "wood_sword": RecipeRule(needs={"wood": 1}, stations=("table",)),
        "stone_sword": RecipeRule(needs={"wood": 1, "stone": 1}, stations=("table",)),
        "iron_sword": RecipeRule(needs={"wood": 1, "coal": 1, "iron": 1}, stations=("furnace",)),
    }


def paper_recipes() -> dict[str, RecipeRule]:
    """The paper's crafting rule: stone and iron tools need two crafters at once (EmCoop v1, Table 1)."""
    recipes = _default_recipes()
    for name in ("stone_pickaxe", "iron_pickaxe", "stone_sword", "iron_sword"):
        recipes[name] = recipes[name].model_copy(update={"quorum": 2})
    return recipes


class CrafterSettings(_Frozen):
    """One MA-Crafter world's rules and sizes (EmCoop's by default)."""

    num_agents: int = Field(default=3, ge=MIN_AGENTS, le=MAX_AGENTS)
    width: int = Field(default=64, ge=9, le=64)
    height: int = Field(default=64, ge=9, le=64)
    horizon: int = Field(default=200, ge=1, le=MAX_HORIZON)
    collect_distance: int = Field(default=1, ge=1, le=8)  # paper_config distance_threshold (Manhattan)
    resources: dict[ResourceName, ResourceRule] = Field(default_factory=_default_resources)
    tool_tier_bonus: float = Field(default=0.5, ge=0, allow_inf_nan=False)
    scale_by_quorum: bool = True  # team_score.scale_by_required_agents
    score_per_participant: bool = True  # team_score.score_shared_resources_per_agent
    recipes: dict[CraftName, RecipeRule] = Field(default_factory=_default_recipes)
    table_wood: int = Field(default=2, ge=0, le=20)  # data.yaml place.table.uses
    furnace_stone: int = Field(default=4, ge=0, le=20)  # data.yaml place.furnace.uses (no table needed)
    view_width: int = Field(default=9, ge=3, le=31)  # the local view, centred on the agent (odd)
    view_height: int = Field(default=7, ge=3, le=31)
    vital_max: int = Field(default=9, ge=1, le=99)
    item_max: int = Field(default=20, ge=1, le=999)  # data.yaml max_object_capacity
    # Player._update_life_stats / _degen_or_regen_health: a counter passing its threshold resets and
    # changes the vital (hunger > 25: food - 1, so every 26 steps awake; asleep counters run at half rate).
    hunger_threshold: int = Field(default=25, ge=1, le=1000)
    thirst_threshold: int = Field(default=20, ge=1, le=1000)
    fatigue_threshold: int = Field(default=30, ge=1, le=1000)  # awake: energy - 1 past it
    rest_threshold: int = Field(default=10, ge=1, le=1000)  # asleep: energy + 1 past -it
    recover_threshold: int = Field(default=25, ge=1, le=1000)  # fed: health + 1 past it
    degen_threshold: int = Field(default=15, ge=1, le=1000)  # unfed: health - 1 past -it
    cow_food: int = Field(default=6, ge=0, le=99)
    cow_capacity: int = Field(default=64, ge=1, le=512)  # cow slots (static shapes); spawns stop when full
    cow_move_probability: float = Field(default=0.5, ge=0, le=1, allow_inf_nan=False)
    chunk_size: int = Field(default=12, ge=1, le=64)  # engine.World chunk (12, 12)
    balance_every: int = Field(default=10, ge=1, le=10_000)  # env._balance_chunk every 10 steps
    cow_spawn_probability: float = Field(default=0.01, ge=0, le=1, allow_inf_nan=False)
    cow_despawn_probability: float = Field(default=0.1, ge=0, le=1, allow_inf_nan=False)
    cow_spawn_distance: int = Field(default=5, ge=0, le=128)  # Manhattan, from every agent
    cow_despawn_distance: int = Field(default=5, ge=0, le=128)
    chunk_min_grass: int = Field(default=30, ge=0, le=4096)  # a chunk with fewer grass cells keeps no cow

    @model_validator(mode="after")
    def _check(self) -> CrafterSettings:
        if self.view_width % 2 == 0 or self.view_height % 2 == 0:
            raise ValueError(
                f"view {self.view_width}x{self.view_height}: both sides must be odd (centred on the agent)"
            )
        # A quorum above the team size is allowed: that resource is then out of the team's reach (a
        # participation constraint no plan can meet), which is what a small team's scenario studies.
        return self

    @property
    def chunks(self) -> tuple[int, int]:
        """(rows, columns) of balancing chunks over the map."""
        return math.ceil(self.height / self.chunk_size), math.ceil(self.width / self.chunk_size)

    def unit_value(self, resource: str) -> float:
        """What one collected unit of ``resource`` scores per participant (EmCoop's get_item_team_score)."""
        rule = self.resources[resource]
        quorum = max(1, rule.quorum) if self.scale_by_quorum else 1
        return round(rule.base_value * quorum * (1 + self.tool_tier_bonus * TOOL_TIERS[rule.tool]), 3)

    def collection_score(self, resource: str, participants: int) -> float:
        """The team score of one collection of ``resource`` by ``participants`` agents."""
        return self.unit_value(resource) * (participants if self.score_per_participant else 1)


__all__ = [
    "MAX_HORIZON",
    "RESOURCE_GIVES",
    "RESOURCE_ORDER",
    "SCORED",
    "CraftName",
    "CrafterSettings",
    "RecipeRule",
    "ResourceName",
    "ResourceRule",
    "ToolName",
    "paper_recipes",
]
