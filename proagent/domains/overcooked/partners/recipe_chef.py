"""``recipe_greedy``: a scripted greedy cook of the recipe it *knows*, for every kitchen (classic and V2).

The three-onion chefs (``scripted.py``) would cook the wrong dish on an OvercookedV2 kitchen, where
the recipe (3 onions or 3 tomatoes) is hidden, shown only on indicators, and may be drawn anew
after each correct delivery. This chef perceives like the LLM agent does: the runner hands every
seat the full true ``KitchenState``, so it keeps its own :class:`Perceiver` (built with the env's
real rules: view radius, new recipe on delivery, delivery signal, random starts) and decides,
walks and judges its skills on ``believed_state()`` and on the recipe the perceiver has read,
never on ``state.recipe`` nor on cells out of its view.

With a full view (``agent_view_size=None``) the Perceiver would return the true state, hidden
recipe field included, so the chef watches through a window as large as the kitchen instead: every
cell is seen, and the recipe still only where the engine shows it (an indicator, a lit button).
A kitchen whose layout lists a single possible recipe (the classic ones) has it known by
elimination: map knowledge, not hidden state.

Without a known recipe it never starts or feeds a pot (with the wrong-dish penalty a blind soup is
worth nothing); it looks at a reachable recipe indicator, presses a reachable button once per
recipe, else waits out of the way; it still carries dishes and serves cooked soups.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from envs import Action, Dynamics, KitchenLayout, KitchenState, Pos, Pot
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.symbolic import Item
from proagent.contract import Observation
from proagent.domains.overcooked.partners.scripted import (
    DELIVER,
    FILL_DISH,
    PICKUP_DISH,
    Choice,
    ScopedSkillBook,
    SkillPartner,
    TeamView,
    dishes_needed,
    fetch_scope,
    free_hands,
    park,
    pass_over,
    still_needed,
)
from proagent.domains.overcooked.perception import KitchenView, Perceiver
from proagent.domains.overcooked.skills import Skill, recipe_fit
from proagent.world.types import Event

PICKUP_SOUP = Skill("pickup", "soup")
PRESS = Skill("press_button")
LOOK = Skill("go_to_indicator")
CALM_NOISE = (Action.UP, Action.DOWN, Action.RIGHT, Action.LEFT, Action.STAY)  # never a random INTERACT


def names(ingredients: Iterable[int]) -> tuple[str, ...]:
    """Ingredient indices -> sorted names, the form ``recipe_fit`` compares."""
    return tuple(sorted(ingredient_name(i) for i in ingredients))


def known_recipe(view: KitchenView, layout: KitchenLayout) -> tuple[str, ...] | None:
    """The recipe this chef knows now: the layout's only possible one (map knowledge), else what its
    perceiver read, unless a correct delivery since may have drawn a new one (``stale_since``)."""
    possible = {tuple(sorted(recipe)) for recipe in layout.recipes}
    if len(possible) == 1:
        return names(possible.pop())
    read = view.recipe
    if read is None or read.stale_since is not None:
        return None
    return names(read.ingredients)


@dataclass(frozen=True)
class RecipeView(TeamView):
    """A ``TeamView`` of the believed kitchen plus what the chef knows of the recipe.

    ``recipe``: ingredient names of the recipe known now (None: unknown or stale); ``shown``: a
    button showed the current recipe since the last correct delivery (pressing again only pays
    again); ``volatile``: a correct delivery may draw a new recipe (``new_recipe_on_delivery``)."""

    recipe: tuple[str, ...] | None = None
    shown: bool = False
    volatile: bool = False

    def servable(self, soup: Item) -> bool:
        """A soup not known to be wrong (unknown recipe: serving it is a fair bet and frees a dish)."""
        return self.recipe is None or names(soup.ingredients) == self.recipe

    @cached_property
    def serving_soon(self) -> bool:
        """A soup is on its way to the serving spot (held by a chef, or parked)."""
        held = any(p.held is not None and p.held.kind == "soup" for p in self.kitchen.players)
        return held or any(item.kind == "soup" for item in self.kitchen.counter_items.values())

    @cached_property
    def open_pots(self) -> tuple[Pot, ...]:
        """Pots that accept ingredients towards the known recipe. An empty pot waits while a soup
        is about to be served on a kitchen that then draws a new recipe: a pot begun on the old
        recipe could be left with ingredients the new one does not take, for good."""
        if self.recipe is None:
            return ()
        wait_for_serve = self.volatile and self.serving_soon
        pots = (p for p in self.kitchen.pots if p.idle and not p.is_full and not (p.is_empty and wait_for_serve))
        return tuple(p for p in pots if not Counter(names(p.ingredients)) - Counter(self.recipe))

    def fitting_pots(self, ingredient: str) -> frozenset[Pos]:
        """Pots where putting ``ingredient`` keeps them on the way to the known recipe (``recipe_fit``)."""
        return frozenset(
            p.position for p in self.open_pots if recipe_fit(names(p.ingredients), ingredient, self.recipe) is None
        )

    def slots(self, ingredient: str) -> int:
        """How many more of ``ingredient`` the open pots take (the recipe's count less what is in)."""
        need = Counter(self.recipe or ())
        return sum(max(0, need[ingredient] - Counter(names(p.ingredients))[ingredient]) for p in self.open_pots)


def _offered(view: TeamView, skill: Skill) -> bool:
    """The kitchen has this skill (``press_button`` and ``go_to_indicator`` exist only with indicators)."""
    return skill.name in view.book.specs


def recipe_greedy(view: RecipeView) -> Iterator[Choice]:
    """A greedy cook of the known recipe: finish what is in hand, else fetch what the pots need;
    pass over counters when its side cannot reach the pot (as ``greedy``)."""
    held = view.me.held
    if held is None:
        yield from _fetch(view)
    elif held.kind == "soup":
        if view.servable(held):
            yield Choice(DELIVER)
            yield pass_over(view)
        yield park()  # known wrong: parked, it costs nothing and frees the pot
    elif held.kind == "dish":
        yield Choice(FILL_DISH)
        yield free_hands(view)
    else:
        fitting = view.fitting_pots(held.name)
        if fitting:
            yield Choice(view.book.put_skill, fitting)
        yield free_hands(view) if fitting else park()


def _fetch(view: RecipeView) -> Iterator[Choice]:
    """Empty hands: a servable parked soup, a dish for a cooking pot, the next ingredient the known
    recipe still needs; without a recipe, find it out; a chef who knows it but cannot reach a pot
    shows it on the button for its teammate."""
    counters = view.kitchen.counter_items.items()
    soups = frozenset(pos for pos, item in counters if item.kind == "soup" and view.servable(item))
    if soups:
        yield Choice(PICKUP_SOUP, soups)
    if dishes_needed(view) > 0:
        yield Choice(PICKUP_DISH, fetch_scope(view, "dish"))
    if view.recipe is None:
        yield from _find_out(view)
        return
    for ingredient in dict.fromkeys(view.recipe):
        if still_needed(view, ingredient, view.slots(ingredient)) > 0:
            yield Choice(Skill("pickup", ingredient), fetch_scope(view, ingredient))
    if not view.i_reach_a_pot and not view.shown and _offered(view, PRESS):
        yield Choice(PRESS)


def _find_out(view: RecipeView) -> Iterator[Choice]:
    """Recipe unknown: stand by a recipe indicator (scoped to those: an unlit button shows nothing),
    else press a button unless it already showed this recipe (a press costs points)."""
    indicators = view.kitchen.map.recipe_indicators
    if indicators and _offered(view, LOOK):
        yield Choice(LOOK, frozenset(indicators))
    if not view.shown and _offered(view, PRESS):
        yield Choice(PRESS)


class RecipeChef(SkillPartner):
    """``recipe_greedy``: perceives through its own ``Perceiver``, plays ``recipe_greedy`` on the
    kitchen it believes. Epsilon noise is a random move or stay, never a random interaction (it
    could drop a wrong ingredient in a pot)."""

    def __init__(
        self, dynamics: Dynamics, name: str = "recipe_greedy", epsilon: float = 0.0, stuck_patience: int = 3
    ) -> None:
        super().__init__(name, recipe_greedy, epsilon=epsilon, stuck_patience=stuck_patience)
        self.dynamics = dynamics
        self._perceiver: Perceiver | None = None
        self._view: KitchenView | None = None
        self._recipe: tuple[str, ...] | None = None

    @property
    def view(self) -> KitchenView | None:
        """The last ``KitchenView`` (for traces and tests)."""
        return self._view

    @property
    def recipe(self) -> tuple[str, ...] | None:
        """The recipe it knows now (ingredient names), None when unknown or stale."""
        return self._recipe

    def info(self) -> dict:
        return {**super().info(), "known_recipe": list(self._recipe) if self._recipe else None}

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self._perceiver, self._view, self._recipe = None, None, None

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        return int(self.policy(self.perceive(obs.state, events), obs.engine))

    def perceive(self, state: KitchenState, events: Sequence[Event]) -> KitchenState:
        """Feed the perceiver this step (and the last step's events); the kitchen it now believes."""
        if self.seat < 0:
            raise RuntimeError(f"partner {self.name!r}: call reset(seat, seed) before act()")
        if self._perceiver is None:
            # a full view becomes a window over the whole kitchen: the recipe is read only where the engine shows it
            full_view = max(state.layout.width, state.layout.height)
            self._perceiver = Perceiver.for_rules(self.dynamics, self.seat, full_view=full_view)
        view = self._perceiver.observe(state, events)
        assert isinstance(view, KitchenView)  # a chef perceiver always has a window
        self._view = view
        self._recipe = known_recipe(view, state.layout)
        return self._perceiver.believed_state()

    def team_view(self, kitchen: KitchenState, book: ScopedSkillBook) -> RecipeView:
        if self._view is None:
            raise RuntimeError(f"partner {self.name!r} decides on what it perceived: call act(), not policy()")
        shown = bool(self._view.buttons_lit)
        volatile = self.dynamics.new_recipe_on_delivery
        return RecipeView(kitchen, self.seat, book, recipe=self._recipe, shown=shown, volatile=volatile)

    def noise_action(self) -> Action:
        return CALM_NOISE[int(self._rng.integers(len(CALM_NOISE)))]
