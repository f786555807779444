"""What one chef may know: the true kitchen cut down to its view window plus what it remembers.

OvercookedV2's coordination challenges (grounded coordination, test-time protocol formation,
demo-cook) are about *information*: with ``agent_view_size = r`` the engine shows each agent only
the square of cells with |dx| <= r and |dy| <= r around it (``_mask_obs``), and the recipe only on
a recipe indicator, on a button indicator while its timer runs, or (with
``indicate_successful_delivery``) as a flag on the serving cells after a correct delivery. A
prompt built from the full ``KitchenState`` would hand the LLM the hidden recipe and the
teammate's position for free and void those challenges, so the planner's facts come from a
``KitchenView`` built here instead. The Verificator, ``legal_only`` and the judgement of a running
skill check ``believed_state()`` (their failure texts reach the prompt), and belief correction reads
only ``witnessed()`` events. The controller still steers on the true state: it is the motor layer,
and its moves never reach the prompt as text.

With a full view (``agent_view_size is None``) the perceiver returns the true state unchanged, so
classic runs keep byte-identical prompts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Generic, Literal, TypeVar

from envs import Dynamics, KitchenState, Pos
from envs.overcooked.events import Event, EventKind
from envs.overcooked.symbolic import Item, Player, Pot
from proagent.domains.overcooked.skills import SkillBook

T = TypeVar("T")

RecipeSource = Literal["indicator", "button", "own_delivery", "delivery_signal", "ruled_out"]


@dataclass(frozen=True, slots=True)
class Sighting(Generic[T]):
    """Something as the agent last saw it, and when (``step``); "seen now" has the current step."""

    what: T
    step: int


@dataclass(frozen=True, slots=True)
class RecipeKnowledge:
    """The recipe as learned, when and how. ``stale_since``: the step of a correct delivery known
    to the agent after which (with ``new_recipe_on_delivery``) the recipe may have changed."""

    ingredients: tuple[int, ...]
    step: int
    how: RecipeSource
    position: Pos | None = None  # the indicator or serving cell it was read from
    stale_since: int | None = None  # the step of that delivery; "was X until step s"


@dataclass(frozen=True)
class KitchenView:
    """One agent's honest picture of the kitchen.

    ``kitchen`` is the true state with what is out of view replaced by memory: its ``players`` are
    only the chefs in view (the agent itself always), its ``counter_items`` and ``pots`` are those
    in view now plus those remembered (``pots`` / ``counters`` say when each was seen), a button
    indicator out of view reads as off, and its ``recipe`` is empty (read ``recipe`` instead). Skill targets and
    distances computed on it are beliefs.
    """

    kitchen: KitchenState
    seat: int
    radius: int
    me: Player
    teammate: Sighting[Player] | None  # the teammate now when in view, else its last sighting
    teammate_in_view: bool
    teammate_skill: Sighting[str] | None  # the last skill completion the agent witnessed
    pots: dict[Pos, Sighting[Pot]]  # every pot it has knowledge of
    counters: dict[Pos, Sighting[Item]]  # counter items in view or remembered
    recipe: RecipeKnowledge | None
    # button indicator -> the last step the agent saw it lit since the last correct delivery (a
    # press shows the current recipe to every chef in view; a correct delivery, which the score
    # shows, may draw a new one): whether the current recipe was already shown
    buttons_lit: dict[Pos, int] = field(default_factory=dict)
    last_served: int | None = None  # the step of the last correct delivery (the score rose)

    @property
    def step(self) -> int:
        return self.kitchen.step

    def in_view(self, pos: Pos) -> bool:
        return in_window(self.me.position, pos, self.radius)


def in_window(center: Pos, pos: Pos, radius: int) -> bool:
    """The engine's view window (``_mask_obs`` slices a (2r+1)-square centred on the agent)."""
    return abs(pos[0] - center[0]) <= radius and abs(pos[1] - center[1]) <= radius


class Perceiver:
    """Turns each true state into a ``KitchenView`` for one seat, remembering across the episode.

    Never reads ``state.recipe`` unless the recipe is observable this step (an indicator in view);
    never reads a cell or the teammate out of the window.
    """

    def __init__(
        self,
        seat: int,
        radius: int | None,
        new_recipe_on_delivery: bool = False,
        delivery_signal: bool = False,
        random_starts: bool = False,
    ) -> None:
        self.seat = seat
        self.mate = 1 - seat
        self.radius = radius
        self.new_recipe_on_delivery = new_recipe_on_delivery
        self.delivery_signal = delivery_signal
        self.random_starts = random_starts
        self._pots: dict[Pos, Sighting[Pot]] = {}
        self._counters: dict[Pos, Sighting[Item]] = {}
        self._mate: Sighting[Player] | None = None
        self._mate_skill: Sighting[str] | None = None
        self._recipe: RecipeKnowledge | None = None
        self._ruled_out: set[tuple[int, ...]] = set()  # soups its own unpaid deliveries showed are not the recipe
        self._buttons_lit: dict[Pos, int] = {}  # button indicator -> last step seen lit since the last correct delivery
        self._last_served: int | None = None
        self._mate_was_visible = False
        self._started = False
        self._believed: KitchenState | None = None
        self._book: SkillBook | None = None
        self._witnessed: tuple = ()

    @classmethod
    def for_rules(cls, dynamics: Dynamics, seat: int, full_view: int | None = None) -> Perceiver:
        """From the game rules: their view radius and recipe rules. ``full_view``: the radius to use
        when the rules give a full view (None keeps it full information: no window at all; a
        scripted chef passes the kitchen's size so it reads the recipe only where the engine shows
        it)."""
        radius = dynamics.agent_view_size if dynamics.agent_view_size is not None else full_view
        return cls(
            seat,
            radius,
            new_recipe_on_delivery=dynamics.new_recipe_on_delivery,
            delivery_signal=dynamics.indicate_successful_delivery,
            random_starts=dynamics.random_agent_positions,
        )

    @classmethod
    def for_env(cls, env, seat: int) -> Perceiver:
        """From an ``OvercookedEnv``: the rules it plays under."""
        return cls.for_rules(env.dynamics, seat)

    def believed_state(self) -> KitchenState:
        """The last observed kitchen as this chef believes it: the true state with a full view; else
        the view's kitchen with both chefs, the teammate where last seen (at its start cell, empty-
        handed, if never seen: a guess), since skill checks index the chefs by seat."""
        if self._believed is None:
            raise RuntimeError("believed_state() before observe()")
        return self._believed

    def witnessed(self) -> tuple:
        """The last observed step's events this chef saw: its own, and the teammate's while the
        teammate was in view before or after the step (all of them with a full view)."""
        return self._witnessed

    def observe(self, state: KitchenState, events=()) -> KitchenState | KitchenView:
        """The agent's view of ``state`` (reached by ``events``); the state itself with a full view."""
        if self.radius is None:
            self._believed, self._witnessed = state, tuple(events)
            return state
        r = self.radius
        me = state.players[self.seat]
        step = state.step

        def seen(pos: Pos) -> bool:
            return in_window(me.position, pos, r)

        if not self._started:
            self._start(state)
        # The teammate: the true player only inside the window.
        mate = state.players[self.mate] if self.mate < len(state.players) else None
        mate_visible = mate is not None and seen(mate.position)
        if mate_visible:
            self._mate = Sighting(mate, step)
        # Pots and counters: what is in view now overwrites memory (changed or gone).
        for pot in state.pots:
            if seen(pot.position):
                self._pots[pot.position] = Sighting(pot, step)
        for pos in state.map.counters:
            if seen(pos):
                item = state.counter_items.get(pos)
                if item is None:
                    self._counters.pop(pos, None)
                else:
                    self._counters[pos] = Sighting(item, step)
        self._read_events(events, mate_visible, seen, state.layout.recipes)
        self._read_indicators(state, seen)
        saw_mate = mate_visible or self._mate_was_visible
        self._witnessed = tuple(e for e in events if getattr(e, "agent", self.seat) == self.seat or saw_mate)
        self._mate_was_visible = mate_visible
        kitchen = replace(
            state,
            players=tuple(p for p in state.players if p.index == self.seat or (p.index == self.mate and mate_visible)),
            pots=tuple(s.what for _, s in sorted(self._pots.items())),
            counter_items={pos: s.what for pos, s in sorted(self._counters.items())},
            recipe=(),
            # A button out of view may be lit or not: unknown, shown as off.
            indicators=tuple(i if seen(i.position) else replace(i, active_ticks=0) for i in state.indicators),
        )
        self._believed = replace(kitchen, players=self._believed_players(state, me))
        return KitchenView(
            kitchen=kitchen,
            seat=self.seat,
            radius=r,
            me=me,
            teammate=self._mate,
            teammate_in_view=mate_visible,
            teammate_skill=self._mate_skill,
            pots=dict(sorted(self._pots.items())),
            counters=dict(sorted(self._counters.items())),
            recipe=self._recipe,
            buttons_lit=dict(sorted(self._buttons_lit.items())),
            last_served=self._last_served,
        )

    def _believed_players(self, state: KitchenState, me: Player) -> tuple[Player, ...]:
        players = [me]
        if self.mate < len(state.players):
            if self._mate is not None:
                players.append(self._mate.what)
            else:
                start = state.layout.starts[self.mate]
                players.append(Player(self.mate, start, me.orientation, None))
        return tuple(sorted(players, key=lambda p: p.index))

    def _start(self, state: KitchenState) -> None:
        """An episode starts from the layout: empty pots, bare counters, the chefs on their start
        cells (unless starts are random). That is map knowledge, known at step 0 without being seen."""
        self._started = True
        self._book = SkillBook.for_map(state.map)  # the kitchen's own skill names (put_in_pot on V2)
        if state.step != 0:
            return
        for pos in state.map.pots:
            self._pots[pos] = Sighting(Pot(pos, (), False, False, 0), 0)
        starts = state.layout.starts
        if not self.random_starts and self.mate < len(state.players) and self.mate < len(starts):
            mate = state.players[self.mate]
            if mate.position == starts[self.mate] and mate.held is None:
                self._mate = Sighting(mate, 0)

    def _read_events(self, events, mate_visible: bool, seen, possible: tuple[tuple[int, ...], ...]) -> None:
        for event in events:
            if not isinstance(event, Event):
                continue
            if event.agent == self.mate and (mate_visible or self._mate_was_visible):
                # Witnessed: the teammate was in view before or after the step (a dispenser in
                # view does not show who took from it).
                skill = self._book.skill_of_event(event) if self._book is not None else None
                if skill is not None:
                    self._mate_skill = Sighting(str(skill), event.step)
            if event.kind != EventKind.DELIVER:
                continue
            soup = tuple(sorted(event.item.ingredients)) if event.item is not None else ()
            if not event.correct:
                if event.agent == self.seat and soup:
                    self._rule_out(soup, event, possible)
                continue
            self._ruled_out.clear()  # the recipe may be drawn anew; what was ruled out no longer holds
            self._buttons_lit.clear()  # a light seen before showed the recipe of before
            self._last_served = event.step
            stale = event.step if self.new_recipe_on_delivery else None
            if event.agent == self.seat and soup:
                # Its own delivery paid: the soup it carried was the recipe.
                self._recipe = RecipeKnowledge(soup, event.step, "own_delivery", event.position, stale)
            elif self.delivery_signal and soup and seen(event.position) and (mate_visible or self._mate_was_visible):
                # The serving cell flagged a correct delivery of a soup it saw carried there.
                self._recipe = RecipeKnowledge(soup, event.step, "delivery_signal", event.position, stale)
            elif self.new_recipe_on_delivery and self._recipe is not None and self._recipe.stale_since is None:
                # Any correct delivery raises the team score shown in the prompt: a new recipe may
                # have been drawn.
                self._recipe = replace(self._recipe, stale_since=event.step)

    def _rule_out(self, soup: tuple[int, ...], event: Event, possible: tuple[tuple[int, ...], ...]) -> None:
        """Its own delivery did not pay (the score shown did not rise): ``soup`` is not the recipe.
        The engine draws a new recipe only after a correct delivery, so the ruled-out soups add up
        until then; when one possible recipe (the layout's list, map knowledge) is left, it is known."""
        self._ruled_out.add(soup)
        left = {tuple(sorted(r)) for r in possible} - self._ruled_out
        if len(left) == 1:
            self._recipe = RecipeKnowledge(left.pop(), event.step, "ruled_out", event.position)

    def _read_indicators(self, state: KitchenState, seen) -> None:
        """An indicator in view shows the current recipe (a button one while its timer runs): the
        only place the perceiver reads ``state.recipe``. Also notes when each button was seen lit."""
        shown: RecipeKnowledge | None = None
        for indicator in state.indicators:
            if not seen(indicator.position):
                continue
            if indicator.kind == "button" and indicator.active_ticks > 0:
                self._buttons_lit[indicator.position] = state.step
            if shown is None and (indicator.kind == "recipe" or indicator.active_ticks > 0):
                how: RecipeSource = "indicator" if indicator.kind == "recipe" else "button"
                shown = RecipeKnowledge(tuple(state.recipe), state.step, how, indicator.position)
        if shown is not None:
            self._recipe = shown
