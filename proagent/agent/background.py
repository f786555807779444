"""ProAgent for real-time play: the LLM decides in a background task, the game never waits.

In `proagent play` the episode awaits every decision; with a person at the keyboard the kitchen
must keep moving at the tick rate whatever the model's latency. This subclass changes only *when*
a decision is awaited: when the running skill ends it starts the Planner/Verificator on a snapshot
of the kitchen as a task on the running event loop and keeps answering every step (STAY while it
has no skill); the next step after the task finishes adopts its skill and judges it against the
kitchen of *that* step, so a plan made stale by the delay fails at once and a new one is asked for.
Belief correction still observes every step. Everything else (prompts, verification, memory,
stats, traces) is the parent's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from proagent.agent.proagent import ProAgent
from proagent.agent.records import Decision
from proagent.contract import Observation
from proagent.world.types import Event, Skill, State


class BackgroundProAgent(ProAgent):
    """A ProAgent whose ``act`` never waits for the LLM (see the module docstring)."""

    _pending: asyncio.Task[tuple[Skill, Decision | None]] | None = None
    _pending_started: int | None = None

    @property
    def thinking(self) -> bool:
        """A decision is being made in the background."""
        return self._pending is not None

    @property
    def thinking_since(self) -> int | None:
        """The step whose kitchen the pending decision was asked about."""
        return self._pending_started if self._pending is not None else None

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        self.last_decision, self.last_belief = None, None
        self._perceive(obs, events)
        if self._pending is not None and self._pending.done():
            skill, decision = self._pending.result()  # re-raises an LLM failure here, as play would
            self._pending = None
            self.last_decision = decision
            self._adopt(obs.state, skill)
        self._judge_running_skill(self._believed(obs.state))
        if self.skill is None and self._pending is None:
            self._pending_started = obs.step
            self._pending = asyncio.get_running_loop().create_task(self._think(obs.state, obs.score))
        await asyncio.sleep(0)  # let a just-started decision send its request before the step goes on
        if self.skill is None:
            return self.domain.idle_action
        self.skill_steps += 1
        return int(self.controller.act(obs.state, self.skill))

    def info(self) -> dict[str, Any]:
        return {**super().info(), **({"thinking": True} if self.thinking else {})}

    async def _think(self, state: State, score: float) -> tuple[Skill, Decision | None]:
        skill, _ = await self._decide(state, score)  # no conversation here: the message is always None
        return skill, self.last_decision  # _decide sets it last, with no await in between

    async def aclose(self) -> None:
        """Cancel a pending decision (the episode is over) and wait until the cancellation has run
        through our coroutines. A coroutine the LLM client made inside a worker thread can still be
        dropped unawaited (litellm warns about it); the game's files are complete either way."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
