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
from proagent.domains.overcooked.navigation import Route, best_route
from proagent.domains.overcooked.skills import Skill, SkillBook


class Controller:
    """One per agent: remembers its last move to notice when it is stuck."""

    def __init__(self, book: SkillBook, agent: int, seed: int, stuck_patience: int = 3) -> None:
        self.book = book
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self.stuck_patience = stuck_patience
        self._last: tuple[tuple[int, int], Action] | None = None
        self._stuck_steps = 0  # consecutive moves that did not move us
        self._skill: Skill | None = None
        self._route_length: int | None = None
        self._no_progress = 0  # consecutive steps the route did not get shorter

    def act(self, kitchen: KitchenState, skill: Skill) -> Action:
        me = kitchen.players[self.agent]
        if skill != self._skill:
            self._skill, self._route_length, self._no_progress = skill, None, 0
        self._update_stuck(kitchen)
        if self._stuck_steps >= self.stuck_patience:
            self._stuck_steps = 0
            return self._remember(me.position, self._random_move(kitchen))
        action, route = self._plan(kitchen, skill)
        if self._stalled(route):
            action = self._random_move(kitchen)
        return self._remember(me.position, action)

    def _plan(self, kitchen: KitchenState, skill: Skill) -> tuple[Action, Route | None]:
        if skill.name == "wait":
            return Action.STAY, None
        targets = self.book.targets(kitchen, skill)
        if not targets:
            return Action.STAY, None
        me = kitchen.players[self.agent]
        others = frozenset(p.position for p in kitchen.players if p.index != self.agent)
        route = best_route(kitchen.map, me.position, me.orientation, targets, blocked=others)
        if route is None:
            if best_route(kitchen.map, me.position, me.orientation, targets) is not None:
                return self._random_move(kitchen), None  # only way is through the teammate
            return Action.STAY, None
        if route.first_action == Action.INTERACT and self._must_wait_at(kitchen, route):
            return Action.STAY, route
        return route.first_action, route

    def _stalled(self, route: Route | None) -> bool:
        """Walking without getting closer: two chefs re-routing around each other as mirror images
        (counter_circuit's island) move successfully forever, so failed moves never show it."""
        if route is None or route.length == 0:
            self._route_length, self._no_progress = None, 0
            return False
        progressed = self._route_length is not None and route.length < self._route_length
        self._route_length = route.length
        self._no_progress = 0 if progressed else self._no_progress + 1
        if self._no_progress <= self.stuck_patience:
            return False
        self._route_length, self._no_progress = None, 0
        return True

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
