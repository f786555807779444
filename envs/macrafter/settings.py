"""Every number of MA-Crafter's cooperative rules, as one validated, recorded settings model.

EmCoop's published MA-Crafter setup is the default: a resource is collected by a quorum of agents
acting on it in the same step within Manhattan distance ``collect_distance``; each resource needs a
quorum and a tool; crafting needs the station nearby and a crafting quorum in the same step,
consumes the ingredients from the leader's bag (the lowest seat among the participants that holds
them all) and gives the item to every participant. A collected unit scores
``base_value * quorum * (1 + tool_tier_bonus * tier(tool))`` for the team, once per mined cell
(every participant also gets one unit in its bag). Runs record ``settings.model_dump()`` in their
config, so a table states the rules it was made under.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from envs.macrafter.rules import MAX_AGENTS, MIN_AGENTS, TOOL_TIERS

ToolName = Literal["none", "wood_pickaxe", "stone_pickaxe", "iron_pickaxe"]
StationName = Literal["table", "furnace"]
ResourceName = Literal["tree", "stone", "coal", "iron", "diamond"]
CraftName = Literal["wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"]
ItemName = Literal["wood", "stone", "coal", "iron", "diamond", "sapling"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResourceRule(_Frozen):
    """How one resource is collected: by ``quorum`` agents, each holding ``tool`` (or a better one)."""

    quorum: int = Field(ge=1, le=MAX_AGENTS)
    tool: ToolName
    base_value: float = Field(ge=0)


class RecipeRule(_Frozen):
    """What one craft consumes from the leader's bag, which stations must be near, and its quorum."""

    needs: dict[ItemName, int]
    stations: tuple[StationName, ...]
    quorum: int = Field(default=1, ge=1, le=MAX_AGENTS)


def _default_resources() -> dict[str, ResourceRule]:
    return {
        "tree": ResourceRule(quorum=1, tool="none", base_value=1),
        "stone": ResourceRule(quorum=1, tool="wood_pickaxe", base_value=10),
        "coal": ResourceRule(quorum=2, tool="wood_pickaxe", base_value=25),
        "iron": ResourceRule(quorum=3, tool="stone_pickaxe", base_value=25),
        "diamond": ResourceRule(quorum=3, tool="iron_pickaxe", base_value=80),
    }


def _default_recipes() -> dict[str, RecipeRule]:
    """Crafter's tech tree; the stone and iron tiers need two crafters at once."""
    return {
        "wood_pickaxe": RecipeRule(needs={"wood": 1}, stations=("table",), quorum=1),
        "stone_pickaxe": RecipeRule(needs={"wood": 1, "stone": 1}, stations=("table",), quorum=2),
        "iron_pickaxe": RecipeRule(needs={"wood": 1, "coal": 1, "iron": 1}, stations=("table", "furnace"), quorum=2),
        "wood_sword": RecipeRule(needs={"wood": 1}, stations=("table",), quorum=1),
        "stone_sword": RecipeRule(needs={"wood": 1, "stone": 1}, stations=("table",), quorum=2),
        "iron_sword": RecipeRule(needs={"wood": 1, "coal": 1, "iron": 1}, stations=("table", "furnace"), quorum=2),
    }


class CreatureRules(_Frozen):
    """Zombies and skeletons (Crafter's hostile creatures), read only when ``hostile_creatures`` is on.

    The world has no daylight, so the zombie spawn chance is one constant per step. Capacities are
    fixed so the state's arrays keep static shapes under jit; a slot's ``alive`` flag says whether
    it holds a creature. A skeleton's arrow is instant: it hits the first agent along a clear line
    within ``skeleton_reach`` (no arrow object travels), which keeps the step a fixed-size array
    computation.
    """

    max_zombies: int = Field(default=3, ge=0, le=32)
    max_skeletons: int = Field(default=2, ge=0, le=32)
    zombie_spawn_probability: float = Field(default=0.05, ge=0, le=1)  # per step, one try on a random cell
    skeleton_spawn_probability: float = Field(default=0.05, ge=0, le=1)  # per step, on a random path cell
    spawn_min_distance: int = Field(default=3, ge=1, le=64)  # Chebyshev distance to the nearest agent
    spawn_max_distance: int = Field(default=8, ge=1, le=64)
    zombie_health: int = Field(default=5, ge=1, le=100)
    skeleton_health: int = Field(default=3, ge=1, le=100)
    zombie_move_probability: float = Field(default=0.8, ge=0, le=1)  # a step toward the nearest agent
    skeleton_move_probability: float = Field(default=0.5, ge=0, le=1)  # a random step along path cells
    chase_distance: int = Field(default=8, ge=1, le=64)  # a zombie farther from every agent wanders
    zombie_damage: int = Field(default=2, ge=0, le=100)
    zombie_sleep_damage: int = Field(default=7, ge=0, le=100)  # on a sleeping agent
    zombie_cooldown: int = Field(default=5, ge=0, le=100)  # steps between two attacks of one zombie
    skeleton_damage: int = Field(default=2, ge=0, le=100)
    skeleton_reach: int = Field(default=4, ge=1, le=16)  # an arrow's range along a row or column
    skeleton_cooldown: int = Field(default=4, ge=0, le=100)
    hand_damage: int = Field(default=1, ge=0, le=100)  # an agent's DO on a creature, by its best sword
    wood_sword_damage: int = Field(default=2, ge=0, le=100)
    stone_sword_damage: int = Field(default=3, ge=0, le=100)
    iron_sword_damage: int = Field(default=5, ge=0, le=100)

    @model_validator(mode="after")
    def _check(self) -> CreatureRules:
        if self.spawn_min_distance > self.spawn_max_distance:
            raise ValueError(
                f"creatures: spawn_min_distance {self.spawn_min_distance} exceeds "
                f"spawn_max_distance {self.spawn_max_distance}"
            )
        return self


class CrafterSettings(_Frozen):
    """One MA-Crafter world's rules and sizes."""

    num_agents: int = Field(default=3, ge=MIN_AGENTS, le=MAX_AGENTS)
    width: int = Field(default=24, ge=9, le=64)
    height: int = Field(default=24, ge=9, le=64)
    horizon: int = Field(default=300, ge=1, le=10_000)
    collect_distance: int = Field(default=1, ge=1, le=8)  # d: Manhattan reach of a collecting agent
    share_distance: int = Field(default=1, ge=1, le=64)  # Manhattan reach of a share (1: adjacent)
    resources: dict[ResourceName, ResourceRule] = Field(default_factory=_default_resources)
    tool_tier_bonus: float = Field(default=0.5, ge=0)
    recipes: dict[CraftName, RecipeRule] = Field(default_factory=_default_recipes)
    station_radius: int = Field(default=1, ge=1, le=4)  # Chebyshev distance to a table/furnace
    table_wood: int = Field(default=1, ge=0)  # what placing a table costs (Crafter: wood)
    furnace_stone: int = Field(default=1, ge=0)  # placing a furnace costs stone, near a table
    view_width: int = Field(default=9, ge=3, le=31)  # the local view, centred on the agent (odd)
    view_height: int = Field(default=7, ge=3, le=31)
    vital_max: int = Field(default=9, ge=1)
    food_every: int = Field(default=30, ge=1)  # steps per unit of food lost
    drink_every: int = Field(default=20, ge=1)
    energy_every: int = Field(default=30, ge=1)  # awake; asleep, energy rises one per this many steps / 3
    health_every: int = Field(default=10, ge=1)  # steps per health point gained (all vitals > 0) or lost
    sapling_probability: float = Field(default=0.1, ge=0, le=1)  # DO on grass
    ripen_steps: int = Field(default=50, ge=1)  # a sapling becomes a ripe plant after this many steps
    cow_food: int = Field(default=6, ge=0)
    plant_food: int = Field(default=4, ge=0)
    hostile_creatures: bool = False  # zombies and skeletons: off (EmCoop's setup)
    creatures: CreatureRules = Field(default_factory=CreatureRules)  # read only when hostile_creatures

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
    def zombie_slots(self) -> int:
        """The zombie arrays' size: 0 with hostile creatures off, so the state carries nothing."""
        return self.creatures.max_zombies if self.hostile_creatures else 0

    @property
    def skeleton_slots(self) -> int:
        return self.creatures.max_skeletons if self.hostile_creatures else 0

    def unit_value(self, resource: str) -> float:
        """What one collected unit of ``resource`` scores for the team."""
        rule = self.resources[resource]
        return rule.base_value * rule.quorum * (1 + self.tool_tier_bonus * TOOL_TIERS[rule.tool])


__all__ = ["CraftName", "CrafterSettings", "CreatureRules", "RecipeRule", "ResourceName", "ResourceRule", "ToolName"]
