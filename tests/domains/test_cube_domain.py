"""CUBE as a domain shipped with the package: skills on hand-built states, the controller,
scripted teams through the core runner, and `play`/`eval` end to end on the loopback model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jax
import pytest
from cube_views import cube_view as _view

from proagent.agent.config import AgentConfig
from proagent.builder import check_llm_agent
from proagent.cli import main
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import builtin_domain_names, domain_for, get_domain
from proagent.domains.cube.skills import CubeController, cube_skill_book
from proagent.runner.episode import run_episode
from proagent.world.kit.pictures import save_gif
from proagent.world.types import DomainInputError, Skill, SkillParseError, TeammateView

DOMAIN = get_domain("cube")




def test_cube_is_built_in_and_owns_its_scenarios() -> None:
    assert "cube" in builtin_domain_names() and DOMAIN.name == "cube"
    assert DOMAIN.layout_names() == ["easy_2a", "hard_4a", "hard_8a", "medium_3a", "coop2"]
    assert DOMAIN.owns("random:easy:3") and not DOMAIN.owns("cramped_room")
    assert domain_for("medium_3a", None).name == "cube"
    with pytest.raises(DomainInputError, match="easy_2a"):
        DOMAIN.make_env("nowhere", 10)
    env = DOMAIN.make_env("random:easy:3", 12)
    assert env.scenario.horizon == 12 and env.num_agents == 2
    with pytest.raises(UnknownAgentError, match="lazy, pusher"):
        DOMAIN.make_partner("greedy", env)
    assert all(isinstance(DOMAIN.make_partner(n, env), Agent) for n in DOMAIN.partner_names(env))


def test_every_skill_parses_back_and_bad_texts_are_refused() -> None:
    book = cube_skill_book(3)
    skills = book.all_skills()
    assert Skill("push", 2) in skills and Skill("move_left", 5) in skills and Skill("wait", 1) in skills
    assert all(book.parse(str(s)) == s for s in skills)
    assert book.parse("Plan: push( 1 )") == Skill("push", 1)
    for bad in ("push(3)", "fly(1)", "wait(0)", "navigate(x)", "move_up(6)"):
        with pytest.raises(SkillParseError):
            book.parse(bad)


def test_preconditions_and_done_tests_on_hand_built_states() -> None:
    book = cube_skill_book(2)
    # block 0 (w=1) at (3,2); block 1 (w=2) at (4,5), delivered block would be ignored
    state = _view(((0, 2), (2, 2)), (((3, 2), 1, False), ((4, 5), 2, False)))
    assert book.failures(state, 0, Skill("push", 0)) == [
        "every cell of block 0's left face is taken or outside the grid"
    ]
    assert book.failures(state, 1, Skill("push", 0)) == []  # on the face: push may run
    assert book.failures(state, 1, Skill("navigate", 0)) == ["you are already on block 0's left face"]
    assert book.failures(state, 0, Skill("navigate", 1)) == []
    assert "a wall" in book.failures(state, 0, Skill("move_left", 1))[0]
    assert "block 0" in book.failures(state, 1, Skill("move_right", 1))[0]
    delivered = _view(((0, 2), (2, 2)), (((3, 2), 1, True), ((4, 5), 2, False)))
    assert book.failures(delivered, 0, Skill("push", 0)) == ["block 0 is already delivered"]
    assert book.is_done(delivered, 0, Skill("push", 0), 3) and book.is_done(state, 1, Skill("navigate", 0), 1)
    assert not book.is_done(state, 1, Skill("push", 0), 1) and book.is_done(state, 0, Skill("wait", 2), 2)
    assert book.undo_state(state, 1).own == (2, 2)


def test_the_controller_walks_around_a_block_to_its_face_and_pushes_it_home() -> None:
    env = DOMAIN.make_env("easy_2a", 100)
    state = env.jit_reset(jax.random.PRNGKey(0))
    book = DOMAIN.skill_book(env.symbolic(state))
    gammas = [CubeController(book, seat) for seat in range(2)]
    skill = Skill("push", 1)  # weight 2: both agents on the left face
    for _ in range(60):
        view = env.symbolic(state)
        if view.blocks[1].delivered:
            break
        actions = [g.act(view, skill) for g in gammas]
        state = env.jit_step(jax.random.PRNGKey(0), state, jax.numpy.asarray(actions)).state
    assert env.symbolic(state).blocks[1].delivered and env.symbolic(state).score == 2


@pytest.mark.parametrize(
    ("layout", "team"),
    [("easy_2a", "pusher,pusher"), ("easy_2a", "pusher,lazy"), ("medium_3a", "pusher,pusher,pusher")],
)
def test_scripted_teams_deliver_every_block_within_the_horizon(layout: str, team: str, tmp_path: Path) -> None:
    env = DOMAIN.make_env(layout, 150)
    agents = [DOMAIN.make_partner(name, env) for name in team.split(",")]
    states: list = []
    record = asyncio.run(run_episode(env, DOMAIN, agents, 0, 7, 0, states=states))
    assert record.domain_metrics["blocks_delivered"] == env.num_blocks and record.steps < 150
    assert record.events["deliver"][0] > 0 and record.int_total is None
    save_gif(env, DOMAIN.capabilities.rendering, states, tmp_path / "episode.gif")
    assert (tmp_path / "episode.gif").stat().st_size > 0
    assert "|" in DOMAIN.capabilities.rendering.text(env.symbolic(states[0]))
    json.dumps(DOMAIN.capabilities.rendering.frame_extras(env, env.symbolic(states[0]), env.symbolic(states[-1]), True))


@pytest.mark.parametrize("prompt", ["proagent", "compact"])
def test_prompt_sets_render_from_every_seat(prompt: str) -> None:
    for layout in ("easy_2a", "hard_4a", "random:medium:1"):
        env = DOMAIN.make_env(layout, 40)
        assert check_llm_agent(DOMAIN, env, AgentConfig(prompt=prompt), list(range(env.num_agents)), 0)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    facts = DOMAIN.ground(first, 0, DOMAIN.skill_book(first), [TeammateView(1, "push(0)", "right")], 0.0)
    json.dumps(facts)
    assert DOMAIN.memory_summary(facts).startswith("you at (")


def _llm(tmp_path: Path) -> list[str]:
    return ["--domain", "cube", "--llm", "scripted", "--runs-dir", str(tmp_path)]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_play_proagent_with_a_pusher_on_medium(tmp_path: Path) -> None:
    argv = ["play", "--layout", "medium_3a", "--partner", "pusher", "--horizon", "150", "--live", "off"]
    assert main([*argv, *_llm(tmp_path)]) == 0
    (run,) = tmp_path.glob("*-play-medium_3a-pusher")
    (episode,) = _lines(run / "episodes.jsonl")
    assert episode["team"] == ["proagent", "pusher", "pusher"] and episode["domain_metrics"]["blocks_delivered"] == 3
    assert episode["llm_calls"] > 0 and episode["fallbacks"] == 0 and (run / "episode.gif").stat().st_size > 0


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_eval_crosses_proagent_and_pusher_and_self_play_in_three_seats(tmp_path: Path) -> None:
    base = ["eval", "--episodes", "1", "--horizon", "100", "--progress", "off", *_llm(tmp_path)]
    grid = [
        "--agents",
        "proagent,pusher",
        "--partners",
        "pusher,proagent",
        "--layouts",
        "easy_2a,medium_3a",
        "--seats",
        "0,1",
    ]
    assert main([*base, "--name", "cross", *grid]) == 0
    records = _lines(next(tmp_path.glob("*-cross")) / "episodes.jsonl")
    assert len(records) == 16 and all(r["domain_metrics"]["blocks_delivered"] > 0 for r in records)
    self3 = ["--agents", "proagent", "--partners", "proagent", "--layouts", "medium_3a", "--seats", "0,1,2"]
    assert main([*base, "--name", "self3", *self3]) == 0
    records = _lines(next(tmp_path.glob("*-self3")) / "episodes.jsonl")
    assert sorted(r["seat"] for r in records) == [0, 1, 2]
    for r in records:
        assert r["team"] == ["proagent"] * 3 and r["domain_metrics"]["weight_delivered"] == 6
        assert all(stats["llm_calls"] > 0 and stats["fallbacks"] == 0 for stats in r["agent_stats"])


def test_a_block_behind_another_is_reported_and_pushed_last() -> None:
    from proagent.domains.cube.partners import push_order
    from proagent.domains.cube.skills import block_ahead

    env = DOMAIN.make_env("hard_4a", 200)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    assert block_ahead(first, first.blocks[3]) == 2 and block_ahead(first, first.blocks[2]) is None
    assert [b.index for b in push_order(first)] == [2, 1, 0, 3]
    facts = DOMAIN.ground(first, 0, DOMAIN.skill_book(first), [], 0.0)
    assert facts["blocks"][3]["ahead"] == 2
