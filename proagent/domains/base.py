"""The seam between the agent core and a cooperative world: what a domain provides.

The core (agent, runner, eval, llm, the generic parts of interdependence and web) knows a world
only through these types. A domain bundles its JAX environment, the typed symbolic state the
agents read, its events, its skill book (skill definitions as data: checks, targets, done-tests,
the event -> skill inverse), the controller that grounds a skill into primitive actions (EmCoop's
Gamma), the facts its prompt templates read, its `prompts/` and `knowledge/` folders, its partners,
its per-episode metrics and its renderers. Overcooked is the first domain
(`proagent.domains.overcooked`); `docs/domains.md` shows how to add another.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from proagent.world.rl_spec import RLSpec

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
    """Something that happened in one step; ``agent`` is the seat that did it."""

    agent: int

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


class UndoState(Hashable, Protocol):
    held: Hashable  # what the agent holds: a loop needs a change of hands in between


class Perceiver(Protocol):
    """One seat's senses in a world with partial views (a domain's optional ``perceiver(env, seat)``).

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


class Domain(Protocol):
    """A cooperative world behind one interface; the core depends on this and nothing else of it."""

    name: str
    prompts_root: Path  # prompt sets (prompts/<set>/) for this world
    knowledge_root: Path  # task.md, rules.md, layouts/<name>.toml (notes, roles, demos)
    idle_action: int  # the primitive action that does nothing (an agent still thinking plays it)
    useful_events: tuple[str, ...]  # event kinds that are an agent's own contribution (play's summary)
    metric_names: tuple[str, ...]  # the keys of episode_metrics (report columns, ablation metrics)

    @property
    def rl(self) -> RLSpec | None:
        """The world's RL spec (``proagent train --domain <name>``); None where none is provided."""

    def layout_names(self) -> list[str]:
        """The named layouts/scenarios, for listings and error messages."""

    def owns(self, spec: str) -> bool:
        """Whether ``spec`` (a layout name or file) belongs to this domain."""

    def make_env(self, spec: str, horizon: int) -> DomainEnv:
        """The environment of one layout; raises DomainInputError with what exists."""

    def skill_book(self, first: State) -> SkillBook: ...

    def controller(self, book: SkillBook, seat: int, seed: int) -> Controller: ...

    def ground(self, state: State, seat: int, book: SkillBook, teammates: Sequence[TeammateView], score: float) -> dict:
        """The facts one agent's prompt may hold, as plain JSON-able data for the templates."""

    def knowledge_facts(self, env: DomainEnv) -> dict:
        """The env's real settings (e.g. cook time, reward) for the knowledge texts to read."""

    def memory_summary(self, facts: dict) -> str:
        """One line of an agent's memory: its situation at a decision, from its own facts."""

    def action_name(self, action: int) -> str: ...

    @property
    def action_names(self) -> tuple[str, ...]:
        """Every primitive action's name, by action id (the human page's keys send them)."""

    def page_facts(self, env: DomainEnv, first: State) -> dict:
        """What the human page needs to draw this layout (its static parts and settings)."""

    def state_record(self, state: State) -> dict:
        """The state as JSON-able data for the web pages' drawing."""

    def render_text(self, state: State) -> str:
        """The state as text (the trace's ``state`` field)."""

    def frame_extras(self, env: DomainEnv, state: State, after: State, done: bool) -> dict:
        """What a replay needs to draw a step exactly (structured state, terrain on step 0, final state)."""

    def save_gif(self, env: DomainEnv, states: Sequence[EngineState], path: Path) -> None:
        """The episode's engine states as an animated picture (play writes episode.gif)."""

    def count_events(self, events: Sequence[Event], num_agents: int) -> dict[str, list[int]]:
        """Event counts per kind, per seat (the record's ``events``)."""

    def episode_metrics(self, events: Sequence[Event]) -> dict[str, float]:
        """The world's own per-episode outcomes (the record's ``domain_metrics``)."""

    def interdependence_collector(self, first: State) -> InterdependenceCollector | None:
        """Collects an episode's steps for the interdependence metrics (None: the domain has no
        STRIPS model, so records carry no interdependence fields)."""

    def interdependence_model(self, layout: str) -> Any:
        """The interdependence model (proagent.interdependence.model) of a layout, for re-analysing
        a run folder; None when the domain has none."""

    def skill_of_event(self, event: Event) -> Skill | None:
        """The skill book's event -> skill inverse without a state (re-scoring intentions from a trace)."""

    def partner_names(self, env: DomainEnv) -> list[str]:
        """The non-LLM agents (scripted, RL, human proxies) this layout can be played with."""

    def make_partner(self, name: str, env: DomainEnv) -> Any:
        """An agent (proagent.contract.Agent) by name; raises proagent.contract.UnknownAgentError
        listing what exists, or ValueError when the agent cannot play ``env`` (no checkpoint for it)."""
