"""The symbolic view: one decoder from engine arrays to a typed kitchen.

Grounding, verification, the controller, events and metrics all read ``KitchenState``; nobody else
decodes the engine's bitfields. Decoding runs on host numpy arrays, outside jit, once per step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import jax
import numpy as np

from envs.overcooked.actions import DIRECTION_VECTORS, Direction
from envs.overcooked.engine import DynamicObject, StaticObject
from envs.overcooked.layouts import KitchenLayout, ingredient_name

Pos = tuple[int, int]  # (x, y), y grows downwards


@dataclass(frozen=True, slots=True)
class Item:
    """Something held or lying on a counter: a single ingredient, an empty dish, or a dish of soup."""

    kind: Literal["ingredient", "dish", "soup"]
    ingredients: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        if self.kind == "ingredient":
            return ingredient_name(self.ingredients[0])
        if self.kind == "dish":
            return "dish"
        return "soup"

    def describe(self) -> str:
        if self.kind == "soup":
            return "soup of " + ", ".join(ingredient_name(i) for i in self.ingredients)
        return self.name

    def to_record(self) -> dict:
        """JSON-ready: kind, display name and ingredient names (for traces and the replay page)."""
        return {"kind": self.kind, "name": self.name, "ingredients": [ingredient_name(i) for i in self.ingredients]}


@dataclass(frozen=True, slots=True)
class Player:
    index: int
    position: Pos
    orientation: Direction
    held: Item | None

    @property
    def facing(self) -> Pos:
        dx, dy = DIRECTION_VECTORS[self.orientation]
        return (self.position[0] + dx, self.position[1] + dy)


@dataclass(frozen=True, slots=True)
class Pot:
    position: Pos
    ingredients: tuple[int, ...]
    cooking: bool
    ready: bool
    ticks_left: int  # steps until ready while cooking, else 0

    @property
    def is_empty(self) -> bool:
        return not self.ingredients

    @property
    def is_full(self) -> bool:
        return len(self.ingredients) >= 3

    @property
    def idle(self) -> bool:
        """Accepting ingredients: neither cooking nor holding a finished soup."""
        return not (self.cooking or self.ready)


@dataclass(frozen=True, slots=True)
class Indicator:
    position: Pos
    kind: Literal["recipe", "button"]
    active_ticks: int  # button indicators show the recipe while > 0; plain ones always do


class KitchenMap:
    """Static facts of a layout, computed once: where the counters, pots, dispensers are."""

    def __init__(self, layout: KitchenLayout) -> None:
        self.layout = layout
        tiles = layout.tiles
        self.floor = tiles == StaticObject.EMPTY

        def cells(mask: np.ndarray) -> tuple[Pos, ...]:
            return tuple((int(x), int(y)) for y, x in np.argwhere(mask))

        self.counters = cells(tiles == StaticObject.WALL)
        self.pots = cells(tiles == StaticObject.POT)
        self.dish_dispensers = cells(tiles == StaticObject.PLATE_PILE)
        self.serving = cells(tiles == StaticObject.GOAL)
        piles = tiles >= StaticObject.INGREDIENT_PILE_BASE
        self.ingredient_dispensers: dict[int, tuple[Pos, ...]] = {
            int(i): cells(tiles == StaticObject.INGREDIENT_PILE_BASE + i)
            for i in np.unique(tiles[piles] - StaticObject.INGREDIENT_PILE_BASE)
        }
        self.recipe_indicators = cells(tiles == StaticObject.RECIPE_INDICATOR)
        self.button_indicators = cells(tiles == StaticObject.BUTTON_RECIPE_INDICATOR)

    def tile(self, pos: Pos) -> int:
        return int(self.layout.tiles[pos[1], pos[0]])

    def is_floor(self, pos: Pos) -> bool:
        x, y = pos
        return 0 <= y < self.floor.shape[0] and 0 <= x < self.floor.shape[1] and bool(self.floor[y, x])


@dataclass(frozen=True)
class KitchenState:
    """Everything an agent may know about the kitchen at one step (full information)."""

    map: KitchenMap
    step: int
    horizon: int
    players: tuple[Player, ...]
    pots: tuple[Pot, ...]
    counter_items: dict[Pos, Item]
    recipe: tuple[int, ...]
    indicators: tuple[Indicator, ...]

    @property
    def layout(self) -> KitchenLayout:
        return self.map.layout

    @property
    def steps_left(self) -> int:
        return self.horizon - self.step

    @cached_property
    def pot_at(self) -> dict[Pos, Pot]:
        return {p.position: p for p in self.pots}

    @property
    def empty_counters(self) -> tuple[Pos, ...]:
        return tuple(c for c in self.map.counters if c not in self.counter_items)

    @property
    def recipe_names(self) -> tuple[str, ...]:
        return tuple(ingredient_name(i) for i in self.recipe)

    def to_record(self) -> dict:
        """The dynamic part of the kitchen as JSON-ready data: enough to draw any frame again
        (the terrain is static and comes from the layout). Positions are [x, y]."""
        return {
            "step": self.step,
            "horizon": self.horizon,
            "players": [
                {
                    "index": p.index,
                    "position": list(p.position),
                    "facing": p.orientation.name.lower(),
                    "held": p.held.to_record() if p.held else None,
                }
                for p in self.players
            ],
            "pots": [
                {
                    "position": list(pot.position),
                    "ingredients": [ingredient_name(i) for i in pot.ingredients],
                    "cooking": pot.cooking,
                    "ready": pot.ready,
                    "ticks_left": pot.ticks_left,
                }
                for pot in self.pots
            ],
            "counters": [
                {"position": list(pos), "item": item.to_record()} for pos, item in sorted(self.counter_items.items())
            ],
            "recipe": list(self.recipe_names),
        }


def decode_items(code: int) -> Item | None:
    """One engine item code (bitfield) to an Item."""
    if code == 0:
        return None
    ingredients = _ingredients(code)
    if code & DynamicObject.PLATE:
        return Item("soup", ingredients) if code & DynamicObject.COOKED else Item("dish")
    return Item("ingredient", ingredients)


def _ingredients(code: int) -> tuple[int, ...]:
    out: list[int] = []
    bits, index = code >> 2, 0
    while bits:
        out.extend([index] * (bits & 0x3))
        bits >>= 2
        index += 1
    return tuple(out)


def decode(state: object, kitchen: KitchenMap, horizon: int) -> KitchenState:
    """Engine state (one env, device or host arrays) to a KitchenState."""
    host = jax.device_get(state)
    grid = np.asarray(host.grid)
    agents = host.agents
    players = tuple(
        Player(
            index=i,
            position=(int(agents.pos.x[i]), int(agents.pos.y[i])),
            orientation=Direction(int(agents.dir[i])),
            held=decode_items(int(agents.inventory[i])),
        )
        for i in range(len(agents.dir))
    )
    pots = []
    for x, y in kitchen.pots:
        content, timer = int(grid[y, x, 1]), int(grid[y, x, 2])
        pots.append(
            Pot(
                position=(x, y),
                ingredients=_ingredients(content),
                cooking=timer > 0,
                ready=bool(content & DynamicObject.COOKED),
                ticks_left=timer,
            )
        )
    counters = {}
    for x, y in kitchen.counters:
        item = decode_items(int(grid[y, x, 1]))
        if item is not None:
            counters[(x, y)] = item
    indicators = tuple(Indicator(p, "recipe", 0) for p in kitchen.recipe_indicators) + tuple(
        Indicator((x, y), "button", int(grid[y, x, 2])) for x, y in kitchen.button_indicators
    )
    return KitchenState(
        map=kitchen,
        step=int(host.step),
        horizon=horizon,
        players=players,
        pots=tuple(pots),
        counter_items=counters,
        recipe=_ingredients(int(host.recipe)),
        indicators=indicators,
    )
