"""One episode: a team of agents (one per seat, any kinds), stepped in a plain Python loop.

The environment step is jitted JAX; the agent's LLM calls are awaited; every step is written to
the trace (state text, decisions with prompts and responses, actions, events, rewards, beliefs).
Where the states come from is pluggable (`EpisodeEnv`): by default one env stepped per call; the
evaluator plugs in one that steps many concurrent episodes of a layout in one vmapped call.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import jax
import jax.numpy as jnp

from proagent.contract import Agent, Observation, others, seat_seeds
from proagent.interdependence.episode import record_fields
from proagent.maeil.loop import Maeil
from proagent.maeil.topology import TopologyConfig
from proagent.runner.records import EndedBy, EpisodeRecord, SeatUsage, team_usage
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, EngineState, Event, State, Transition


@dataclass
class StepView:
    """What a live view needs after each step: the new state, and every seat's agent and action."""

    state: State
    score: float
    team: Sequence[Agent]
    focal: int
    actions: tuple[int, ...]
    events: list[Event]

    @property
    def agent(self) -> Agent:
        """The focal seat's agent (the one the run is about)."""
        return self.team[self.focal]


class WallClock:
    """A wall-clock budget per episode (EmCoop's MA-Crafter runs end at their step budget or after
    ``time_limit_seconds``, whichever comes first): `spent` is true once ``budget_s`` seconds have
    passed since it was made. ``clock`` is injectable so that tests fix time instead of waiting for it."""

    def __init__(self, budget_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget_s = budget_s
        self.clock = clock
        self.started = clock()

    def spent(self) -> bool:
        return self.clock() - self.started >= self.budget_s


class StateSink(Protocol):
    """Where an episode's engine states go as they come (a GIF recorder, or a plain list)."""

    def append(self, state: EngineState) -> None: ...


class EpisodeEnv(Protocol):
    """The states of one episode: its reset state, then one transition per joint action."""

    async def reset(self) -> EngineState: ...

    async def step(self, t: int, state: EngineState, actions: tuple[int, ...]) -> Transition: ...


class SingleEnv:
    """One env, one jitted call per step; step ``t`` uses ``fold_in(PRNGKey(seed), t)``."""

    def __init__(self, env: DomainEnv, seed: int) -> None:
        self.env = env
        self.key = jax.random.PRNGKey(seed)

    async def reset(self) -> EngineState:
        return self.env.jit_reset(self.key)

    async def step(self, t: int, state: EngineState, actions: tuple[int, ...]) -> Transition:
        return self.env.jit_step(jax.random.fold_in(self.key, t), state, jnp.asarray(actions, dtype=jnp.int32))


async def run_episode(
    env: DomainEnv,
    domain: Domain,
    team: Sequence[Agent],
    focal: int,
    seed: int,
    episode: int,
    trace: Callable[[dict], None] | None = None,
    on_step: Callable[[StepView], None] | None = None,
    states: StateSink | None = None,
    episode_env: EpisodeEnv | None = None,
    pace: Callable[[], Awaitable[None]] | None = None,
    topology: TopologyConfig | None = None,
    stop_when: Callable[[float, Sequence[Event]], bool] | None = None,
    wall_clock_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> EpisodeRecord:
    """Play ``team`` (one agent per seat, any kinds) to the horizon; the record is about ``focal``.
    ``states`` (if given) is handed every engine state as it comes (a GIF recorder). ``episode_env`` (default
    ``SingleEnv(env, seed)``) supplies the states; ``env`` decodes them. ``pace`` (if given) is
    awaited before each step's actions are chosen: a real-time clock tick or a person's key press
    in `proagent human`, so the latest input is read right after it. ``topology`` (if given) runs
    the team through MAEIL (`proagent.maeil`): deliberating agents talk and re-plan between steps,
    each step's cognition goes into the trace and the process metrics into the record; with
    ``topology.feedback`` the world's feedback snapshot of the whole state rides on the leader's messages.
    ``wall_clock_s`` (if set, > 0) ends the episode after the step in which that many seconds of
    ``clock`` have passed since its first step began (`WallClock`); the step in flight is played
    out, as its decisions are already paid for. The record says why the episode ended (``ended_by``)."""
    started = time.perf_counter()
    episode_env = episode_env or SingleEnv(env, seed)
    state = await episode_env.reset()
    symbolic = env.symbolic(state)
    seeds = seat_seeds(seed, len(team), focal)
    for seat, agent in enumerate(team):
        agent.reset(seat, seeds[seat], Observation(seat, symbolic, state, None, 0.0))
    order = [focal, *others(focal, len(team))]  # the focal agent acts first (a person's key is read last)
    score, shaped = 0.0, [0.0] * len(team)
    events: list[Event] = []
    all_events: list[Event] = []
    last_actions: tuple[int, ...] | None = None
    caps = domain.capabilities
    collector = caps.interdependence.collector(symbolic) if caps.interdependence is not None else None
    process = caps.process.collector(symbolic) if caps.process is not None else None
    plan_target = caps.plans.target if caps.plans is not None else None
    snapshot = (
        caps.feedback.snapshot if caps.feedback is not None and topology is not None and topology.feedback else None
    )
    effects = caps.plan_effects if topology is not None and topology.repair != "off" else None
    maeil = Maeil(topology, team, plan_target, snapshot, effects) if topology is not None else None
    if states is not None:
        states.append(state)
    deadline = WallClock(wall_clock_s, clock) if wall_clock_s else None
    while True:
        if pace is not None:
            await pace()
        observations = [Observation(seat, symbolic, state, last_actions, score) for seat in range(len(team))]
        actions = await _joint_action(team, order, observations, events, maeil, symbolic)
        tr = await episode_env.step(symbolic.step, state, actions)
        after = env.symbolic(tr.state)
        events = env.events(symbolic, actions, after)
        all_events.extend(events)
        if collector is not None:
            collector.add(symbolic.step, actions, events)
        reward = float(tr.reward)
        score += reward
        shaped = [s + float(r) for s, r in zip(shaped, tr.shaped_reward)]
        constraints = process.add(symbolic, actions, after) if process is not None else None
        if maeil is not None:
            maeil.observe_step(symbolic, actions, after)
        stopped = not tr.done and stop_when is not None and stop_when(score, all_events)
        ended_by = _ending(bool(tr.done), stopped, deadline)
        ended = ended_by is not None
        if trace is not None:
            record = _step_record(
                domain, env, team, focal, episode, symbolic, after, actions, events, reward, score, ended
            )
            trace(_with_process(record, maeil, constraints))
        elif maeil is not None:
            maeil.log.drain()
        last_actions = actions
        state, symbolic = tr.state, after
        if states is not None:
            states.append(state)
        if on_step is not None:
            on_step(StepView(symbolic, score, team, focal, actions, events))
        if ended:
            break
    record = _episode_record(env, domain, team, focal, seed, episode, score, shaped, symbolic.step, all_events, started)
    update = {
        "process_metrics": {**(maeil.metrics() if maeil else {}), **(process.result() if process else {})},
        "ended_by": ended_by,
    }
    return record.model_copy(update={**update, **(record_fields(collector.result()) if collector is not None else {})})


def _ending(done: bool, stopped: bool, deadline: WallClock | None) -> EndedBy | None:
    """Why the episode ends after this step, None if it goes on. The world's end comes first (a
    step that reaches the horizon as the budget runs out ended by the horizon); the clock is read
    only when nothing else ended the episode."""
    if done:
        return "world"
    if stopped:
        return "until"
    if deadline is not None and deadline.spent():
        return "wall_clock"
    return None


async def _joint_action(
    team: Sequence[Agent],
    order: Sequence[int],
    observations: Sequence[Observation],
    events: list[Event],
    maeil: Maeil | None,
    truth: State,
) -> tuple[int, ...]:
    """Every seat's action: through MAEIL's cognitive phase (``truth``: the whole state, for
    environment feedback), or each agent in turn (focal first)."""
    if maeil is not None:
        return await maeil.step_actions(observations, events, truth)
    chosen = {seat: int(await team[seat].act(observations[seat], events)) for seat in order}
    return tuple(chosen[seat] for seat in range(len(team)))


def _with_process(record: dict, maeil: Maeil | None, constraints: list[dict] | None) -> dict:
    """The step's cognition (stage changes, messages, plans before it) and constraint states."""
    if maeil is not None:
        record["cognition"] = maeil.log.drain()
        record["stages"] = maeil.log.stages()
    if constraints is not None:
        record["constraints"] = constraints
    return record


def _step_record(
    domain: Domain,
    env: DomainEnv,
    team: Sequence[Agent],
    focal: int,
    episode: int,
    before: State,
    after: State,
    actions: tuple[int, ...],
    events: list[Event],
    reward: float,
    score: float,
    done: bool,
) -> dict:
    """One trace line: the state as text, the joint action, events, reward; the focal agent's
    ``info()`` (skill, decision, belief); what a replay needs to draw the step (the domain's
    frame extras); the teammates' skills where they have one."""
    rendering = domain.capabilities.rendering
    record = {
        "episode": episode,
        "step": before.step,
        "state": rendering.text(before) if rendering is not None else str(before),
        "actions": [domain.action_names[a] for a in actions],
        "events": [e.to_record() for e in events],
        "reward": reward,
        "score": score,
        **team[focal].info(),
        "seat": focal,
        **(rendering.frame_extras(env, before, after, done) if rendering is not None else {}),
    }
    mates = {seat: team[seat].info().get("skill") for seat in others(focal, len(team))}
    if len(team) == 2:
        (skill,) = mates.values()
        if skill is not None:
            record["partner_skill"] = skill
    elif any(skill is not None for skill in mates.values()):
        record["partner_skills"] = {str(seat): skill for seat, skill in mates.items()}
    return record


def _episode_record(
    env: DomainEnv,
    domain: Domain,
    team: Sequence[Agent],
    focal: int,
    seed: int,
    episode: int,
    score: float,
    shaped: list[float],
    steps: int,
    events: list[Event],
    started: float,
) -> EpisodeRecord:
    mates = [team[seat].name for seat in others(focal, len(team))]
    stats = [agent.episode_stats() for agent in team]
    return EpisodeRecord(
        episode=episode,
        seed=seed,
        layout=env.name,
        partner=mates[0] if len(mates) == 1 else "+".join(mates),
        seat=focal,
        team=[agent.name for agent in team],
        score=score,
        steps=steps,
        wall_time_s=time.perf_counter() - started,
        shaped_return=shaped,
        events=domain.count_events(events, len(team)),
        domain_metrics=domain.episode_metrics(events),
        agent_stats=stats,
        **team_usage([SeatUsage.of(seat) for seat in stats]),
        **stats[focal],
    )
