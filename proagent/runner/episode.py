"""One episode: the agent in one seat, a partner in the other, stepped in a plain Python loop.

The environment step is jitted JAX; the agent's LLM calls are awaited; every step is written to
the trace (state text, decisions with prompts and responses, actions, events, rewards, beliefs).
Where the states come from is pluggable (`EpisodeEnv`): by default one env stepped per call; the
evaluator plugs in one that steps many concurrent episodes of a layout in one vmapped call.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import jax
import jax.numpy as jnp

from envs import Action, EnvState, KitchenState, OvercookedEnv, Transition, render_ascii, terrain_rows
from envs.overcooked.events import Event, EventKind
from proagent.agent.proagent import ProAgent
from proagent.interdependence.episode import EpisodeCollector, record_fields
from proagent.partners.base import Partner
from proagent.runner.records import EpisodeRecord


@dataclass
class StepView:
    """What a live view needs after each step."""

    kitchen: KitchenState
    score: float
    agent: ProAgent | None
    actions: tuple[int, int]
    events: list[Event]


class EpisodeEnv(Protocol):
    """The states of one episode: its reset state, then one transition per joint action."""

    async def reset(self) -> EnvState: ...

    async def step(self, t: int, state: EnvState, actions: tuple[int, int]) -> Transition: ...


class SingleEnv:
    """One env, one jitted call per step; step ``t`` uses ``fold_in(PRNGKey(seed), t)``."""

    def __init__(self, env: OvercookedEnv, seed: int) -> None:
        self.env = env
        self.key = jax.random.PRNGKey(seed)

    async def reset(self) -> EnvState:
        return self.env.jit_reset(self.key)

    async def step(self, t: int, state: EnvState, actions: tuple[int, int]) -> Transition:
        return self.env.jit_step(jax.random.fold_in(self.key, t), state, jnp.asarray(actions, dtype=jnp.int32))


async def run_episode(
    env: OvercookedEnv,
    agent: ProAgent | Partner,
    partner: Partner,
    seat: int,
    seed: int,
    episode: int,
    trace: Callable[[dict], None] | None = None,
    on_step: Callable[[StepView], None] | None = None,
    states: list[EnvState] | None = None,
    episode_env: EpisodeEnv | None = None,
    pace: Callable[[], Awaitable[None]] | None = None,
) -> EpisodeRecord:
    """Play to the horizon; ``states`` (if given) collects every engine state for a GIF.
    ``episode_env`` (default ``SingleEnv(env, seed)``) supplies the states; ``env`` decodes them.
    ``pace`` (if given) is awaited before each step's actions are chosen: a real-time clock tick or
    a person's key press in `proagent human`, so the latest input is read right after it."""
    started = time.perf_counter()
    episode_env = episode_env or SingleEnv(env, seed)
    state = await episode_env.reset()
    kitchen = env.symbolic(state)
    partner.reset(1 - seat, seed + 1)
    if not isinstance(agent, ProAgent):
        agent.reset(seat, seed)
    score, shaped = 0.0, [0.0, 0.0]
    events: list[Event] = []
    all_events: list[Event] = []
    partner_action: int | None = None
    collector = EpisodeCollector.start(kitchen)
    if states is not None:
        states.append(state)
    while True:
        if pace is not None:
            await pace()
        if isinstance(agent, ProAgent):
            mine = await agent.act(kitchen, events, partner_action, score)
        else:
            mine = agent.act(kitchen, state)
        theirs = partner.act(kitchen, state)
        actions = (int(mine), int(theirs)) if seat == 0 else (int(theirs), int(mine))
        tr = await episode_env.step(kitchen.step, state, actions)
        next_kitchen = env.symbolic(tr.state)
        events = env.events(kitchen, actions, next_kitchen)
        all_events.extend(events)
        collector.add(kitchen.step, actions, events)
        reward = float(tr.reward)
        score += reward
        shaped = [s + float(r) for s, r in zip(shaped, tr.shaped_reward)]
        if trace is not None:
            record = _step_record(episode, kitchen, actions, events, reward, score, agent)
            record.update(_frame_extras(env, kitchen, next_kitchen, seat, partner, bool(tr.done)))
            trace(record)
        partner_action = int(theirs)
        state, kitchen = tr.state, next_kitchen
        if states is not None:
            states.append(state)
        if on_step is not None:
            on_step(StepView(kitchen, score, agent if isinstance(agent, ProAgent) else None, actions, events))
        if bool(tr.done):
            break
    record = _episode_record(env, agent, partner, seat, seed, episode, score, shaped, kitchen.step, all_events, started)
    return record.model_copy(update=record_fields(collector.result()))


def _step_record(episode: int, kitchen: KitchenState, actions, events, reward: float, score: float, agent) -> dict:
    record = {
        "episode": episode,
        "step": kitchen.step,
        "state": render_ascii(kitchen),
        "actions": [Action(a).name.lower() for a in actions],
        "events": [e.to_record() for e in events],
        "reward": reward,
        "score": score,
    }
    if isinstance(agent, ProAgent):
        record["skill"] = str(agent.skill) if agent.skill else None
        record["decision"] = agent.last_decision.model_dump() if agent.last_decision else None
        record["belief"] = agent.last_belief
        if getattr(agent, "thinking", False):
            record["thinking"] = True
    elif (skill := _scripted_skill(agent)) is not None:
        record["skill"] = skill
    return record


def _frame_extras(env: OvercookedEnv, kitchen: KitchenState, after: KitchenState, seat: int, partner, done: bool) -> dict:
    """What a replay needs to draw the step exactly: the structured kitchen (the ASCII ``state``
    drops pot timers and soup contents), the agent's seat, the terrain once per episode, the
    partner's skill when it has one, and after the last step the final kitchen."""
    extras: dict = {"seat": seat, "kitchen": kitchen.to_record()}
    if kitchen.step == 0:
        extras["terrain"] = terrain_rows(env.layout.tiles)
    if (skill := _scripted_skill(partner)) is not None:
        extras["partner_skill"] = skill
    if done:
        extras["final"] = {"state": render_ascii(after), "kitchen": after.to_record()}
    return extras


def _scripted_skill(player) -> str | None:
    """The skill a scripted partner is playing (SkillPartner.choice), if it has such a notion."""
    choice = getattr(player, "choice", None)
    return str(choice.skill) if choice is not None else None


def _episode_record(env, agent, partner, seat, seed, episode, score, shaped, steps, events, started) -> EpisodeRecord:
    counts: dict[str, list[int]] = {}
    per_agent = Counter((e.kind.value, e.agent) for e in events)
    for kind in EventKind:
        counts[kind.value] = [per_agent[(kind.value, 0)], per_agent[(kind.value, 1)]]
    deliveries = [e for e in events if e.kind == EventKind.DELIVER]
    record = EpisodeRecord(
        episode=episode,
        seed=seed,
        layout=env.layout.name,
        partner=partner.name,
        seat=seat,
        score=score,
        soups=sum(1 for e in deliveries if e.correct),
        wrong_soups=sum(1 for e in deliveries if not e.correct),
        steps=steps,
        wall_time_s=time.perf_counter() - started,
        shaped_return=shaped,
        events=counts,
    )
    if isinstance(agent, ProAgent):
        s = agent.stats
        record = record.model_copy(
            update={
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
                "intention_hits": agent.belief.hits,
                "intention_total": agent.belief.total,
                "intention_accuracy": agent.belief.accuracy,
                "overhead_ms_median": 1000 * statistics.median(s.overhead_s) if s.overhead_s else None,
                "skill_duration_mean": statistics.fmean(s.skill_durations) if s.skill_durations else None,
            }
        )
    return record
