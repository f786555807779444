"""Partners by name: one immutable mapping name -> factory, shared by play, eval and the CLI.

Every factory takes the kitchen and the env's rules (``Dynamics``) and returns a fresh Partner:
trained RL partners are per layout and load their checkpoint from it; a chef that perceives like
the env shows (view radius, recipe rules: ``recipe_greedy``) reads the rules; the others ignore
what they do not need. ``make`` resolves a layout name and, when the caller names no rules, uses
the layout's own settings (`envs.overcooked.presets.layout_dynamics`).
Trained partners join by building a registry ``with_factories``; nothing is registered by
mutating module state, so two evaluations in one process cannot see each other's partners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType

from envs import Dynamics, KitchenLayout, get_layout
from envs.overcooked.layouts import ingredient_name
from envs.overcooked.presets import layout_dynamics
from proagent.domains.overcooked.partners.base import Partner, UnknownPartnerError
from proagent.domains.overcooked.partners.recipe_chef import RecipeChef
from proagent.domains.overcooked.partners.scripted import (
    Heuristic,
    RandomPartner,
    SkillPartner,
    StayPartner,
    greedy,
    onion_passer,
    supplier,
)
from proagent.paths import PARTNERS_DIR

LayoutSpec = str | KitchenLayout | None
PartnerFactory = Callable[[KitchenLayout | None, Dynamics], Partner]

GREEDY_EPSILON = 0.05  # near-greedy: enough noise to break symmetric ties, not enough to hurt
RECIPE_CHEF_EPSILON = 0.05  # the same noise; recipe_chef keeps it off INTERACT (no random wrong put)


CLASSIC_RECIPES = ((0, 0, 0),)  # the classic kitchens' only soup: three onions


def _kitchen(layout: LayoutSpec) -> KitchenLayout | None:
    return get_layout(layout) if isinstance(layout, str) else layout


def cooks_classic_soup_only(layout: LayoutSpec) -> bool:
    """Whether the kitchen asks for nothing but the three-onion soup (unknown kitchen: assumed so)."""
    kitchen = _kitchen(layout)
    return kitchen is None or tuple(kitchen.recipes) == CLASSIC_RECIPES


def default_dynamics(layout: LayoutSpec) -> Dynamics:
    """The rules a kitchen plays under when the caller names none: the OvercookedV2 paper's for its
    coordination layouts, the classic ones otherwise (what `make_layout_env` builds)."""
    kitchen = _kitchen(layout)
    return Dynamics(**layout_dynamics(kitchen.name)) if kitchen is not None else Dynamics()


def _recipes_text(kitchen: KitchenLayout) -> str:
    return " or ".join(", ".join(ingredient_name(i) for i in recipe) for recipe in kitchen.recipes)


def _classic_role(name: str, heuristic: Heuristic, epsilon: float = 0.0) -> PartnerFactory:
    """A heuristic chef that knows only the three-onion soup: on a kitchen with other recipes (the
    V2 layouts) it would cook the wrong dish every time, so it refuses to play there."""

    def factory(kitchen: KitchenLayout | None, dynamics: Dynamics) -> Partner:
        if not cooks_classic_soup_only(kitchen):
            raise ValueError(
                f"partner {name!r} cooks only the classic three-onion soup; {kitchen.name} asks for "
                f"{_recipes_text(kitchen)}: play it with a partner trained there (see `proagent partners`) or proagent"
            )
        return SkillPartner(name, heuristic, epsilon=epsilon)

    return factory


_CLASSIC_HEURISTICS: dict[str, tuple[Heuristic, float]] = {  # name -> (heuristic, epsilon)
    "greedy": (greedy, GREEDY_EPSILON),
    "onion_passer": (onion_passer, 0.0),
    "supplier": (supplier, 0.0),
}
CLASSIC_ROLES = tuple(_CLASSIC_HEURISTICS)  # the partners that refuse kitchens with other recipes


def _scripted_factories() -> dict[str, PartnerFactory]:
    roles = {name: _classic_role(name, h, epsilon=eps) for name, (h, eps) in _CLASSIC_HEURISTICS.items()}
    return {
        "random": lambda kitchen, dynamics: RandomPartner(),
        "stay": lambda kitchen, dynamics: StayPartner(),
        "recipe_greedy": lambda kitchen, dynamics: RecipeChef(dynamics, epsilon=RECIPE_CHEF_EPSILON),
        **roles,
    }


@dataclass(frozen=True)
class PartnerRegistry:
    """Name -> factory. Immutable: ``with_factories`` returns an extended copy."""

    factories: Mapping[str, PartnerFactory] = field(default_factory=lambda: MappingProxyType(_scripted_factories()))

    def names(self) -> list[str]:
        return sorted(self.factories)

    def make(self, name: str, layout: LayoutSpec = None, dynamics: Dynamics | None = None) -> Partner:
        """A fresh partner for ``layout`` under ``dynamics``, the env's rules (default: the layout's own)."""
        factory = self.factories.get(name)
        if factory is None:
            raise UnknownPartnerError(f"unknown partner {name!r}; available partners: {', '.join(self.names())}")
        return factory(_kitchen(layout), dynamics if dynamics is not None else default_dynamics(layout))

    def with_factories(self, extra: Mapping[str, PartnerFactory]) -> PartnerRegistry:
        clash = sorted(set(extra) & set(self.factories))
        if clash:
            raise ValueError(f"partner names already registered: {clash}")
        return PartnerRegistry(MappingProxyType({**self.factories, **extra}))


def _load_trained(root: Path, algorithm: str, kitchen: KitchenLayout | None, dynamics: Dynamics) -> Partner:
    """A trained partner observes with the rules it was trained under (its manifest's), so the env's
    ``dynamics`` are not its to read."""
    # flax only when a trained partner is used
    from proagent.domains.overcooked.rl_spec import partner_env
    from proagent.training.partner import load_rl_partner

    if kitchen is None:
        raise UnknownPartnerError(f"partner {algorithm!r} is trained per layout: give the layout")
    return load_rl_partner("overcooked", kitchen.name, algorithm, lambda m: partner_env(kitchen, m.dynamics), root)


def trained_factories(root: Path = PARTNERS_DIR) -> dict[str, PartnerFactory]:
    """One factory per algorithm with a checkpoint for some layout (partners/overcooked/<layout>/<algo>/)."""
    algorithms = sorted({manifest.parent.name for manifest in (root / "overcooked").glob("*/*/manifest.json")})
    return {name: partial(_load_trained, root, name) for name in algorithms}


def default_registry() -> PartnerRegistry:
    """The scripted partners plus every trained partner shipped in partners/."""
    return PartnerRegistry().with_factories(trained_factories())


def make_partner(
    name: str, layout: LayoutSpec = None, registry: PartnerRegistry | None = None, dynamics: Dynamics | None = None
) -> Partner:
    """A fresh partner by name; call ``reset(seat, seed)`` on it before each episode. ``dynamics``:
    the env's rules, for partners that perceive with them (default: the layout's own)."""
    return (registry or default_registry()).make(name, layout, dynamics)


def available_partners(registry: PartnerRegistry | None = None) -> list[str]:
    return (registry or default_registry()).names()
