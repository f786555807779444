"""Helpers for the agent tests: scripted kitchens, a stay partner, scripted "LLM" policies.

A kitchen script is a list of two-letter strings, one per step: player 0's action then player 1's,
U/D/R/L = up/down/right/left, S = stay, I = interact (``"IS"``: player 0 interacts, player 1 stays).
The LLM is always a ``ScriptedModel`` (tests.support); nothing here touches a network.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp

import envs
from envs import Action
from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.contract import ImmediateAgent, Observation
from proagent.domains.overcooked import OvercookedDomain
from tests.support.scripted import ScriptedCall

DOMAIN = OvercookedDomain()

LETTERS = {"U": Action.UP, "D": Action.DOWN, "R": Action.RIGHT, "L": Action.LEFT, "S": Action.STAY, "I": Action.INTERACT}


def run(coro):
    return asyncio.run(coro)


class StayPartner(ImmediateAgent):
    """A teammate that never moves (the ``stay`` baseline, without the partner registry)."""

    name = "stay"

    def reset(self, seat: int, seed: int, first=None) -> None:
        pass

    def policy(self, kitchen, state) -> Action:
        return Action.STAY


@dataclass
class Frames:
    """A scripted rollout: kitchens[t] is the state at step t; events[t] / actions[t] lead to t+1."""

    kitchens: list = field(default_factory=list)
    actions: list = field(default_factory=list)
    events: list = field(default_factory=list)
    rewards: list = field(default_factory=list)

    @property
    def final(self) -> envs.KitchenState:
        return self.kitchens[-1]


def play_script(env: envs.OvercookedEnv, script: list[str], seed: int = 0) -> Frames:
    key = jax.random.PRNGKey(seed)
    state = env.jit_reset(key)
    kitchen = env.symbolic(state)
    out = Frames(kitchens=[kitchen])
    for t, entry in enumerate(script):
        actions = tuple(int(LETTERS[c]) for c in entry.replace(" ", ""))
        tr = env.jit_step(jax.random.fold_in(key, t), state, jnp.asarray(actions, dtype=jnp.int32))
        after = env.symbolic(tr.state)
        out.actions.append(actions)
        out.events.append(envs.extract_events(kitchen, actions, after))
        out.rewards.append(float(tr.reward))
        out.kitchens.append(after)
        state, kitchen = tr.state, after
    return out


def overcooked_knowledge(layout: str, seat: int):
    """The Overcooked knowledge of ``layout`` for ``seat``, rendered with the classic dynamics."""
    from proagent.agent.prompts import load_knowledge

    return load_knowledge(DOMAIN.knowledge_root, layout, seat, DOMAIN.knowledge_facts(envs.make(layout)))


def start_agent(agent: ProAgent, env: envs.OvercookedEnv, seat: int = 0, seed: int = 0) -> ProAgent:
    """Reset ``agent`` for an episode of ``env`` from its seed's first state."""
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(seed)))
    agent.reset(seat, seed, Observation(seat, first, None, None, 0.0))
    return agent


def make_agent(env: envs.OvercookedEnv, model, seat: int = 0, seed: int = 0, **config) -> ProAgent:
    return start_agent(ProAgent(AgentConfig(**config), model, DOMAIN, env), env, seat, seed)


def observation(kitchen, seat: int = 0, mate: int | None = None, score: float = 0.0) -> Observation:
    """What the runner gives ``seat``: the kitchen, and the teammate's last action (``mate``)."""
    last = None if mate is None else tuple(int(mate) if s != seat else int(Action.STAY) for s in range(len(kitchen.players)))
    return Observation(seat, kitchen, None, last, score)


def act(agent: ProAgent, kitchen, events, mate: int | None, score: float) -> Action:
    """One ``agent.act`` on a recorded kitchen."""
    return run(agent.act(observation(kitchen, agent.seat, mate, score), events))


def feed(agent: ProAgent, frames: Frames, upto: int | None = None, seat: int = 0) -> list[Action]:
    """Call ``agent.act`` on the recorded kitchens 0..upto (its own actions are ignored: the
    kitchens are fixed). Returns the actions it chose."""
    out = []
    last = len(frames.kitchens) - 1 if upto is None else upto
    for t in range(last + 1):
        events = frames.events[t - 1] if t > 0 else []
        mate = frames.actions[t - 1][1 - seat] if t > 0 else None
        score = sum(frames.rewards[:t])
        out.append(act(agent, frames.kitchens[t], events, mate, score))
    return out


@dataclass
class LiveStep:
    kitchen: envs.KitchenState  # state the agent acted on
    action: Action
    calls_before: int  # model calls made before this step's act
    calls_after: int
    decision: dict | None = None  # the trace's record of the decision taken in this step, if one was


def drive_live(env: envs.OvercookedEnv, agent: ProAgent, model, steps: int, seed: int = 0) -> list[LiveStep]:
    """Play ``steps`` steps: the agent in seat 0, a partner that stays in seat 1."""
    key = jax.random.PRNGKey(seed)
    state = env.jit_reset(key)
    kitchen = env.symbolic(state)
    events: list = []
    mate: int | None = None
    score = 0.0
    log = []
    for _ in range(steps):
        before = len(model.calls)
        action = act(agent, kitchen, events, mate, score)
        log.append(LiveStep(kitchen, action, before, len(model.calls), agent.info()["decision"]))
        actions = (int(action), int(Action.STAY))
        tr = env.jit_step(jax.random.fold_in(key, kitchen.step), state, jnp.asarray(actions, dtype=jnp.int32))
        after = env.symbolic(tr.state)
        events = envs.extract_events(kitchen, actions, after)
        mate = int(Action.STAY)
        score += float(tr.reward)
        state, kitchen = tr.state, after
    return log


# ---- scripted answers ----------------------------------------------------------------------


def answer(plan: str, intention: str | None = "wait(1)", analysis: str | None = "ok") -> str:
    data = {}
    if analysis is not None:
        data["analysis"] = analysis
    if intention is not None:
        data["intention"] = intention
    data["plan"] = plan
    return json.dumps(data)


def sensible_policy(call: ScriptedCall) -> str:
    """A competent scripted 'LLM': picks from the schema's plan enum by priority, from the grounding.

    deliver > fill (a pot cooks or is ready) > put onion > pickup dish (a pot cooks or is ready)
    > pickup onion > place a useless dish on a counter > wait(1). The explainer (no schema) gets
    a short sentence.
    """
    if call.structured is None or call.grounding is None:
        return "That skill cannot be done now."
    allowed = call.structured.json_schema["properties"]["plan"]["enum"]
    facts = call.grounding.facts
    pots = [pot["status"] for pot in facts["pots"]]
    soup_coming = any(status in ("cooking", "ready") for status in pots)
    held = facts["me"]["held"] or "nothing"
    wants = ["deliver_soup()"]
    if soup_coming:
        wants += ["fill_dish_with_soup()"]
    wants += ["put_onion_in_pot()"]
    if soup_coming:
        wants += ["pickup(dish)"]
    else:
        wants += ["pickup(onion)"]
        if held == "dish":
            wants += ["place_obj_on_counter()"]
    for plan in wants:
        if plan in allowed:
            return answer(plan, intention="wait(1)", analysis=f"pots: {'; '.join(pots)}")
    return answer("wait(1)", intention="wait(1)", analysis="nothing useful to do")
