"""The values and small protocols a world and the agent core exchange.

This module sits below everything in proagent that reads a world: the agent core, the runner, the
metrics, the front ends and the worlds themselves import their shared vocabulary from here, and it
imports nothing of proagent. A world's typed symbolic state, its events, its skills and the skill
book that reads them, the controller that grounds a skill into primitive actions (EmCoop's Gamma),
a seat's senses (`Perceiver`) and what an agent knows of its teammates (`TeammateView`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

State = Any  # a domain's typed symbolic state; the core reads only ``.step`` and ``.horizon``
EngineState = Any  # a domain's raw JAX state (a pytree)


class DomainInputError(ValueError):
    """A bad layout, scenario or partner name for a domain; the message says what exists."""


class SkillParseError(ValueError):
    """The text does not name a known skill; ``raw`` keeps what the model said."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True, slots=True)
class Skill:
    """A high-level skill as the planner names it: ``name(arg)``."""

    name: str
    arg: str | int | None = None

    def __str__(self) -> str:
        return f"{self.name}({'' if self.arg is None else self.arg})"


WAIT = "wait"  # every domain has wait(n): the fallback when no plan passes the checks


def wait_skill(steps: int = 1) -> Skill:
    return Skill(WAIT, steps)


@runtime_checkable
class Event(Protocol):
    """Something that happened in one step; ``agent`` is the seat that did it, ``kind`` what it was
    (its ``str`` names it: the kit counts events per kind, and skills end on a kind)."""

    agent: int
    kind: Any

    def to_record(self) -> dict: ...


class Transition(Protocol):
    state: EngineState
    reward: Any
    shaped_reward: Any  # one value per seat
    done: Any


class DomainEnv(Protocol):
    """One layout/scenario of a world as a pure JAX environment (gymnax-like), plus decoding."""

    name: str  # the canonical layout/scenario name
    num_agents: int

    def reset(self, key: Any) -> EngineState: ...

    def step(self, key: Any, state: EngineState, actions: Any) -> Transition: ...

    @property
    def run_params(self) -> Any:
        """The per-run numbers (the horizon) ``step_with`` reads: an input of the compiled steps,
        so envs differing only in them share one program (`envs.jitted.JittedEntryPoints`)."""

    def step_with(self, params: Any, key: Any, state: EngineState, actions: Any) -> Transition:
        """``step`` under ``params`` (``step`` is ``step_with`` under the env's own ``run_params``)."""

    @property
    def jit_reset(self) -> Any: ...

    @property
    def jit_step(self) -> Any: ...

    @property
    def reset_batch(self) -> Any: ...

    def symbolic(self, state: EngineState) -> State: ...

    def events(self, before: State, actions: Sequence[int], after: State) -> list[Event]: ...


class SkillSpecView(Protocol):
    """What the planner's templates show of one skill."""

    signature: str
    description: str


class SkillBook(Protocol):
    """One definition per skill, read every way the agent needs it."""

    specs: dict[str, SkillSpecView]

    def all_skills(self) -> list[Skill]: ...

    def parse(self, text: str) -> Skill: ...

    def failures(self, state: State, seat: int, skill: Skill) -> list[str]:
        """Unmet preconditions, worded for the failure explainer (empty: the skill may run)."""

    def is_done(self, state: State, seat: int, skill: Skill, steps: int) -> bool: ...

    def is_progress(self, event: Event, seat: int) -> bool:
        """Whether ``event`` moved the team forward from ``seat``'s point of view (clears undo loops)."""

    def undo_state(self, state: State, seat: int) -> UndoState:
        """What an undo cycle leaves unchanged (for the loop guard)."""

    def skill_of_event(self, event: Event) -> Skill | None:
        """The skill an event completes (belief correction), or None."""


@dataclass(frozen=True)
class UndoState:
    """What an undo cycle leaves unchanged, for the loop guard (`proagent.agent.loops`).

    ``own`` is what the agent itself has (Overcooked: what it holds; CUBE and the lamps world: its
    cell): a loop needs it to change between two decisions and come back. ``shared`` is what else an
    undo restores (Overcooked: the objects on the counters); () where nothing else matters.
    """

    own: Hashable
    shared: Hashable = ()


class Perceiver(Protocol):
    """One seat's senses in a world with partial views (a world's optional ``perception``).

    Everything ProAgent shows its model passes through it: the grounded view, the state the
    Verificator and the skill judgement check (preconditions are beliefs: "the counter I last saw at
    step 41 had room"), and the events that feed belief correction (a teammate's skill seen, not
    one done out of view). With a full view all three are the truth.
    """

    def observe(self, state: State, events: Sequence[Event]) -> Any:
        """The view of ``state`` (reached by ``events``) the prompt is grounded on; updates memory."""

    def believed_state(self) -> State:
        """The last observed state as this seat believes it (out-of-view parts from memory)."""

    def witnessed(self) -> Sequence[Event]:
        """The events of the last observed step that this seat saw."""


class Controller(Protocol):
    """Grounds a skill into one primitive action per step (Gamma(skill, state))."""

    def act(self, state: State, skill: Skill) -> int: ...


class InterdependenceCollector(Protocol):
    """Fed each step of a running episode; summarises its interdependence at the end."""

    def add(self, step: int, actions: Sequence[int], events: Sequence[Event]) -> None: ...

    def result(self) -> Any: ...


@dataclass(frozen=True)
class TeammateView:
    """What an agent knows of one teammate beyond the state: its last completed skill and action."""

    seat: int
    last_skill: str | None
    last_action: str | None
