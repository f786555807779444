"""MA-Crafter's capability change ΔZ: `CapabilityChange` (one agent's item count changing in a
step), `capability_changes` / `capability_change` (a step's ΔZ) and `capability_record` (its
trace record).

They restate EmCoop's ``macrafter/cooperative_tasks.py`` ``track_capability_changes`` and the
capability part of ``cognitive/compute_metrics.py`` (EmCoop's code is
``HappyEureka/coop2-llm-mas``, folder ``ma_crafter/``); `proagent.domains.macrafter.constraints`
gathers the whole process and its collector sums the episode's ΔZ metrics.

**Capability change ΔZ** [``cooperative_tasks.py`` ``track_capability_changes``;
``cognitive/compute_metrics.py`` ``compute_capability_metrics``]: per alive agent and bag item, the
count after the step against the count before; health, food, drink, energy and saplings are ignored
(``ignored_items``; our bags hold no vitals). Each changed (agent, item) is one gain or loss
record; ``total_gains`` / ``total_losses`` count records, ``delta_Z`` = gains − losses, and
``Z_gain_rate`` = gains / T; ``capability_increased`` / ``decreased`` sum the units (StepMetrics).
``dz_{tools,items}_{gained,lost}`` split those units into tools and materials (**ours**: the same
ΔZ, split for the eval report's capability columns).

**Differs** from EmCoop: the capability records are ΔZ between ``before`` and ``after`` of each
step, where EmCoop compares with the inventories it saw at its previous tracking call (the same
states here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.macrafter.symbolic import CrafterView

# ``ignored_items`` of the capability tracking: vitals and saplings are no capability.
IGNORED_ITEMS: frozenset[str] = frozenset({"health", "food", "drink", "energy", "sapling"})


@dataclass(frozen=True)
class CapabilityChange:
    """One agent's item count changing in a step (EmCoop's ``CapabilityChange``)."""

    seat: int
    item: str
    old: int
    new: int

    @property
    def gain(self) -> bool:
        return self.new > self.old

    def to_record(self) -> dict:
        return {
            "agent": self.seat,
            "item": self.item,
            "old": self.old,
            "new": self.new,
            "change": "gain" if self.gain else "loss",
        }


def capability_changes(before: CrafterView, after: CrafterView) -> list[CapabilityChange]:
    """``track_capability_changes``: every alive agent's bag item whose count changed in the step,
    vitals and saplings aside."""
    out = []
    for b, a in zip(before.agents, after.agents, strict=True):
        if not a.alive:
            continue
        for item in sorted(set(b.inventory) | set(a.inventory)):
            if item not in IGNORED_ITEMS and a.count(item) != b.count(item):
                out.append(CapabilityChange(a.seat, item, b.count(item), a.count(item)))
    return out


def capability_change(before: CrafterView, after: CrafterView) -> dict[int, dict[str, int]]:
    """ΔZ per agent: seat -> item -> after − before, for the items `capability_changes` records."""
    out: dict[int, dict[str, int]] = {}
    for c in capability_changes(before, after):
        out.setdefault(c.seat, {})[c.item] = c.new - c.old
    return out


def capability_record(changes: Sequence[CapabilityChange]) -> dict:
    """The step's ΔZ record for the trace (no constraints, so the lane skips it as a task)."""
    agents: dict[str, dict[str, int]] = {}
    for c in changes:
        agents.setdefault(str(c.seat), {})[c.item] = c.new - c.old
    return {
        "task": "capability change",
        "kind": "capability",
        "agents": agents,
        "gains": sum(1 for c in changes if c.gain),
        "losses": sum(1 for c in changes if not c.gain),
        "increased": sum(c.new - c.old for c in changes if c.gain),
        "decreased": sum(c.old - c.new for c in changes if not c.gain),
        "counts": {},
        "satisfied": [],
        "violated": [],
        "outcome": None,
        "attributed": None,
        "delta_z": 0,
    }
