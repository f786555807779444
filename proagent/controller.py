"""Grounds a high-level skill into primitive actions with BFS, routing around the teammate.

The teammate is an obstacle for the route but not for reachability (it moves). When the only way
is through the teammate, or a move has failed several steps in a row, the controller makes a
random unblocking move: two agents politely waiting for each other is the classic deadlock of
Overcooked corridors.
"""

from __future__ import annotations

import numpy as np

from envs import Action, Direction, KitchenState
from envs.overcooked.actions import DIRECTION_VECTORS
from proagent.navigation import Route, best_route
from proagent.skills import Skill, SkillBook


class Controller:
    """One per agent: remembers its last move to notice when it is stuck."""

    def __init__(self, book: SkillBook, agent: int, seed: int, stuck_patience: int = 3) -> None:
        self.book = book
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self.stuck_patience = stuck_patience
        self._last: tuple[tuple[int, int], Action] | None = None
        self._stuck_steps = 0

    def act(self, kitchen: KitchenState, skill: Skill) -> Action:
        me = kitchen.players[self.agent]
        self._update_stuck(kitchen)
        if self._stuck_steps >= self.stuck_patience:
            self._stuck_steps = 0
            return self._remember(me.position, self._random_move(kitchen))
        return self._remember(me.position, self._plan(kitchen, skill))

    def _plan(self, kitchen: KitchenState, skill: Skill) -> Action:
        if skill.name == "wait":
            return Action.STAY
        targets = self.book.targets(kitchen, skill)
        if not targets:
            return Action.STAY
        me = kitchen.players[self.agent]
        others = frozenset(p.position for p in kitchen.players if p.index != self.agent)
        route = best_route(kitchen.map, me.position, me.orientation, targets, blocked=others)
        if route is None:
            if best_route(kitchen.map, me.position, me.orientation, targets) is not None:
                return self._random_move(kitchen)  # only way is through the teammate
            return Action.STAY
        if route.first_action == Action.INTERACT and self._must_wait_at(kitchen, route):
            return Action.STAY
        return route.first_action

    @staticmethod
    def _must_wait_at(kitchen: KitchenState, route: Route) -> bool:
        """At a pot that is still cooking: interacting now would do nothing, so wait for it."""
        pot = kitchen.pot_at.get(route.target)
        return pot is not None and pot.cooking and not pot.ready

    def _update_stuck(self, kitchen: KitchenState) -> None:
        me = kitchen.players[self.agent]
        if self._last is None:
            return
        position, action = self._last
        moved_attempt = action not in (Action.STAY, Action.INTERACT)
        if moved_attempt and position == me.position and int(me.orientation) == int(action):
            self._stuck_steps += 1
        else:
            self._stuck_steps = 0

    def _random_move(self, kitchen: KitchenState) -> Action:
        me = kitchen.players[self.agent]
        others = {p.position for p in kitchen.players if p.index != self.agent}
        free = []
        for action in (Action.UP, Action.DOWN, Action.RIGHT, Action.LEFT):
            dx, dy = DIRECTION_VECTORS[Direction(int(action))]
            nxt = (me.position[0] + dx, me.position[1] + dy)
            if kitchen.map.is_floor(nxt) and nxt not in others:
                free.append(action)
        if not free:
            return Action.STAY
        return free[int(self.rng.integers(len(free)))]

    def _remember(self, position: tuple[int, int], action: Action) -> Action:
        self._last = (position, action)
        return action
