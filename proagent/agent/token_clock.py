"""ProAgent under a token clock (`proagent.agent.clock`): each decision costs world steps.

A decision is made (and awaited: the count of steps it costs is known only from its tokens) on the
world of the step its skill ended; it lands ``Clock.steps_for(tokens)`` steps later. Until then the
agent plays the idle action; partners act every step. On landing its skill is judged against the
world of that step, so a plan made stale by the delay fails at once. Deterministic: the same
answers give the same tokens and so the same steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proagent.agent.clock import Clock
from proagent.agent.proagent import ProAgent
from proagent.contract import Observation
from proagent.world.types import Event, Skill


@dataclass
class _Landing:
    skill: Skill
    based_on: int  # the step whose world the decision read
    lands: int  # the step it is acted on
    tokens_in: int
    tokens_out: int


class TokenClockProAgent(ProAgent):
    """A ProAgent whose decisions take world time (see the module docstring)."""

    clock: Clock
    _landing: _Landing | None = None
    _decided: _Landing | None = None  # the decision made this step (the trace shows when it lands)
    _stale: bool = False  # the running skill was decided on an earlier world than it started in
    idle_steps: int = 0
    stale_steps: int = 0
    steps_played: int = 0
    decision_steps: list[int]

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self.clock = self.config.settled_clock()
        self._landing, self._stale = None, False
        self.idle_steps, self.stale_steps, self.steps_played = 0, 0, 0
        self.decision_steps = []

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        self.steps_played += 1
        self._begin_step(obs, events)
        self._decided = None
        landing = self._landing
        if landing is not None and obs.step >= landing.lands:
            self._landing = None  # its decision was traced at the step it was made
            self._adopt(obs.state, landing.skill)
            self._stale = landing.lands > landing.based_on
        self._judge_running_skill(self._believed(obs.state))
        if self.skill is None and self._landing is None:
            self._landing = self._decided = await self._decision(obs)
            if self._landing.lands <= obs.step:  # cheaper than one step: acted on at once, as in turns
                return await self.act_landed(obs)
        if self.skill is None:
            self.idle_steps += 1
            return self.domain.idle_action
        self.stale_steps += int(self._stale)
        return self.execute(obs)

    async def act_landed(self, obs: Observation) -> int:
        """A decision that cost less than one step: acted on in the step it was made."""
        landing, self._landing = self._landing, None
        assert landing is not None
        self._adopt(obs.state, landing.skill)
        self._stale = False
        return self.execute(obs)

    async def _decision(self, obs: Observation) -> _Landing:
        before_in, before_out = self.stats.prompt_tokens, self.stats.completion_tokens
        skill, _ = await self._decide(obs.state, obs.score)
        tokens_in, tokens_out = self.stats.prompt_tokens - before_in, self.stats.completion_tokens - before_out
        steps = self.clock.steps_for(tokens_in, tokens_out)
        self.decision_steps.append(steps)
        return _Landing(skill, obs.step, obs.step + steps, tokens_in, tokens_out)

    def info(self) -> dict[str, Any]:
        info = super().info()
        landing = self._decided
        if landing is not None:
            info["clock"] = {
                "based_on": landing.based_on, "lands": landing.lands, "steps": landing.lands - landing.based_on,
                "tokens_in": landing.tokens_in, "tokens_out": landing.tokens_out,
            }  # fmt: skip
        if self.skill is None and self._landing is not None:
            info["thinking"] = True
        return info

    def episode_stats(self) -> dict[str, Any]:
        """The parent's, plus the clock's: idle and stale steps, decisions per 100 steps, mean steps a decision took."""
        steps = max(1, self.steps_played)
        return {
            **super().episode_stats(),
            "clock_idle_steps": self.idle_steps,
            "clock_stale_steps": self.stale_steps,
            "decisions_per_100_steps": 100 * len(self.decision_steps) / steps,
            "decision_steps_mean": sum(self.decision_steps) / len(self.decision_steps) if self.decision_steps else 0.0,
        }
