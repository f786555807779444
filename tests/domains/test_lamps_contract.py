"""The lamps world satisfies the domain contract: the shapes the core relies on, checked directly.

These are the checks every new domain should copy: a pure JAX env that jits and vmaps, a typed
symbolic state, events that agree with the engine's rewards, a skill book whose every skill
parses back from its own text and can be checked, prompts that render from every seat, partners
that follow the agent contract, and a whole episode through the core's runner and lockstep env.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from lamps_world import DOMAIN
from lamps_world.env import Action, LineState

from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import load_prompt_set
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import get_domain
from proagent.eval.lockstep import LockstepEnv
from proagent.runner.episode import run_episode
from proagent.world.kit.pictures import save_gif
from proagent.world.types import Event, Skill, SkillParseError, TeammateView

HORIZON = 12
LAYOUTS = ("line", "line3")


def _rollout(env, seed: int) -> tuple[list[LineState], list[tuple[int, ...]], list]:
    """Random joint actions to the horizon: the symbolic states, actions and transitions."""
    rng = np.random.default_rng(seed)
    state = env.jit_reset(jax.random.PRNGKey(seed))
    states, actions, transitions = [env.symbolic(state)], [], []
    for t in range(env.horizon):
        joint = tuple(int(a) for a in rng.integers(len(Action), size=env.num_agents))
        tr = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray(joint, jnp.int32))
        state = tr.state
        states.append(env.symbolic(state))
        actions.append(joint)
        transitions.append(tr)
    return states, actions, transitions


def test_the_domain_imports_by_name_from_this_folder() -> None:
    assert str(Path(__file__).parent) in sys.path, "pytest's prepend import mode puts this folder on sys.path"
    assert get_domain("lamps_world:DOMAIN") is DOMAIN
    assert DOMAIN.layout_names() == list(LAYOUTS) and DOMAIN.owns("line3") and not DOMAIN.owns("cramped_room")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_reset_and_step_jit_and_vmap_with_overcooked_shapes(layout: str) -> None:
    env = DOMAIN.make_env(layout, HORIZON)
    states = env.reset_batch(jax.random.split(jax.random.PRNGKey(0), 3))
    assert states.pos.shape == (3, env.num_agents)
    actions = jnp.full((3, env.num_agents), int(Action.PRESS), jnp.int32)
    batch = env.step_batch(jax.random.split(jax.random.PRNGKey(1), 3), states, actions)
    single = env.jit_step(jax.random.PRNGKey(9), env.jit_reset(jax.random.PRNGKey(0)), actions[0])
    assert batch.reward.shape == (3,) and batch.shaped_reward.shape == (3, env.num_agents) and batch.done.shape == (3,)
    assert (
        single.reward.shape == () and single.shaped_reward.shape == (env.num_agents,) and single.done.dtype == jnp.bool_
    )
    sliced = jax.tree.map(lambda leaf: leaf[0], batch)  # the lockstep slices a batched Transition like this
    assert type(sliced) is type(single) and all(jax.tree.leaves(jax.tree.map(jnp.array_equal, sliced, single)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_events_agree_with_the_engine_and_the_episode_ends_at_the_horizon(layout: str) -> None:
    env = DOMAIN.make_env(layout, HORIZON)
    states, actions, transitions = _rollout(env, seed=3)
    events = [e for before, joint, after in zip(states, actions, states[1:]) for e in env.events(before, joint, after)]
    assert all(isinstance(e, Event) and 0 <= e.agent < env.num_agents for e in events)
    json.dumps([e.to_record() for e in events])
    counts = DOMAIN.count_events(events, env.num_agents)
    shaped = np.sum([np.asarray(tr.shaped_reward) for tr in transitions], axis=0)
    np.testing.assert_allclose(shaped, 0.1 * np.asarray(counts["light"]), rtol=1e-5)
    metrics = DOMAIN.episode_metrics(events)
    assert sorted(metrics) == sorted(DOMAIN.metric_names) and set(DOMAIN.useful_events) <= set(counts)
    assert metrics["completions"] == sum(float(tr.reward) for tr in transitions) == states[-1].completions
    assert [bool(tr.done) for tr in transitions] == [False] * (HORIZON - 1) + [True]
    frozen = env.jit_step(jax.random.PRNGKey(0), transitions[-1].state, jnp.full(env.num_agents, int(Action.RIGHT)))
    assert env.symbolic(frozen.state) == states[-1] and float(frozen.reward) == 0.0


def test_the_symbolic_state_is_small_frozen_and_json_able() -> None:
    env = DOMAIN.make_env("line", HORIZON)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    assert (first.step, first.horizon) == (0, HORIZON)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.step = 1  # type: ignore[misc]
    json.dumps(
        [
            DOMAIN.capabilities.rendering.record(first),
            DOMAIN.capabilities.rendering.page_facts(env, first),
            DOMAIN.capabilities.rendering.frame_extras(env, first, first, True),
        ]
    )
    assert "t=0/12" in DOMAIN.capabilities.rendering.text(first) and DOMAIN.capabilities.interdependence is None
    assert (
        DOMAIN.action_names == ("stay", "left", "right", "press") and DOMAIN.action_names[DOMAIN.idle_action] == "stay"
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_skill_parses_back_from_its_text_and_can_be_checked(layout: str) -> None:
    env = DOMAIN.make_env(layout, HORIZON)
    states, _, _ = _rollout(env, seed=5)
    book = DOMAIN.skill_book(states[0])
    skills = book.all_skills()
    assert {s.name for s in skills} == set(book.specs) and all(book.parse(str(s)) == s for s in skills)
    assert book.parse("Go_To_Lamp( '1' )") == Skill("go_to_lamp", 1) and book.parse("press") == Skill("press")
    for bad in ("go_to_lamp(9)", "wait(0)", "wait(2.5)", "fly()", "go_to_lamp(i)"):
        with pytest.raises(SkillParseError):
            book.parse(bad)
    for seat in range(env.num_agents):
        controller = DOMAIN.controller(book, seat, 0)
        for state in states[:4]:
            hash(book.undo_state(state, seat))
            for skill in skills:
                assert all(isinstance(f, str) for f in book.failures(state, seat, skill))
                assert isinstance(book.is_done(state, seat, skill, 1), bool)
                assert controller.act(state, skill) in range(len(Action))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_prompts_render_from_every_seat_and_ground_is_json(layout: str) -> None:
    env = DOMAIN.make_env(layout, HORIZON)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    prompts = load_prompt_set("proagent", DOMAIN.prompts_root)
    book = DOMAIN.skill_book(first)
    for seat in range(env.num_agents):
        check_prompt_set(prompts, DOMAIN, env, first, seat)  # every template, StrictUndefined
        mates = [TeammateView(s, None, None) for s in range(env.num_agents) if s != seat]
        facts = DOMAIN.ground(first, seat, book, mates, 0.0)
        json.dumps(facts)
        assert DOMAIN.memory_summary(facts).startswith("you at cell")


def test_partners_follow_the_agent_contract_and_unknown_names_are_refused() -> None:
    env = DOMAIN.make_env("line", HORIZON)
    assert DOMAIN.partner_names(env) == ["stay", "walker"]
    assert all(isinstance(DOMAIN.make_partner(name, env), Agent) for name in DOMAIN.partner_names(env))
    with pytest.raises(UnknownAgentError, match="walker"):
        DOMAIN.make_partner("greedy", env)
    from proagent.world.types import DomainInputError

    with pytest.raises(DomainInputError, match="line, line3"):
        DOMAIN.make_env("cramped_room", HORIZON)


def test_walkers_score_through_the_core_runner_and_lockstep_matches_single_steps(tmp_path: Path) -> None:
    env = DOMAIN.make_env("line3", HORIZON)

    def play(episode_env=None) -> tuple:
        team = [DOMAIN.make_partner("walker", env) for _ in range(env.num_agents)]
        states: list = []
        record = asyncio.run(run_episode(env, DOMAIN, team, 0, 7, 0, states=states, episode_env=episode_env))
        return record, states

    single, states = play()
    assert single.score > 0 and single.domain_metrics["completions"] == single.score and single.int_total is None
    assert single.team == ["walker"] * 3 and single.partner == "walker+walker"
    save_gif(env, DOMAIN.capabilities.rendering, states, tmp_path / "episode.gif")
    assert (tmp_path / "episode.gif").stat().st_size > 0

    async def in_lockstep():
        slot = LockstepEnv(env, capacity=2).open(7)
        team = [DOMAIN.make_partner("walker", env) for _ in range(env.num_agents)]
        return await run_episode(env, DOMAIN, team, 0, 7, 0, episode_env=slot)

    batched = asyncio.run(in_lockstep())
    assert (batched.score, batched.events, batched.shaped_return) == (single.score, single.events, single.shaped_return)


def test_the_gif_recorder_draws_as_the_episode_plays_and_keeps_at_most_a_chunk_of_states(tmp_path: Path) -> None:
    """Memory must not grow with a long episode: the recorder draws each chunk of states and writes
    its frames to the file as they come; the GIF still has one frame per state, and no half-written
    GIF is ever found under the final name."""
    from PIL import Image

    from proagent.world.kit.pictures import GifRecorder

    env = DOMAIN.make_env("line3", HORIZON)
    recorder = GifRecorder(env, DOMAIN.capabilities.rendering, tmp_path / "episode.gif", chunk=4)
    most_held = 0

    class Watching:
        def append(self, state) -> None:
            nonlocal most_held
            recorder.append(state)
            most_held = max(most_held, len(recorder.pending))

    team = [DOMAIN.make_partner("walker", env) for _ in range(env.num_agents)]
    asyncio.run(run_episode(env, DOMAIN, team, 0, 7, 0, states=Watching()))
    assert most_held <= 4 and len(recorder) == HORIZON + 1
    assert recorder.stream.count > 0 and not (tmp_path / "episode.gif").exists()  # written as it played
    with Image.open(recorder.save()) as gif:
        assert gif.n_frames == HORIZON + 1
