"""What the token and seconds clocks share (`proagent.agent.clock`): the fallback while a decision
is under way, the landing of a decision, the trace's ``clock`` record and the episode's ledger.

`TokenClockProAgent` knows when a decision lands from its tokens; `BackgroundProAgent` (the seconds
clock, and `proagent human --mode realtime`) learns it when its background task finishes. Both then
call `_land`, act through `_action`, and trace through `_traced`, so their records are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proagent.agent.clock import Clock, ClockLedger, DecisionTiming
from proagent.agent.planner import PlanParseError
from proagent.agent.proagent import ProAgent
from proagent.contract import Observation
from proagent.world.types import Event, Skill, State


class ClockedProAgent(ProAgent):
    """A ProAgent whose decisions take world time; subclasses decide when a decision lands."""

    clock: Clock
    ledger: ClockLedger
    _timing: DecisionTiming | None = None  # the decision traced this step
    _stale: bool = False  # the running skill was decided on an earlier world than it started in
    _last: Skill | None = None  # the skill that ended last (``continue`` keeps executing it)
    _last_steps: int = 0
    _stand_in: Skill | None = None  # ``scripted``: the skill the world's scripted planner chose meanwhile
    _stand_in_steps: int = 0
    _acted_by: str | None = None  # this step: the skill the fallback executed

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self.clock = self.config.settled_clock()
        self.ledger = ClockLedger()
        self._timing, self._stale, self._acted_by = None, False, None
        self._last, self._last_steps, self._stand_in, self._stand_in_steps = None, 0, None, 0

    def _start_step(self, obs: Observation, events: Sequence[Event]) -> None:
        """A new step: the parent's start of step, and this step's clock fields cleared."""
        self.ledger.steps_played += 1
        self._begin_step(obs, events)
        self._timing, self._acted_by = None, None

    def _judge(self, state: State) -> None:
        """The parent's judgement of the running skill, remembering a skill that ended (``continue``)."""
        running, steps = self.skill, self.skill_steps
        self._judge_running_skill(state)
        if running is not None and self.skill is None:
            self._last, self._last_steps = running, steps

    def _land(self, obs: Observation, skill: Skill, timing: DecisionTiming) -> None:
        """A decision is acted on from this step: its skill replaces what the fallback ran."""
        self._adopt(obs.state, skill)
        self._stale = timing.lands > timing.based_on
        self._last, self._stand_in = None, None

    def _traced(self, timing: DecisionTiming) -> None:
        """The decision made (token clock) or landed (seconds clock) this step: into the trace and the ledger."""
        self._timing = timing
        self.ledger.decision_steps.append(timing.steps)

    def _action(self, obs: Observation) -> int:
        """The step's action: the running skill's (a stale one counted), else the fallback's."""
        if self.skill is not None:
            self.ledger.stale_steps += int(self._stale)
            return self.execute(obs)
        state = self._believed(obs.state)
        fallback = self.config.clock_fallback
        skill = (
            self._continued(state)
            if fallback == "continue"
            else self._scripted(obs, state)
            if fallback == "scripted"
            else None
        )
        if skill is None:
            self.ledger.idle_steps += 1
            return self.domain.idle_action
        self.ledger.fallback_steps += 1
        self._acted_by = str(skill)
        return int(self.controller.act(state, skill))

    def _runs_on(self, state: State, skill: Skill, steps: int) -> bool:
        """Whether ``skill`` can still run: the skill book finds it neither done nor failed."""
        return not self.book.is_done(state, self.seat, skill, steps) and not self.book.failures(state, self.seat, skill)

    def _continued(self, state: State) -> Skill | None:
        """``continue``: the skill that ended last while it can still run (a skill cut off by its
        step limit), then nothing: the action that completed a skill is not repeated, as it would
        often undo it (a second pick-up puts down what the first picked up)."""
        skill = self._last
        if skill is None or not self._runs_on(state, skill, self._last_steps):
            self._last = None
            return None
        self._last_steps += 1
        return skill

    def _scripted(self, obs: Observation, state: State) -> Skill | None:
        """``scripted``: the stand-in skill while it runs (within ``skill_timeout``), else a new one
        from the world's scripted planner; None (idle) when it offers none the preconditions allow."""
        skill = self._stand_in
        if (
            skill is None
            or self._stand_in_steps >= self.config.skill_timeout
            or not self._runs_on(state, skill, self._stand_in_steps)
        ):
            skill, self._stand_in_steps = self._scripted_choice(obs, state), 0
        self._stand_in = skill
        self._stand_in_steps += int(skill is not None)
        return skill

    def _scripted_choice(self, obs: Observation, state: State) -> Skill | None:
        """The world's scripted planner's answer to this seat's own grounding (the facts and memory a
        decision would show it), checked against the skill book's preconditions. No model call."""
        scripted = self.domain.capabilities.scripted
        if scripted is None:  # refused before any run (`proagent.builder.clock_problem`)
            raise ValueError(f"--clock-fallback scripted: the {self.domain.name} world ships no scripted planner")
        facts = self.domain.ground(self.view, self.seat, self.book, list(self.teammates.values()), obs.score)
        memory = self.memory.retrieve(self.config.memory_k, self.retrieval)
        try:
            plan = self.planner.parse(scripted.answer(self.planner.grounding(facts, memory, []))).plan
        except PlanParseError:
            return None
        return None if self.book.failures(state, self.seat, plan) else plan

    def info(self) -> dict[str, Any]:
        info = super().info()
        if self._timing is not None:
            info["clock"] = self._timing.record()
        if self.skill is None and self.waiting:
            info["thinking"] = True
        if self._acted_by is not None:
            info["fallback_skill"] = self._acted_by
        return info

    @property
    def waiting(self) -> bool:
        """A decision is under way (asked, not yet acted on)."""
        raise NotImplementedError

    def episode_stats(self) -> dict[str, Any]:
        """The parent's, plus the clock's (`ClockLedger.stats`)."""
        return {**super().episode_stats(), **self.ledger.stats()}
