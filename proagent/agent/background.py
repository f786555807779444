"""ProAgent for real-time play: the LLM decides in a background task, the game never waits.

In `proagent play` the episode awaits every decision; under ``--clock seconds:S`` (and with a person
at the keyboard, `proagent human --mode realtime`) the world must keep moving at its tick whatever
the model's latency. This subclass changes only *when* a decision is awaited: when the running skill
ends it starts the Planner/Verificator on a snapshot of the world as a task on the running event
loop (no thread) and keeps answering every step with its fallback (`ClockedProAgent`: idle by
default); once the task has finished, its skill is acted on from that step (the very step it was
asked in, if it finished before the step's action was due) and judged against the world of *that*
step, so a plan made stale by the delay fails at once and a new one is asked for. Belief correction
still observes every step. Each decision is traced when it lands, with the steps and wall seconds it
took (`DecisionTiming`). Everything else (prompts, verification, memory, stats) is the parent's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proagent.agent.clock import DecisionTiming
from proagent.agent.clocked import ClockedProAgent
from proagent.agent.records import Decision
from proagent.contract import Observation
from proagent.world.types import Event, Skill, State


@dataclass(frozen=True)
class _Thought:
    """What a background decision returns: its skill and record, and what it cost."""

    skill: Skill
    decision: Decision | None
    tokens_in: int
    tokens_out: int
    wall_s: float


class BackgroundProAgent(ClockedProAgent):
    """A ProAgent whose ``act`` never waits for the LLM (see the module docstring)."""

    _pending: asyncio.Task[_Thought] | None = None
    _pending_started: int | None = None
    _thought: Decision | None = None  # the background decision's record, kept from the moment it is made
    _landed: Decision | None = None  # the decision acted on from this step (the trace's ``decision``)

    @property
    def thinking(self) -> bool:
        """A decision is being made in the background."""
        return self._pending is not None

    @property
    def waiting(self) -> bool:
        return self._pending is not None

    @property
    def thinking_since(self) -> int | None:
        """The step whose world the pending decision was asked about."""
        return self._pending_started if self._pending is not None else None

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        self._start_step(obs, events)
        self._landed = None
        self._land_if_done(obs)
        self._judge(self._believed(obs.state))
        if self.skill is None and self._pending is None:
            self._pending_started = obs.step
            self._pending = asyncio.get_running_loop().create_task(self._think(obs.state, obs.score))
        await asyncio.sleep(0)  # let the decision send its request (or finish) before the step goes on
        if self.skill is None:
            self._land_if_done(obs)
        return self._action(obs)

    def _land_if_done(self, obs: Observation) -> None:
        """Act on the pending decision from this step if its task has finished."""
        if self._pending is None or not self._pending.done():
            return
        thought = self._pending.result()  # re-raises an LLM failure here, as play would
        self._pending = None
        self.last_decision = self._landed = thought.decision
        based_on = self._pending_started if self._pending_started is not None else obs.step
        timing = DecisionTiming(
            based_on=based_on,
            lands=obs.step,
            tokens_in=thought.tokens_in,
            tokens_out=thought.tokens_out,
            wall_s=thought.wall_s,
        )
        self._traced(timing)
        self._land(obs, thought.skill, timing)

    async def _think(self, state: State, score: float) -> _Thought:
        before_in, before_out = self.stats.prompt_tokens, self.stats.completion_tokens
        started = time.perf_counter()
        self._thought = None
        skill, _ = await self._decide(state, score)  # no conversation here: the message is always None
        decision = self._thought
        tokens_in, tokens_out = self.stats.prompt_tokens - before_in, self.stats.completion_tokens - before_out
        return _Thought(skill, decision, tokens_in, tokens_out, time.perf_counter() - started)

    async def _probe(self, state: State, facts: dict) -> None:
        """`_decide` has just recorded its decision: keep it here, as the probe's await lets the
        game's next step begin, which clears ``last_decision``."""
        self._thought = self.last_decision
        await super()._probe(state, facts)

    def info(self) -> dict[str, Any]:
        """The parent's, with the decision shown at the step it lands (the background task records
        it on the agent whenever it finishes, which may be in the middle of another step)."""
        return {**super().info(), "decision": self._landed.model_dump() if self._landed is not None else None}

    async def aclose(self) -> None:
        """Cancel a pending decision (the episode is over) and wait until the cancellation has run
        through our coroutines. A coroutine the LLM client made inside a worker thread can still be
        dropped unawaited (litellm warns about it); the game's files are complete either way."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
