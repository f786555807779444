"""Teammates for ProAgent: one Partner protocol, scripted partners, and a name -> factory registry."""

from proagent.domains.overcooked.partners.base import Partner, UnknownPartnerError
from proagent.domains.overcooked.partners.registry import (
    PartnerFactory,
    PartnerRegistry,
    available_partners,
    default_registry,
    make_partner,
)
from proagent.domains.overcooked.partners.scripted import (
    Choice,
    RandomPartner,
    SkillPartner,
    StayPartner,
    TeamView,
    greedy,
    onion_passer,
    supplier,
)

__all__ = [
    "Choice",
    "Partner",
    "PartnerFactory",
    "PartnerRegistry",
    "RandomPartner",
    "SkillPartner",
    "StayPartner",
    "TeamView",
    "UnknownPartnerError",
    "available_partners",
    "default_registry",
    "greedy",
    "make_partner",
    "onion_passer",
    "supplier",
]
