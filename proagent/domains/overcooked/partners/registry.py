"""Partners by name: one immutable mapping name -> factory, shared by play, eval and the CLI.

A factory takes the layout (trained RL partners are per layout and load their checkpoint from
it; scripted ones read the kitchen at ``act`` time and ignore it) and returns a fresh Partner.
Trained partners join by building a registry ``with_factories``; nothing is registered by
mutating module state, so two evaluations in one process cannot see each other's partners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType

from envs import KitchenLayout, get_layout
from proagent.domains.overcooked.partners.base import Partner, UnknownPartnerError
from proagent.domains.overcooked.partners.scripted import (
    RandomPartner,
    SkillPartner,
    StayPartner,
    greedy,
    onion_passer,
    supplier,
)
from proagent.paths import PARTNERS_DIR

LayoutSpec = str | KitchenLayout | None
PartnerFactory = Callable[[LayoutSpec], Partner]

GREEDY_EPSILON = 0.05  # near-greedy: enough noise to break symmetric ties, not enough to hurt


def _scripted_factories() -> dict[str, PartnerFactory]:
    return {
        "random": lambda layout: RandomPartner(),
        "stay": lambda layout: StayPartner(),
        "greedy": lambda layout: SkillPartner("greedy", greedy, epsilon=GREEDY_EPSILON),
        "onion_passer": lambda layout: SkillPartner("onion_passer", onion_passer),
        "supplier": lambda layout: SkillPartner("supplier", supplier),
    }


@dataclass(frozen=True)
class PartnerRegistry:
    """Name -> factory. Immutable: ``with_factories`` returns an extended copy."""

    factories: Mapping[str, PartnerFactory] = field(default_factory=lambda: MappingProxyType(_scripted_factories()))

    def names(self) -> list[str]:
        return sorted(self.factories)

    def make(self, name: str, layout: LayoutSpec = None) -> Partner:
        factory = self.factories.get(name)
        if factory is None:
            raise UnknownPartnerError(f"unknown partner {name!r}; available partners: {', '.join(self.names())}")
        return factory(layout)

    def with_factories(self, extra: Mapping[str, PartnerFactory]) -> PartnerRegistry:
        clash = sorted(set(extra) & set(self.factories))
        if clash:
            raise ValueError(f"partner names already registered: {clash}")
        return PartnerRegistry(MappingProxyType({**self.factories, **extra}))


def _load_trained(root: Path, algorithm: str, layout: LayoutSpec) -> Partner:
    from proagent.domains.overcooked.partners.rl import load_rl_partner  # flax only when a trained partner is used

    if layout is None:
        raise UnknownPartnerError(f"partner {algorithm!r} is trained per layout: give the layout")
    return load_rl_partner(algorithm, get_layout(layout) if isinstance(layout, str) else layout, root=root)


def trained_factories(root: Path = PARTNERS_DIR) -> dict[str, PartnerFactory]:
    """One factory per algorithm with a checkpoint for some layout (partners/<layout>/<algo>/)."""
    algorithms = sorted({manifest.parent.name for manifest in root.glob("*/*/manifest.json")})
    return {name: partial(_load_trained, root, name) for name in algorithms}


def default_registry() -> PartnerRegistry:
    """The scripted partners plus every trained partner shipped in partners/."""
    return PartnerRegistry().with_factories(trained_factories())


def make_partner(name: str, layout: LayoutSpec = None, registry: PartnerRegistry | None = None) -> Partner:
    """A fresh partner by name; call ``reset(seat, seed)`` on it before each episode."""
    return (registry or default_registry()).make(name, layout)


def available_partners(registry: PartnerRegistry | None = None) -> list[str]:
    return (registry or default_registry()).names()
