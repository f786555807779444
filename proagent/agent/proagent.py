"""The ProAgent loop: plan a skill with the LLM only when the last one ended, verify it, execute it.

Per step: read what the teammate did (events) for belief correction; judge the running skill
(done, failed, timed out); if none is running, ask the Planner, check its choice with the
Verificator and re-plan with an explanation on failure; then let the BFS controller pick the
primitive action. The LLM is awaited here; everything else is plain, fast Python.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from proagent.agent.belief import BeliefTracker
from proagent.agent.config import AgentConfig
from proagent.agent.loops import Loop, UndoLoopGuard, loop_record
from proagent.agent.memory import Memory, MemoryRecord
from proagent.agent.planner import Planner, PlannerOutput, PlanParseError
from proagent.agent.probe import BeliefProber, ProbeTurn, probe_schema, probe_summary
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.agent.records import AgentStats, Attempt, Decision
from proagent.agent.verificator import RoundBudget, conclusion, three_rounds
from proagent.contract import Observation, others
from proagent.llm.sanitize import clip
from proagent.llm.types import Completion, Grounding, LLMResponseError, Message, Model, StructuredOutput
from proagent.maeil.talk import Deliberation, Talk
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, Event, Skill, State, TeammateView, wait_skill


class ProAgent:
    """The LLM agent, as one `proagent.contract.Agent`: it reads a domain only through ``domain``."""

    name = "proagent"

    def __init__(self, config: AgentConfig, model: Model, domain: Domain, env: DomainEnv) -> None:
        self.config = config
        self.model = model
        self.domain = domain
        self.env = env
        self.prompts = load_prompt_set(config.prompt, domain.prompts_root)
        self.retrieval = config.settled_retrieval(self.prompts)
        self.verificator = config.settled_verificator(self.prompts)
        self.stats = AgentStats()
        self.seat = -1
        self.seed = 0

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        """A new episode in ``seat``: the skill book, planner and controller are built for its first state."""
        if first is None:
            raise ValueError("ProAgent.reset needs the first observation (its skill book reads the state)")
        self.seat, self.seed = seat, seed
        self.book = self.domain.skill_book(first.state)
        # Observation honesty: a domain with partial views gives each seat a perceiver that turns
        # the true state into what this agent may know (what it sees, what it remembers seeing).
        perception = self.domain.capabilities.perception
        self.perceiver = perception.perceiver(self.env, seat) if perception is not None else None
        self.view = self.perceiver.observe(first.state, ()) if self.perceiver is not None else first.state
        facts = self.domain.knowledge_facts(self.env)
        knowledge = load_knowledge(self.domain.knowledge_root, self.env.name, seat, facts)
        num_agents = len(first.last_actions) if first.last_actions is not None else self.env.num_agents
        mates = tuple(others(seat, num_agents))
        self.planner = Planner(
            self.prompts, knowledge, self.book, seat, self.config.answer_format, self.config.analysis_max_chars, mates
        )
        self.controller = self.domain.controller(self.book, seat, seed)
        self.memory = Memory(self.config.memory_capacity)
        self.loops = UndoLoopGuard(self.book, seat)
        self.belief = BeliefTracker(self.config.belief, self.prompts)
        self.stats = AgentStats()
        self.skill: Skill | None = None
        self.skill_steps = 0
        self.skill_vacuous = False  # its done-test held when it was chosen: "done" would mean nothing happened
        self.teammates = {s: TeammateView(s, None, None) for s in mates}
        self.last_decision: Decision | None = None
        self.earlier_decisions: list[Decision] = []
        self.guides: dict[str, str] = {}  # topology -> its knowledge text (`_topology_guide`)
        self.last_belief: dict | None = None
        probes = self.domain.capabilities.belief_probes if self.config.belief_probe else None
        c = self.config
        self.prober = (
            BeliefProber(
                probes, self.env, self.domain.prompts_root, c.probe_template, seat, c.probe_max_chars, c.probe_forced
            )
            if probes
            else None
        )
        self.last_probe: ProbeTurn | None = None

    async def act(self, obs: Observation, events: Sequence[Event]) -> int:
        if self.prepare(obs, events):
            skill, _ = await self._decide(obs.state, obs.score)
            self._adopt(obs.state, skill)
        return self.execute(obs)

    def prepare(self, obs: Observation, events: Sequence[Event]) -> bool:
        """Read the step's events (belief correction) and judge the running skill; True when a new
        plan is needed. With `execute` and `deliberate`, this is `act` split for MAEIL."""
        self._begin_step(obs, events)
        self._judge_running_skill(self._believed(obs.state))
        return self.skill is None

    def _begin_step(self, obs: Observation, events: Sequence[Event]) -> None:
        """A new step: last step's trace fields cleared, the step perceived, the loop guard told."""
        self.last_decision, self.last_belief, self.last_probe = None, None, None
        self.earlier_decisions = []
        self._perceive(obs, events)
        self.loops.observe(events)

    def _perceive(self, obs: Observation, events: Sequence[Event]) -> None:
        """The step through this seat's senses: its view, then what it saw its teammates do."""
        self.view = self.perceiver.observe(obs.state, events) if self.perceiver is not None else obs.state
        self._observe_teammates(obs, self.perceiver.witnessed() if self.perceiver is not None else events)

    def _believed(self, state: State) -> State:
        """The state as this agent believes it (the truth without a perceiver): what the Verificator,
        ``legal_only`` and the judgement of a running skill check, since their texts reach the prompt."""
        return self.perceiver.believed_state() if self.perceiver is not None else state

    async def deliberate(self, obs: Observation, talk: Talk) -> Deliberation:
        """Plan with the conversation in the prompt (MAEIL's R or I stage). Interrupted while a skill
        runs, choosing that same skill again resumes it (its step count goes on)."""
        if self.last_decision is not None:
            self.earlier_decisions.append(self.last_decision)
        skill, message = await self._decide(
            obs.state, obs.score, {**talk.to_prompt(), "guide": self._topology_guide(talk.topology)}
        )
        resumed = self.skill is not None and talk.current_plan is not None and str(skill) == str(self.skill)
        if not resumed:
            self._adopt(obs.state, skill)
        return Deliberation(plan=str(skill), message=message, resumed=resumed)

    def _topology_guide(self, topology: str) -> str:
        """What the topology means for this team: the domain's knowledge text
        ``topologies/<name>.md`` (rendered with the env's settings), or nothing; read once an episode."""
        if topology not in self.guides:
            path = self.domain.knowledge_root / "topologies" / f"{topology}.md"
            self.guides[topology] = self.planner.knowledge.render(path.read_text().strip()) if path.is_file() else ""
        return self.guides[topology]

    def execute(self, obs: Observation) -> int:
        """The controller's primitive action for the running skill, steered by what this agent
        believes (with a partial view: only the things and teammates it saw or remembers), so
        its feet never walk to an item its prompt could not know of."""
        self.skill_steps += 1
        return int(self.controller.act(self._believed(obs.state), self.skill))

    def info(self) -> dict[str, Any]:
        """The trace's view of this step: the running skill, the decision made (prompts and
        answers) and a resolved belief."""
        info = {
            "skill": str(self.skill) if self.skill else None,
            "decision": self.last_decision.model_dump() if self.last_decision else None,
            "belief": self.last_belief,
        }
        if self.last_probe is not None:
            info["probe"] = self.last_probe.model_dump()
        if self.earlier_decisions:  # MAEIL: deliberations before the last one this step
            info["earlier_decisions"] = [d.model_dump() for d in self.earlier_decisions]
        return info

    async def aclose(self) -> None:
        """The episode is over; a plain ProAgent thinks only inside `act`, so nothing runs on
        (`BackgroundProAgent` stops its thinking task here)."""
        return

    def episode_stats(self) -> dict[str, Any]:
        """The episode record's LLM and agent fields."""
        s = self.stats
        return {
            "model": self.model.name,  # "scripted" for a world's scripted planner: no language model
            "llm_calls": s.llm_calls,
            "cached_calls": s.cached_calls,
            "prompt_tokens": s.prompt_tokens,
            "reused_prompt_tokens": s.reused_prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "llm_latency_s": s.llm_latency_s,
            "cost_usd": s.cost_usd,
            "decisions": s.decisions,
            "rejections": s.rejections,
            "parse_failures": s.parse_failures,
            "fallbacks": s.fallbacks,
            "oscillations": s.oscillations,
            "retries": s.retries,
            "retry_causes": dict(s.retry_causes),
            "skills_done": s.skills_done,
            "skills_failed": s.skills_failed,
            "intention_hits": self.belief.hits,
            "intention_total": self.belief.total,
            "intention_accuracy": self.belief.accuracy,
            "intention_by_teammate": {
                str(seat): {"hits": h, "total": t} for seat, (h, t) in sorted(self.belief.by_teammate.items())
            },
            "overhead_ms_median": 1000 * statistics.median(s.overhead_s) if s.overhead_s else None,
            "skill_duration_mean": statistics.fmean(s.skill_durations) if s.skill_durations else None,
            **(probe_summary(self.prober.turns) if self.prober is not None else {}),
        }

    def _adopt(self, state: State, skill: Skill) -> None:
        """Start executing ``skill`` from ``state``."""
        self.skill = skill
        self.skill_steps = 0
        # Only possible without the Verificator (preconditions exclude it), e.g. a put-down skill
        # with empty hands: its done-test (hands empty) holds already, yet it achieves nothing.
        self.skill_vacuous = self.book.is_done(self._believed(state), self.seat, skill, 0)

    def _observe_teammates(self, obs: Observation, events: Sequence[Event]) -> None:
        """Each teammate's last primitive action and last completed skill (from its events); a
        completed skill also resolves the pending intention prediction (Belief Correction)."""
        for seat, view in self.teammates.items():
            if obs.last_actions is not None:
                self.teammates[seat] = replace(view, last_action=self.domain.action_names[obs.last_actions[seat]])
        for event in events:
            if event.agent == self.seat or event.agent not in self.teammates:
                continue
            done = self.book.skill_of_event(event)
            if done is not None:
                self.teammates[event.agent] = replace(self.teammates[event.agent], last_skill=str(done))
                self.last_belief = self.belief.observe(done, obs.step, self.memory, event.agent) or self.last_belief

    def _judge_running_skill(self, state: State) -> None:
        if self.skill is None:
            return
        outcome = None
        if not self.skill_vacuous and self.book.is_done(state, self.seat, self.skill, self.skill_steps):
            outcome = "done"
            self.stats.skills_done += 1
        else:
            failures = self.book.failures(state, self.seat, self.skill)
            if self.skill_vacuous and not failures:
                failures = ["it was already done when chosen"]
            if failures or self.skill_steps >= self.config.skill_timeout:
                outcome = "failed: " + ("; ".join(failures) if failures else "took too long")
                self.stats.skills_failed += 1
        if outcome is not None:
            self.stats.skill_durations.append(self.skill_steps)
            record = self.memory.last()
            if record is not None and record.outcome == "running":
                record.outcome = outcome
            self.skill = None

    async def _decide(self, state: State, score: float, talk: dict | None = None) -> tuple[Skill, str | None]:
        """The Planner's choice checked by the Verificator (re-planned on failure), and the message
        of the accepted answer (None without a conversation)."""
        started = time.perf_counter()
        llm_before, calls_before = self.stats.llm_latency_s, self.stats.llm_calls
        facts = self.domain.ground(
            self.view, self.seat, self.book, list(self.teammates.values()), score
        )  # what it may know
        memory = self.memory.retrieve(self.config.memory_k, self.retrieval)
        loops = self.loops.blocked(state)
        self.stats.oscillations += int(bool(loops))
        blocked = loops if self.config.loop_check else []
        attempts: list[Attempt] = []
        accepted: PlannerOutput | None = None
        for _ in range(self.config.max_replans + 1):
            accepted = await self._attempt(state, facts, memory, attempts, blocked, talk)
            if accepted is not None:
                break
        skill = accepted.plan if accepted else wait_skill(1)
        self.loops.record(state, skill)
        self._remember(state, facts, accepted, skill)
        self.stats.decisions += 1
        self.stats.fallbacks += int(accepted is None)
        llm_time = self.stats.llm_latency_s - llm_before
        overhead = time.perf_counter() - started - llm_time
        self.stats.overhead_s.append(overhead)
        self.last_decision = Decision(
            step=state.step,
            attempts=attempts,
            skill=str(skill),
            analysis=accepted.analysis if accepted else None,
            intention=accepted.intention_text if accepted else None,
            fallback=accepted is None,
            llm_calls=self.stats.llm_calls - calls_before,
            llm_latency_s=llm_time,
            overhead_s=overhead,
            message=accepted.message if accepted else None,
            loops=[loop_record(loop, self.config.loop_check) for loop in loops],
        )
        await self._probe(state, facts)
        return skill, accepted.message if accepted else None

    async def _probe(self, state: State, facts: dict) -> None:
        """The turn's belief probe, if one is due: one more model call on the same honest facts,
        scored against the world's truth of ``state`` (the full state), which no prompt sees."""
        question = self.prober.due(self._believed(state)) if self.prober is not None else None
        if question is None:
            return
        messages = self.prober.messages(facts, question)
        grounding = self.prober.grounding(facts, question)
        text, error = "", None
        try:
            schema = probe_schema(question, self.config.probe_forced)
            text = (await self._generate(messages, schema, self.config.probe_max_tokens, grounding)).text
        except LLMResponseError as exc:  # counted like any failed call; the probe scores as all unknown
            self._count_failed(exc)
            error = clip(f"the answer was malformed: {exc}", self.config.carried_text_max_chars)
        self.last_probe = self.prober.record(
            state.step, question, text, self.prober.probes.truth(state), messages, error
        )

    async def _attempt(
        self,
        state: State,
        facts: dict,
        memory: list[dict],
        attempts: list[Attempt],
        blocked: list[Loop],
        talk: dict | None = None,
    ) -> PlannerOutput | None:
        feedback = [
            {
                "skill": a.plan or "(unreadable answer)",
                "reasons": a.failures or [a.parse_error],
                "explanation": a.explanation,
            }
            for a in attempts
        ]
        messages = self.planner.messages(facts, memory, feedback, talk)
        grounding = self.planner.grounding(facts, memory, feedback, talk)
        allowed = self._allowed_skills(self._believed(state), blocked)
        structured = self.planner.structured_output(allowed, talk) if self.config.answer_format == "json" else None
        try:
            completion = await self._generate(messages, structured, self.config.max_tokens, grounding)
        except LLMResponseError as exc:  # a broken answer envelope: an unreadable answer, not the end of the run
            attempts.append(self._malformed(messages, structured, exc))
            return None
        attempt = Attempt(messages=[m.model_dump() for m in messages], structured=structured, response=completion.text)
        attempts.append(attempt)
        try:
            output = self._bounded(self.planner.parse(completion.text))
        except PlanParseError as exc:
            attempt.parse_error = clip(str(exc), self.config.carried_text_max_chars)
            self.stats.parse_failures += 1
            return None
        attempt.plan = str(output.plan)
        failures = self._verify(self._believed(state), output.plan, blocked)
        if not failures:
            return output
        attempt.failures = failures
        self.stats.rejections += 1
        if self.verificator == "llm3":
            budget = self._round_budget()
            rounds = await three_rounds(self.planner, facts, output.plan, failures, self._generate_text, budget)
            attempt.verification = rounds
            attempt.explanation = conclusion(attempt.verification)
            return None
        explain = self.planner.explainer_messages(facts, output.plan, failures)
        grounding = self.planner.explainer_grounding(facts, output.plan, failures)
        try:
            explanation = (await self._generate(explain, None, self.config.explain_max_tokens, grounding)).text.strip()
        except LLMResponseError:  # the checks' own reasons are still fed back
            explanation = ""
        attempt.explanation = clip(explanation, self.config.explanation_max_chars) or None
        return None

    def _round_budget(self) -> RoundBudget:
        c = self.config
        return RoundBudget(
            round_tokens=c.verify_max_tokens,
            conclusion_tokens=c.explain_max_tokens,
            round_chars=c.carried_text_max_chars,
            conclusion_chars=c.explanation_max_chars,
        )

    async def _generate_text(self, messages: list[Message], max_tokens: int, grounding: Grounding) -> Completion:
        """A free-text model call (no structured output), metered like every other."""
        return await self._generate(messages, None, max_tokens, grounding)

    def _malformed(self, messages: list, structured: StructuredOutput | None, exc: LLMResponseError) -> Attempt:
        """The record of an attempt whose answer could not be read at all (after the backend's retries)."""
        self._count_failed(exc)
        self.stats.parse_failures += 1
        error = clip(f"the answer was malformed: {exc}", self.config.carried_text_max_chars)
        dumped = [m.model_dump() for m in messages]
        return Attempt(messages=dumped, structured=structured, response=exc.excerpt or "", parse_error=error)

    def _count_failed(self, exc: LLMResponseError) -> None:
        """A call whose answer could not be read still cost a call (and its retries)."""
        self.stats.llm_calls += 1
        self.stats.retries += max(0, exc.attempts - 1)  # every request the server saw is accounted for
        self.stats.retry_causes[type(exc).__name__] += max(0, exc.attempts - 1)

    def _bounded(self, output: PlannerOutput) -> PlannerOutput:
        """The planner's free texts cut to ``carried_text_max_chars`` before memory, beliefs and records see them."""
        limit = self.config.carried_text_max_chars
        return replace(
            output,
            analysis=clip(output.analysis, limit),
            intention_text=clip(output.intention_text, limit),
            message=clip(output.message, limit),
        )

    def _verify(self, state: State, skill: Skill, blocked: list[Loop]) -> list[str]:
        """The Verificator's legality check, in code in every mode: the skill's preconditions, then the
        undo-loop check (both off with --no-verificator)."""
        if self.verificator == "off":
            return []
        return self.book.failures(state, self.seat, skill) + [loop.reason for loop in blocked if loop.skill == skill]

    def _allowed_skills(self, state: State, blocked: list[Loop]) -> list[Skill]:
        skills = self.book.all_skills()
        if not self.config.legal_only:
            return skills
        return [s for s in skills if not self._verify(state, s, blocked)]

    async def _generate(
        self, messages: list[Message], structured: StructuredOutput | None, max_tokens: int, grounding: Grounding
    ) -> Completion:
        """One model call; ``grounding`` (what the prompt was rendered from) goes beside it for test doubles."""
        completion = await self.model.generate(
            messages,
            structured=structured,
            max_tokens=max_tokens,
            temperature=self.config.temperature,
            seed=self.seed,
            grounding=grounding,
        )
        self.stats.add(completion)
        return completion

    def _remember(self, state: State, facts: dict, output: PlannerOutput | None, skill: Skill) -> None:
        self.memory.add(
            MemoryRecord(
                step=state.step,
                state=self.domain.memory_summary(facts),
                analysis=output.analysis if output else None,
                intention=output.intention_text if output else None,
                belief=None,
                skill=str(skill),
                outcome="running",
            )
        )
        if output is None or "intention" not in self.planner.prompts.fields:
            return
        if not self.planner.per_teammate:
            self.belief.predict(state.step, output.intention, output.intention_text)
        for seat, predicted in output.intentions.items():  # several teammates: one prediction each
            self.belief.predict(state.step, predicted, str(predicted) if predicted else output.intention_text, seat)
