"""One agent contract for every kind of agent: LLM (ProAgent), scripted, RL, human.

The runner gives each seat an `Observation` and the events of the last step and awaits one
primitive action; it never asks what kind of agent sits there. `info()` returns what the trace
should show of the step just acted (a skill, an LLM decision, a belief update), `episode_stats()` what
the episode record should carry (LLM calls, tokens, intention accuracy), empty for agents without
such things. Any agent can fill any seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from proagent.world.types import EngineState, Event, State


@dataclass(frozen=True)
class Observation:
    """What one seat receives each step."""

    seat: int
    state: State  # the domain's symbolic state (what this seat may know of it)
    engine: EngineState  # the raw env state: RL policies compute their own observation from it
    last_actions: tuple[int, ...] | None  # every seat's primitive action in the last step (None at the start)
    score: float  # the team's score so far

    @property
    def step(self) -> int:
        return int(self.state.step)


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        """Start a new episode in ``seat`` with its own random stream; ``first`` is the first observation."""

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        """One primitive action for this step."""

    def info(self) -> dict[str, Any]:
        """What the trace shows of the step just acted (may be empty)."""

    def episode_stats(self) -> dict[str, Any]:
        """Per-episode statistics for the record (may be empty)."""

    async def aclose(self) -> None:
        """The episode is over: stop background work (most agents have none)."""


class ImmediateAgent:
    """Base for agents that answer at once from the state (scripted, RL, a recorded human):
    subclasses implement `policy`; `act`, `info` and `stats` follow the contract."""

    name: str = "agent"
    seat: int = 0

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        """Remember the seat (a stateless policy needs nothing else); stateful agents override."""
        self.seat = seat

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        return int(self.policy(obs.state, obs.engine))

    def policy(self, state: State, engine: EngineState) -> int:
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        return {}

    def provenance(self) -> dict[str, Any]:
        """What fixes this agent's play beyond its name (a trained partner: its parameters'
        sha256). An evaluation records it, so a resumed run cannot mix two versions of a partner."""
        return {}

    def episode_stats(self) -> dict[str, Any]:
        return {}

    async def aclose(self) -> None:
        return None


class PolicyAgent(ImmediateAgent):
    """A scripted agent from one function of (state, seat) -> action: a world's simple partners
    (``stay``, a walker) in one line each."""

    def __init__(self, name: str, policy: Callable[[State, int], int]) -> None:
        self.name, self._policy = name, policy

    def policy(self, state: State, engine: EngineState) -> int:
        return int(self._policy(state, self.seat))


class UnknownAgentError(ValueError):
    """An agent or partner name that does not exist; the message lists those that do."""


def seat_seeds(seed: int, seats: int, focal: int) -> list[int]:
    """Each seat's random stream: the focal seat gets ``seed``, the others ``seed + 1``, ``seed + 2``...
    in seat order (two players: the partner gets ``seed + 1``, as before N-agent episodes)."""
    seeds, offset = [], 1
    for seat in range(seats):
        if seat == focal:
            seeds.append(seed)
        else:
            seeds.append(seed + offset)
            offset += 1
    return seeds


def others(seat: int, seats: int) -> Sequence[int]:
    """The teammates' seats of ``seat``."""
    return [s for s in range(seats) if s != seat]


def seat_team(focal: Agent, seat: int, partners: Sequence[Agent]) -> list[Agent]:
    """A team with ``focal`` in ``seat`` and ``partners`` in the other seats, in order."""
    team = list(partners)
    team.insert(seat, focal)
    return team
