"""ProAgent under a token clock (`proagent.agent.clock`): each decision costs world steps.

A decision is made (and awaited: the count of steps it costs is known only from its tokens) on the
world of the step its skill ended; it lands ``Clock.steps_for(tokens)`` steps later. Until then the
agent's fallback acts (`ClockedProAgent`: idle, continue or scripted); partners act every step. On
landing its skill is judged against the world of that step, so a plan made stale by the delay fails
at once. Deterministic: the same answers give the same tokens and so the same steps.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from proagent.agent.clock import DecisionTiming
from proagent.agent.clocked import ClockedProAgent
from proagent.contract import Observation
from proagent.world.types import Event, Skill


@dataclass
class _Landing:
    skill: Skill
    timing: DecisionTiming


class TokenClockProAgent(ClockedProAgent):
    """A ProAgent whose decisions take world time (see the module docstring)."""

    _landing: _Landing | None = None

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self._landing = None

    @property
    def waiting(self) -> bool:
        return self._landing is not None

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        self._start_step(obs, events)
        landing = self._landing
        if landing is not None and obs.step >= landing.timing.lands:
            self._landing = None  # its decision was traced at the step it was made
            self._land(obs, landing.skill, landing.timing)
        self._judge(self._believed(obs.state))
        if self.skill is None and self._landing is None:
            landing = await self._decision(obs)
            self._traced(landing.timing)
            if landing.timing.lands <= obs.step:  # cheaper than one step: acted on at once, as in turns
                self._land(obs, landing.skill, landing.timing)
            else:
                self._landing = landing
        return self._action(obs)

    async def _decision(self, obs: Observation) -> _Landing:
        before_in, before_out = self.stats.prompt_tokens, self.stats.completion_tokens
        started = time.perf_counter()
        skill, _ = await self._decide(obs.state, obs.score)
        wall_s = time.perf_counter() - started
        tokens_in, tokens_out = self.stats.prompt_tokens - before_in, self.stats.completion_tokens - before_out
        lands = obs.step + self.clock.steps_for(tokens_in, tokens_out)
        timing = DecisionTiming(
            based_on=obs.step, lands=lands, tokens_in=tokens_in, tokens_out=tokens_out, wall_s=wall_s
        )
        return _Landing(skill, timing)
