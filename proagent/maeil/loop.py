"""The cognitive phase between two environment steps, and the record of every stage, message and plan.

Per environment step: deliberating agents read the step's events and judge their plans (a plan
that ended puts its agent in R; one still running puts it in W, ready); the topology starts the
conversation; then cognitive rounds run until every agent is ready: in each round the agents the
topology names deliberate side by side (their model calls run concurrently), commit plans (→ W)
and send messages, which land in the recipients' buffers and may interrupt them (X/W → I). The
environment advances once all are in W; agents without a cognitive layer (scripted, RL, a person)
are always ready and act through the plain contract.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from proagent.contract import Agent, Observation
from proagent.maeil.metrics import CognitiveLog
from proagent.maeil.repair import REPAIR_SENDER, RepairLedger, committed, failing, guidance_for
from proagent.maeil.talk import SPOKEN_KINDS, Deliberation, Deliberative, Message, Stage, Talk
from proagent.maeil.topology import Phase, TopologyConfig, make_topology
from proagent.world.plan_effects import PlanEffects
from proagent.world.types import Event, State


class Maeil:
    """One episode's MAEIL over ``team``; `step_actions` replaces the runner's per-seat `act` calls."""

    def __init__(
        self,
        config: TopologyConfig,
        team: Sequence[Agent],
        plan_target: Callable[[str], str | None] | None = None,
        feedback: Callable[[State], str] | None = None,
        effects: PlanEffects | None = None,
    ) -> None:
        """``plan_target`` (the domain's, optional) names what a plan works on (a block, a pot):
        plan coherence is how often the committed plans share one. ``feedback`` (the world's
        snapshot, required when ``config.feedback``) is attached to the leader's spoken messages.
        ``effects`` (the world's plan-effect estimator, required unless ``config.repair`` is off)
        runs COOP²-Repair after the agents commit and before they act."""
        if config.feedback and feedback is None:
            raise ValueError("feedback: this world gives no environment feedback snapshot")
        if config.repair != "off" and effects is None:
            raise ValueError("repair: this world gives no plan-effect estimate")
        self.effects = effects if config.repair != "off" else None
        self.ledger = RepairLedger(window=config.repair_window)
        self.config = config
        self.feedback = feedback if config.feedback else None
        self.truth: State | None = None  # the step's whole state, for the feedback snapshot
        self.plan_target = plan_target
        self.coherence: list[float] = []
        self.team = team
        self.talkers = tuple(s for s, agent in enumerate(team) if isinstance(agent, Deliberative))
        self.topology = make_topology(config, self.talkers)
        self.log = CognitiveLog(len(team), self.talkers)
        self.inbox: dict[int, list[Message]] = {s: [] for s in range(len(team))}
        self.plans: dict[int, str | None] = {s: None for s in self.talkers}

    async def step_actions(
        self, observations: Sequence[Observation], events: Sequence[Event], truth: State | None = None
    ) -> tuple[int, ...]:
        """The cognitive phase before this step, then every seat's primitive action. ``truth`` is the
        world's whole state (the feedback snapshot reads it; default: seat 0's observed state)."""
        started = time.perf_counter()
        self.truth = truth if truth is not None else observations[0].state
        t_env = observations[0].state.step
        phase = Phase(self.talkers, t_env, stage={s: Stage.WAIT for s in range(len(self.team))})
        needing = [s for s in self.talkers if self._deliberator(s).prepare(observations[s], events)]
        for s in needing:
            self.plans[s] = None
        for s in self.talkers:
            self.log.enter(s, Stage.REASON if s in needing else Stage.WAIT, phase)
            phase.stage[s] = self.log.stage[s]
        self._deliver(self.topology.begin(phase, needing), phase)
        rounds = 0
        while rounds < self.config.max_rounds:
            thinkers = self._resume_unprompted(phase)
            if not thinkers:
                break
            rounds += 1
            phase.t_cog = self.log.tick()
            results = await asyncio.gather(*(self._think(s, observations[s], phase) for s in thinkers))
            outgoing = [m for s, result in zip(thinkers, results) for m in self.topology.messages(s, result, phase)]
            self._deliver([self._with_feedback(m) for m in outgoing], phase)
        await self._force_ready(observations, phase)
        if self.effects is not None and sum(phase.thoughts.values()):
            await self._repair(observations, phase)  # COOP²'s check runs when plans were committed
        self.log.phase_done(rounds, time.perf_counter() - started)
        self._measure_coherence()
        actions = []
        for seat, agent in enumerate(self.team):
            if seat in self.talkers:
                self.log.enter(seat, Stage.EXECUTE, phase)
                actions.append(int(self._deliberator(seat).execute(observations[seat])))
            else:
                self.inbox[seat].clear()  # no cognitive layer: nothing reads it
                actions.append(int(await agent.act(observations[seat], events)))
        return tuple(actions)

    def metrics(self) -> dict[str, float]:
        """The episode's process metrics (`CognitiveLog.metrics`) and plan coherence: per step, the
        share of committed plans (those with a target) that work on the most common target; with
        repair, its counts and the estimator's precision and recall (`RepairLedger.metrics`)."""
        coherence = sum(self.coherence) / len(self.coherence) if self.coherence else 0.0
        if self.effects is not None:
            self.ledger.close()
        repair = self.ledger.metrics() if self.effects is not None else {}
        return {**self.log.metrics(), "plan_coherence": coherence, **repair}

    def observe_step(self, before: State, actions: Sequence[int], after: State) -> None:
        """After the environment stepped: score the pending predictions the step's attempts resolve."""
        if self.effects is None:
            return
        scored = self.ledger.realised(before.step, self.effects.realised(before, actions, after))
        if scored:
            self.log.records.append({"kind": "repair_scored", "t_env": before.step, "requirements": scored})

    async def _repair(self, observations: Sequence[Observation], phase: Phase) -> None:
        """COOP²-Repair's check: predict the committed plans' requirements; with repair on, send each
        agent a predicted failure involves one targeted message naming it, let those agents
        deliberate once more (no new messages: ``closing``), and predict again. The final
        predictions go to the ledger, which scores them against the attempts that follow."""
        assert self.effects is not None and self.truth is not None
        predicted = list(self.effects.predict(self.truth, committed(self.plans)))
        failures = failing(predicted, self.talkers)
        self.ledger.counts["repair_checks"] += 1
        self.ledger.counts["predicted_failures"] += len([r for r in predicted if not r.satisfied])
        record = {"kind": "repair_check", "t_env": phase.t_env, "predicted": [r.to_record() for r in predicted]}
        self.log.records.append(record)
        if self.config.repair == "on" and failures:
            targets = sorted({s for r in failures for s in r.seats if s in self.talkers})
            self.ledger.counts["repairs_triggered"] += 1
            self.ledger.counts["repair_messages"] += len(targets)
            self.ledger.counts["repair_calls"] += len(targets)
            before = {s: self.plans[s] for s in targets}
            for seat in targets:
                text = guidance_for(seat, failures)
                message = Message(REPAIR_SENDER, (seat,), text, "repair", phase.t_cog, phase.t_env)
                self.log.message(message)
                self.inbox[seat].append(message)
                self.log.enter(seat, Stage.INTERRUPT, phase, cause=REPAIR_SENDER)
                phase.stage[seat] = Stage.INTERRUPT
            phase.closing = True
            phase.t_cog = self.log.tick()
            await asyncio.gather(*(self._think(s, observations[s], phase) for s in targets))
            self.ledger.counts["repair_revisions"] += sum(1 for s in targets if self.plans[s] != before[s])
            predicted = list(self.effects.predict(self.truth, committed(self.plans)))
            record["revised"] = [r.to_record() for r in predicted]
        self.ledger.predicted(phase.t_env, predicted)

    def _measure_coherence(self) -> None:
        if self.plan_target is None:
            return
        targets = [t for t in (self.plan_target(p) for p in self.plans.values() if p) if t is not None]
        if len(targets) >= 2:
            self.coherence.append(max(targets.count(t) for t in set(targets)) / len(targets))

    def _with_feedback(self, message: Message) -> Message:
        """The leader's spoken message with the world's snapshot attached (``--feedback``)."""
        if (
            self.feedback is None
            or self.truth is None
            or message.kind not in SPOKEN_KINDS
            or message.sender != self.topology.feedback_seat()
        ):
            return message
        return replace(message, feedback=self.feedback(self.truth))

    def _deliberator(self, seat: int) -> Deliberative:
        agent = self.team[seat]
        assert isinstance(agent, Deliberative)
        return agent

    def _resume_unprompted(self, phase: Phase) -> list[int]:
        """Interrupted agents the topology sends back to their plan without a model call (a leader
        reading acknowledgements) are resumed here; the rest of the round's thinkers are returned."""
        for seat in phase.needing():
            if phase.stage[seat] == Stage.INTERRUPT and self.topology.resumes_unprompted(seat, self.inbox[seat]):
                self.log.read(seat, self.inbox[seat], phase)
                self.inbox[seat].clear()
                self.log.plan(seat, self.plans[seat] or "", "resumed", phase)
                self._ready(seat, phase)
        return self.topology.thinkers(phase)

    async def _think(self, seat: int, obs: Observation, phase: Phase) -> Deliberation:
        interrupted = phase.stage[seat] == Stage.INTERRUPT
        unread = tuple(self.inbox[seat])
        self.inbox[seat].clear()
        self.log.read(seat, unread, phase)
        talk = Talk(
            topology=self.topology.name,
            role=self.topology.role(seat),
            inbox=unread,
            may_send=not phase.closing and self.topology.may_send(seat, phase),
            current_plan=self.plans[seat] if interrupted else None,
            teammates=tuple(s for s in range(len(self.team)) if s != seat),
        )
        phase.thoughts[seat] += 1
        result = await self._deliberator(seat).deliberate(obs, talk)
        if result.message:
            result = replace(result, message=result.message[: self.config.message_max_chars])
        outcome = "new" if not interrupted else ("resumed" if result.resumed else "replanned")
        self.plans[seat] = result.plan
        self.log.plan(seat, result.plan, outcome, phase)
        self._ready(seat, phase)
        return result

    def _ready(self, seat: int, phase: Phase) -> None:
        self.log.enter(seat, Stage.WAIT, phase)
        phase.stage[seat] = Stage.WAIT

    def _deliver(self, messages: Sequence[Message], phase: Phase) -> None:
        for message in messages:
            self.log.message(message)
            for receiver in message.recipients:
                self.inbox[receiver].append(message)
                if (
                    phase.stage.get(receiver) in (Stage.WAIT, Stage.EXECUTE)
                    and receiver in self.talkers
                    and self.topology.interrupts(receiver, message, phase)
                ):
                    self.log.enter(receiver, Stage.INTERRUPT, phase, cause=message.sender)
                    phase.stage[receiver] = Stage.INTERRUPT

    async def _force_ready(self, observations: Sequence[Observation], phase: Phase) -> None:
        """At the round bound: an interrupted agent resumes its plan; one with no plan deliberates
        once more without the right to speak (the environment never waits forever)."""
        for seat in phase.needing():
            if phase.stage[seat] == Stage.INTERRUPT and self.plans[seat] is not None:
                self.log.plan(seat, self.plans[seat] or "", "resumed", phase)
                self._ready(seat, phase)
        late = phase.needing()
        if late:
            phase.closing = True
            phase.t_cog = self.log.tick()
            await asyncio.gather(*(self._think(s, observations[s], phase) for s in late))
