"""A world's optional capabilities: each one a typed record of callables, ``None`` where it lacks it.

The agent core needs the required members of `proagent.world.interface.Domain` to play a world.
Everything else a world *may* offer is listed here, in one place, so a new world reads one page to
see what it can add and the core never probes a world for a member it might have:

- ``rendering``: how the world draws itself (the trace's text, the web pages' data, the GIF).
  Without it runs write no picture and the human page and replay cannot show the world.
- ``perception``: per-seat senses for partial views (Observation honesty: what a seat may know).
  Without it every seat sees the whole state.
- ``interdependence``: a STRIPS model of the world's tasks for the interdependence metrics.
- ``process``: a collector of cooperation-process metrics (EmCoop's constraints) per episode.
- ``teams``: the same layout played by another number of agents (``--agents``).
- ``settings``: ``--env KEY=VALUE`` overrides of the env's rules, and what a run records of them.
- ``plans``: what a plan works on (MAEIL's plan coherence across agents).
- ``rl``: what the one RL program needs to train partners for the world (`proagent train`).
- ``belief_probes``: what the agent can be asked it believes of hidden facts, and the truth to score
  it against (`proagent.world.probes`; ``--belief-probe``).
- ``scripted``: the world's scripted planner (`--llm scripted`): code that answers the agent's prompts
  from the typed grounding sent beside them, a model of the product that is no language model.
- ``feedback``: environment feedback (EmCoop's RQ3): a snapshot of the team's constraint and
  dependency state, read from the env's truth, that MAEIL's ``--feedback`` attaches to the leader's
  messages.
- ``plan_effects``: COOP²-Repair's estimate of which cooperative requirements the committed plans
  will meet, and the realised outcomes it is scored against (`proagent.world.plan_effects`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from proagent.world.plan_effects import PlanEffects
from proagent.world.probes import BeliefProbes
from proagent.world.rl_spec import RLSpec
from proagent.world.types import DomainEnv, EngineState, Event, InterdependenceCollector, Perceiver, State


@dataclass(frozen=True)
class Rendering:
    """How a world draws itself."""

    text: Callable[[State], str]  # the state as text (the trace's ``state``, `proagent layouts`)
    record: Callable[[State], dict]  # the state as JSON-able data (the web pages draw it)
    page_facts: Callable[[DomainEnv, State], dict]  # a layout's static parts and settings (human page)
    frame_extras: Callable[[DomainEnv, State, State, bool], dict]  # what a replay needs per step
    # The episode's picture: RGB frames of a run of engine states, one per state. A GIF recorder
    # (`proagent.world.kit.pictures.GifRecorder`) calls it on chunks as the episode plays, so memory
    # holds small frames, not every engine state.
    frames: Callable[[DomainEnv, Sequence[EngineState]], Iterable[np.ndarray]]
    ms_per_frame: int


@dataclass(frozen=True)
class Perception:
    """Partial views: one `Perceiver` per seat and env."""

    perceiver: Callable[[DomainEnv, int], Perceiver]


@dataclass(frozen=True)
class Interdependence:
    """The interdependence metrics' STRIPS model of the world."""

    collector: Callable[[State], InterdependenceCollector]  # fed each step of a running episode
    model: Callable[[str], Any]  # a layout's model, for re-analysing a run folder (`proagent analyze`)


@dataclass(frozen=True)
class ProcessMetrics:
    """Cooperation-process metrics collected over an episode (the record's ``process``)."""

    collector: Callable[[State], InterdependenceCollector]
    metric_names: tuple[str, ...]


@dataclass(frozen=True)
class Feedback:
    """Environment feedback: the team's constraint and dependency snapshot as one line of text.

    It is the *environment's* truth (who is where, who holds which tool, what the next task still
    lacks), not what any agent perceives: a world with partial views still reports the whole state
    here, and MAEIL labels it as environment feedback wherever it attaches it (``--feedback``)."""

    snapshot: Callable[[State], str]  # the full state -> one line


@dataclass(frozen=True)
class TeamSizing:
    """A layout played by another number of agents: ``(layout, horizon, num_agents) -> env``."""

    make_team_env: Callable[[str, int, int], DomainEnv]


@dataclass(frozen=True)
class EnvSettings:
    """``--env KEY=VALUE`` rules over a layout's defaults, and what a run's config records of them."""

    make_env_with: Callable[[str, int, Mapping[str, str]], DomainEnv]  # DomainInputError on a bad one
    describe: Callable[[DomainEnv], dict]


@dataclass(frozen=True)
class PlanTargets:
    """What a plan (``push(2)``) works on (``"block 2"``), or None; MAEIL's plan coherence."""

    target: Callable[[str], str | None]


@dataclass(frozen=True)
class ScriptedPlanning:
    """The world's scripted planner, which `--llm scripted` plays behind the model contract.

    ``answer`` takes a ``proagent.llm.types.Grounding`` (typed here as Any: this layer imports
    nothing above it) and returns the answer's text in the format the grounding asks for. It reads
    the seat's grounded facts, memory, feedback and conversation, never the prompt's wording.
    ``source`` names the module that defines it, for the run's records."""

    answer: Callable[[Any], str]
    source: str


@dataclass(frozen=True)
class Capabilities:
    """Every optional capability of a world; each defaults to None (the world lacks it)."""

    rendering: Rendering | None = None
    perception: Perception | None = None
    interdependence: Interdependence | None = None
    process: ProcessMetrics | None = None
    teams: TeamSizing | None = None
    settings: EnvSettings | None = None
    plans: PlanTargets | None = None
    rl: RLSpec | None = None  # what `proagent train` needs (`proagent.world.rl_spec`)
    belief_probes: BeliefProbes | None = None  # `proagent.world.probes`
    feedback: Feedback | None = None  # MAEIL's ``--feedback`` (environment feedback in the leader's messages)
    plan_effects: PlanEffects | None = None  # COOP²-Repair's estimator (``--repair``)
    scripted: ScriptedPlanning | None = None  # `--llm scripted`: the world's scripted planner

    def names(self) -> list[str]:
        """The capabilities present, for listings (`proagent layouts --domain W`)."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]


__all__ = [
    "BeliefProbes",
    "Capabilities",
    "EnvSettings",
    "Event",
    "Feedback",
    "Interdependence",
    "Perception",
    "PlanEffects",
    "PlanTargets",
    "ProcessMetrics",
    "Rendering",
    "ScriptedPlanning",
    "TeamSizing",
]
