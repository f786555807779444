"""A person in a seat, choosing skills by typing them: the text front end of `proagent human`.

The person is an agent like any other (`proagent.contract.Agent`), so the episode, its trace and
its record are the ordinary ones. They decide where ProAgent would: when their last skill ended
and there is something to do (some skill other than ``wait`` passes its checks; otherwise they
wait a step without being asked, as in a turn-based game off turn). What they see is the world's
view of *their* seat: its perceiver's belief grounded by the world (`Domain.ground`, the facts an
LLM agent in that seat is shown) and rendered by ``prompts/<world>/human/view.j2``, never the full
state. What they type is untrusted: cut to a bound, parsed by the world's skill book and checked
against the same preconditions as the agent's Verificator; a refusal is one line and they type
again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import jinja2

from proagent.agent.prompts import PromptSetError
from proagent.contract import Observation
from proagent.llm.sanitize import clip, excerpt
from proagent.world.interface import Domain
from proagent.world.types import WAIT, DomainEnv, Event, Skill, SkillParseError, State, wait_skill

VIEW_TEMPLATE = "human/view.j2"
INPUT_MAX_CHARS = 200  # a skill call is a few dozen characters
SHOWN_SKILLS = 40  # "possible now" lists at most this many, then a count


class PersonLeft(Exception):
    """The person closed the input (end of file, Ctrl+D) before the game ended."""


class Person(Protocol):
    """Where the person reads and types: a terminal, or a scripted person in tests."""

    def show(self, view: str, facts: dict[str, Any]) -> None:
        """The seat's view (``facts``: what it was rendered from, for scripted people only)."""

    def say(self, line: str) -> None:
        """One line: why the last input was refused."""

    def ask(self) -> str | None:
        """The next line typed; None when the input is closed."""


def has_view(domain: Domain) -> bool:
    """Whether ``domain`` can be played by a person in text (it has the view template)."""
    return (domain.prompts_root / VIEW_TEMPLATE).is_file()


def render_view(domain: Domain, facts: dict, skills: Sequence[str], legal: Sequence[str]) -> str:
    """The person's view: the world's template over the seat's grounded facts."""
    jinja = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(domain.prompts_root)), undefined=jinja2.StrictUndefined, autoescape=False
    )
    shown = list(legal[:SHOWN_SKILLS]) + (
        [f"... {len(legal) - SHOWN_SKILLS} more"] if len(legal) > SHOWN_SKILLS else []
    )
    try:
        return jinja.get_template(VIEW_TEMPLATE).render(facts=facts, skills=list(skills), legal=shown).strip()
    except jinja2.TemplateError as exc:
        raise PromptSetError(f"{domain.name} view template {VIEW_TEMPLATE}: {exc}") from exc


@dataclass
class PersonStats:
    inputs: int = 0  # lines typed
    refused: int = 0  # lines that named no skill or one that failed its checks
    decisions: int = 0  # skills accepted


class TypedPlayer:
    """A person's seat: asks them for a skill, checks it, and plays it through the world's controller."""

    name = "human"

    def __init__(self, domain: Domain, env: DomainEnv, person: Person) -> None:
        self.domain, self.env, self.person = domain, env, person
        self.seat, self.skill, self.steps = 0, None, 0
        self.stats = PersonStats()

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        if first is None:
            raise ValueError("TypedPlayer.reset needs the first observation (its skill book reads the state)")
        self.seat, self.skill, self.steps, self.stats = seat, None, 0, PersonStats()
        self.book = self.domain.skill_book(first.state)
        self.controller = self.domain.controller(self.book, seat, seed)
        perception = self.domain.capabilities.perception
        self.perceiver = perception.perceiver(self.env, seat) if perception is not None else None
        self.view = self.perceiver.observe(first.state, ()) if self.perceiver is not None else first.state

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        self.view = self.perceiver.observe(obs.state, events) if self.perceiver is not None else obs.state
        believed = self.perceiver.believed_state() if self.perceiver is not None else obs.state
        if self.skill is not None and (
            self.book.is_done(believed, self.seat, self.skill, self.steps)
            or self.book.failures(believed, self.seat, self.skill)
        ):
            self.skill = None
        if self.skill is None:
            self.skill, self.steps = self._choose(believed, obs.score), 0
        self.steps += 1
        return int(self.controller.act(believed, self.skill))

    def _choose(self, believed: State, score: float) -> Skill:
        """Ask until a skill passes its checks; a step's wait, unasked, when nothing else can."""
        legal = [s for s in self.book.all_skills() if s.name != WAIT and not self.book.failures(believed, self.seat, s)]
        if not legal:
            return wait_skill(1)
        facts = self.domain.ground(self.view, self.seat, self.book, [], score)
        self.person.show(render_view(self.domain, facts, self.book.signatures(), [str(s) for s in legal]), facts)
        while True:
            line = self.person.ask()
            if line is None:
                raise PersonLeft("the input was closed before the game ended")
            self.stats.inputs += 1
            problem, skill = self._read(clip(line.strip(), INPUT_MAX_CHARS) or "", believed)
            if skill is not None:
                self.stats.decisions += 1
                return skill
            self.stats.refused += 1
            self.person.say(problem)

    def _read(self, text: str, believed: State) -> tuple[str, Skill | None]:
        """The skill ``text`` names if it can be done now, else the one line that says why not."""
        if not text:
            return "type a skill, e.g. " + self.book.signatures()[0], None
        try:
            skill = self.book.parse(text)
        except SkillParseError as exc:
            return excerpt(f"not a skill: {exc}", 300), None
        if skill.name == WAIT:
            return "it is your move: choose a skill (you wait by yourself when there is nothing to do)", None
        failures = self.book.failures(believed, self.seat, skill)
        if failures:
            return excerpt(f"cannot {skill} now: {'; '.join(failures)}", 300), None
        return "", skill

    def info(self) -> dict[str, Any]:
        return {"skill": str(self.skill) if self.skill is not None else None}

    def episode_stats(self) -> dict[str, Any]:
        s = self.stats
        return {"human_inputs": s.inputs, "human_refused": s.refused, "human_decisions": s.decisions}

    async def aclose(self) -> None:
        return None


__all__ = ["Person", "PersonLeft", "TypedPlayer", "has_view", "render_view"]
