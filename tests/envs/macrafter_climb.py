"""A plain scripted team that climbs MA-Crafter's tech tree to a target, for end-to-end env tests.

It reads the whole world (not an agent's partial view: this exercises the env, not a policy) and
walks a fixed plan under EmCoop's rules: wood (the lead more, for the table), a table, a wood
pickaxe each, stone (the lead more, for the furnace), a stone pickaxe each, iron mined by three,
coal by three (its quorum is two; every participant gets a unit), a furnace, an iron pickaxe each
beside it, a diamond by three. Every craft is one agent's act from its own bag.
Paths are breadth-first over walkable cells, other agents treated as walls.
"""

from __future__ import annotations

from collections import deque

import jax
import jax.numpy as jnp

from envs.macrafter import Action, CrafterEnv, CrafterView, Material
from envs.macrafter.rules import WALKABLE

Pos = tuple[int, int]
DIRS: dict[Pos, Action] = {(-1, 0): Action.LEFT, (1, 0): Action.RIGHT, (0, -1): Action.UP, (0, 1): Action.DOWN}
GROUND = (Material.GRASS, Material.SAND, Material.PATH)
PLAN = ("wood", "table", "wood_pickaxe", "stone", "stone_pickaxe", "iron", "coal", "furnace", "iron_pickaxe", "diamond")
WOOD = {"lead": 5, "crew": 3}  # the lead pays the table (2); everyone pays three tools (1 each)
STONE = {"lead": 5, "crew": 1}  # the lead pays the furnace (4); everyone a stone pickaxe (1)


class Climber:
    """One episode's plan state; ``act(view)`` gives every seat's action for the next step."""

    def __init__(self, view: CrafterView, crew: tuple[int, ...] = (0, 1, 2)) -> None:
        self.view, self.crew, self.phase, self.targets = view, crew, 0, {}

    # ---- the world's geometry ----

    def walkable(self, cell: Pos) -> bool:
        return self.view.material(cell) in WALKABLE

    def sides(self, cell: Pos) -> dict[Pos, Pos]:
        """Walkable cells beside ``cell`` -> the way to face it from there."""
        out = {}
        for dx, dy in DIRS:
            side = (cell[0] + dx, cell[1] + dy)
            if self.walkable(side):
                out[side] = (-dx, -dy)
        return out

    def path(self, seat: int, goals: set[Pos]) -> tuple[Action, int]:
        """(first move toward the nearest goal, its distance); (NOOP, big) when none is reachable."""
        start = self.view.agents[seat].position
        others = {a.position for a in self.view.agents if a.seat != seat and a.alive}
        prev: dict[Pos, Pos | None] = {start: None}
        queue, dist = deque([start]), {start: 0}
        while queue:
            cell = queue.popleft()
            if cell in goals:
                if cell == start:
                    return Action.NOOP, 0
                step = cell
                while prev[step] != start:
                    step = prev[step]
                return DIRS[(step[0] - start[0], step[1] - start[1])], dist[cell]
            for dx, dy in DIRS:
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt not in prev and self.walkable(nxt) and nxt not in others:
                    prev[nxt], dist[nxt] = cell, dist[cell] + 1
                    queue.append(nxt)
        return Action.NOOP, 10**9

    # ---- skills ----

    def seek(self, seat: int, material: Material) -> Action:
        """Walk beside the nearest reachable ``material`` cell, face it, DO."""
        me = self.view.agents[seat]
        if self.view.material(me.faced_cell) == material:
            return Action.DO
        goals: dict[Pos, Pos] = {}
        for cell in self.view.cells_of(material):
            for side, face in self.sides(cell).items():
                goals.setdefault(side, face)
        if me.position in goals:
            return DIRS[goals[me.position]]
        return self.path(seat, set(goals))[0]

    def together(self, material: Material, seats: tuple[int, ...]) -> dict[int, Action]:
        """``seats`` take distinct sides of one ``material`` cell and DO in the same step."""
        cell = self.targets.get(material)
        if cell is None or self.view.material(cell) != material:
            cells = [c for c in self.view.cells_of(material) if len(self.sides(c)) >= len(seats)]
            cell = min(cells, key=lambda c: self.path(seats[0], set(self.sides(c)))[1])
            self.targets[material] = cell
        acts, ready = {}, 0
        for seat, side in zip(seats, sorted(self.sides(cell)), strict=False):
            me, face = self.view.agents[seat], (cell[0] - side[0], cell[1] - side[1])
            if me.position != side:
                acts[seat] = self.path(seat, {side})[0]
            elif me.facing != face:
                acts[seat] = DIRS[face]
            else:
                acts[seat], ready = Action.NOOP, ready + 1
        return {s: Action.DO for s in seats} if ready == len(seats) else acts

    def near(self, seat: int, *cells: Pos) -> bool:
        """Beside every cell in the 3x3 sense of EmCoop's ``nearby`` (which sees nothing from row or
        column 0)."""
        x, y = self.view.agents[seat].position
        return x >= 1 and y >= 1 and all(max(abs(x - cx), abs(y - cy)) <= 1 for cx, cy in cells)

    def gather(self, action: Action, *stations: Pos) -> dict[int, Action]:
        """Everyone in the crew beside every station, then ``action`` all at once."""
        if all(self.near(s, *stations) for s in self.crew):
            return {s: action for s in self.crew}
        acts = {}
        for s in self.crew:
            if not self.near(s, *stations):
                x, y = stations[0]
                goals = {(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
                goals = {
                    g
                    for g in goals
                    if self.walkable(g)
                    and g[0] >= 1
                    and g[1] >= 1
                    and all(max(abs(g[0] - c[0]), abs(g[1] - c[1])) <= 1 for c in stations)
                }
                acts[s] = self.path(s, goals)[0]
        return acts

    def place(self, seat: int, action: Action, t: int) -> Action:
        """Place on the faced cell when it is free ground, else turn (a blocked move only turns)."""
        me = self.view.agents[seat]
        free = self.view.material(me.faced_cell) in GROUND and self.view.agent_at(me.faced_cell) is None
        return action if free else (Action.LEFT, Action.UP, Action.RIGHT, Action.DOWN)[t % 4]

    # ---- the plan ----

    def count(self, seat: int, item: str) -> int:
        return self.view.agents[seat].count(item)

    def act(self, view: CrafterView, t: int) -> list[int]:
        self.view = view
        self._advance()
        acts = {s: Action.NOOP for s in range(len(view.agents))}
        step = PLAN[self.phase]
        lead, crew = self.crew[0], self.crew
        table = next(iter(view.cells_of(Material.TABLE)), None)
        furnace = next(iter(view.cells_of(Material.FURNACE)), None)
        if step == "wood":
            acts |= {s: self.seek(s, Material.TREE) for s in crew if self.count(s, "wood") < self.need(s, WOOD)}
        elif step == "table":
            acts[lead] = self.place(lead, Action.PLACE_TABLE, t)
        elif step == "wood_pickaxe":
            acts |= self.gather(Action.MAKE_WOOD_PICKAXE, table)
        elif step == "stone":
            acts |= {s: self.seek(s, Material.STONE) for s in crew if self.count(s, "stone") < self.need(s, STONE)}
        elif step == "stone_pickaxe":
            acts |= self.gather(Action.MAKE_STONE_PICKAXE, table)
        elif step == "iron":
            acts |= self.together(Material.IRON, crew)
        elif step == "coal":
            acts |= self.together(Material.COAL, crew)
        elif step == "furnace":
            acts[lead] = self.place(lead, Action.PLACE_FURNACE, t)
        elif step == "iron_pickaxe":
            acts |= self.gather(Action.MAKE_IRON_PICKAXE, furnace)
        else:
            acts |= self.together(Material.DIAMOND, crew)
        return [int(acts[s]) for s in range(len(view.agents))]

    def need(self, seat: int, table: dict[str, int]) -> int:
        return table["lead"] if seat == self.crew[0] else table["crew"]

    def _advance(self) -> None:
        """Move to the next step of the plan once this one is done."""
        done = {
            "wood": lambda: all(self.count(s, "wood") >= self.need(s, WOOD) for s in self.crew),
            "table": lambda: bool(self.view.cells_of(Material.TABLE)),
            "wood_pickaxe": lambda: all(self.count(s, "wood_pickaxe") for s in self.crew),
            "stone": lambda: all(self.count(s, "stone") >= self.need(s, STONE) for s in self.crew),
            "stone_pickaxe": lambda: all(self.count(s, "stone_pickaxe") for s in self.crew),
            "iron": lambda: self.count(self.crew[0], "iron") > 0,
            "coal": lambda: all(self.count(s, "coal") > 0 for s in self.crew),
            "furnace": lambda: bool(self.view.cells_of(Material.FURNACE)),
            "iron_pickaxe": lambda: all(self.count(s, "iron_pickaxe") for s in self.crew),
            "diamond": lambda: False,
        }
        while self.phase < len(PLAN) - 1 and done[PLAN[self.phase]]():
            self.phase += 1


def climb(env: CrafterEnv, until: str = "diamond") -> tuple[list[CrafterView], list]:
    """Play the plan until the crew's lead holds ``until`` or the episode ends: (views, events)."""
    state = env.jit_reset(jax.random.PRNGKey(0))
    views, events = [env.symbolic(state)], []
    climber = Climber(views[0])
    for t in range(env.settings.horizon):
        actions = climber.act(views[-1], t)
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(actions, jnp.int32)).state
        views.append(env.symbolic(state))
        events.append(env.events(views[-2], actions, views[-1]))
        if views[-1].done or views[-1].agents[climber.crew[0]].count(until) > 0:
            break
    return views, events
