"""`WorldBase`: defaults for the interface members that are the same in most worlds.

A world subclasses it, sets its class attributes (name, homes, actions, event kinds, layouts) and
writes only what is its own: the env factory, the skill book and controller, grounding, knowledge
facts, memory line, metrics and partners. Every default here is overridable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from proagent.world.capabilities import Capabilities
from proagent.world.types import Controller, DomainEnv, DomainInputError, Event, SkillBook

DEFAULT_HORIZON = 400  # steps per episode where neither the user nor the layout says otherwise


class WorldBase:
    """Defaults: layouts from the ``layouts`` table, action names from the ``actions`` enum, event
    counts per kind in ``event_kinds`` and seat, episode metrics that count the ``metric_names``
    event kinds, the controller built from ``controller_type``, the first listed partner as the
    default teammate, one horizon for every layout."""

    name: str
    prompts_root: Path
    knowledge_root: Path
    actions: type[IntEnum]
    idle_action: int
    turn_based: bool = False  # real time by default: the world may move while a model thinks
    event_kinds: tuple[str, ...] = ()
    useful_events: tuple[str, ...] = ()
    metric_names: tuple[str, ...] = ()
    capabilities: Capabilities = Capabilities()
    layouts: Mapping[str, Any] = MappingProxyType({})
    horizon: int = DEFAULT_HORIZON
    controller_type: type[Controller]  # built as controller_type(book, seat, seed)

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name.lower() for a in self.actions)

    def layout_names(self) -> list[str]:
        return sorted(self.layouts)

    def default_layout(self) -> str:
        """The first listed layout: a world orders ``layout_names`` with its main setting first."""
        names = self.layout_names()
        if not names:
            raise DomainInputError(f"{self.name} has no named layouts; name one with --layout")
        return names[0]

    def owns(self, spec: str) -> bool:
        return spec in self.layouts

    def layout(self, spec: str) -> Any:
        """The ``layouts`` entry of ``spec``; DomainInputError naming the layouts otherwise."""
        if spec not in self.layouts:
            raise DomainInputError(f"unknown {self.name} layout {spec!r}; layouts: {', '.join(self.layout_names())}")
        return self.layouts[spec]

    def default_horizon(self, spec: str) -> int:
        return self.horizon

    def controller(self, book: SkillBook, seat: int, seed: int) -> Controller:
        return self.controller_type(book, seat, seed)  # type: ignore[call-arg]

    def count_events(self, events: Sequence[Event], num_agents: int) -> dict[str, list[int]]:
        per_seat = Counter((str(e.kind), e.agent) for e in events)  # type: ignore[attr-defined]
        return {kind: [per_seat[(kind, seat)] for seat in range(num_agents)] for kind in self.event_kinds}

    def episode_metrics(self, events: Sequence[Event]) -> dict[str, float]:
        """Default outcomes: how often each of ``metric_names`` happened as an event kind, whole team
        (worlds whose outcomes are not plain event counts override it)."""
        counts = Counter(str(e.kind) for e in events)  # type: ignore[attr-defined]
        return {name: float(counts[name]) for name in self.metric_names}

    def partner_names(self, env: DomainEnv | None) -> list[str]:
        return []

    def default_partner(self, env: DomainEnv) -> str:
        names = self.partner_names(env)
        if not names:
            raise DomainInputError(f"the {self.name} world has no partner for {env.name}: name one with --partner")
        return names[0]
