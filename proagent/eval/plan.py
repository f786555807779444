"""The episodes of an evaluation, each with a key that identifies it across restarts.

A key is (agent, partner, layout, seat, episode index); the seed follows from the index, so a
resumed run replays exactly the episodes a full run would have played. Jobs are ordered episode
index first: a run stopped early by its budget has covered every cell a little rather than a
few cells fully.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from proagent.eval.config import AgentSpec, EvalConfig


class EpisodeKey(BaseModel):
    model_config = ConfigDict(frozen=True)

    agent: str
    partner: str
    layout: str
    seat: int
    episode: int

    @property
    def id(self) -> str:
        return f"{self.agent}|{self.partner}|{self.layout}|p{self.seat}|{self.episode}"


@dataclass(frozen=True)
class EpisodeJob:
    key: EpisodeKey
    spec: AgentSpec
    seed: int
    topology: str | None = None  # MAEIL topology (None: no conversation)
    repair: str = "off"  # COOP²-Repair mode of the topology: off | observe | on


# --repair -> the modes each topology is played in (both: a matched pair; observe scores the estimator, never
# intervenes)
REPAIR_ARMS: dict[str, tuple[str, ...]] = {"off": ("off",), "on": ("on",), "both": ("observe", "on")}


def agent_label(name: str, topology: str | None, repair: str = "off") -> str:
    """The table's name of an agent run under a topology: ``proagent@centralized``, with repair
    ``proagent@centralized+repair``."""
    label = name if topology is None else f"{name}@{topology}"
    return label + "+repair" if repair == "on" else label


def plan_jobs(
    config: EvalConfig, layouts: list[str], partners: Mapping[str, list[str]] | None = None
) -> list[EpisodeJob]:
    """Every episode of the grid; ``layouts``: the canonical names of ``config.layouts``;
    ``partners``: each layout's partners where they differ from ``config.partners`` (its
    ``default`` entry resolved per layout). With topologies, each agent plays under each (its label
    ``agent@topology`` keys the episode)."""
    topologies: list[str | None] = list(config.topologies) or ["individual" if config.repair != "off" else None]
    partners = partners or {}
    return [
        EpisodeJob(
            EpisodeKey(
                agent=agent_label(spec.name, topology, arm), partner=partner, layout=layout, seat=seat, episode=i
            ),
            spec,
            config.seed + i,
            topology,
            arm if topology is not None else "off",
        )
        for i in range(config.episodes)
        for layout in layouts
        for spec in config.agents
        for topology in topologies
        for arm in REPAIR_ARMS[config.repair]
        for partner in partners.get(layout, config.partners)
        for seat in config.seats
    ]


def pending_jobs(jobs: list[EpisodeJob], finished: set[str]) -> list[EpisodeJob]:
    """The jobs whose key id is not among ``finished``."""
    return [job for job in jobs if job.key.id not in finished]
