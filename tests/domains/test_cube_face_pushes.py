"""CUBE pushes on a named face (EmCoop's ``push(block, steps)`` with a face): ``push_up(b)``,
``push_down(b)``, ``push_left(b)`` next to the goal-ward ``push(b)``: parsing, preconditions and
done-tests on hand-built views, the controller on the real env (a jammed block is pushed down by
two agents, then home), the event-to-skill inverse and the rendered descriptions."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from cube_views import cube_view as _view

from envs.cube import CubeAction, CubeBlock, CubeEnv, CubeEvent, CubeEventKind, CubeView, PushOutcome, PushRecord
from envs.cube.scenario import BlockSpec, Scenario
from proagent.agent.prompts import load_knowledge
from proagent.domains import get_domain
from proagent.domains.cube.skills import SKILLS, CubeController, block_ahead, cube_skill_book
from proagent.world.types import Skill, SkillParseError

DOMAIN = get_domain("cube")
SIDE_PUSHES = ("push_up", "push_down", "push_left")


def test_one_definition_per_skill_and_each_side_push_parses_back() -> None:
    names = [d.name for d in SKILLS]
    assert len(names) == len(set(names)) and all(n in names for n in ("push", *SIDE_PUSHES))
    book = cube_skill_book(3)
    skills = book.all_skills()
    for name in SIDE_PUSHES:
        assert [s for s in skills if s.name == name] == [Skill(name, b) for b in range(3)]
        assert all(book.parse(str(Skill(name, b))) == Skill(name, b) for b in range(3))
    assert book.parse("Plan: push_down( 1 )") == Skill("push_down", 1)
    assert book.parse("push-up(2)") == Skill("push_up", 2)
    assert book.parse("push(0)") == Skill("push", 0)  # the goal-ward push is unchanged
    for bad in ("push_down(3)", "push_right(0)", "push_left(x)"):
        with pytest.raises(SkillParseError):
            book.parse(bad)
    assert DOMAIN.capabilities.plans.target("push_down(2)") == "block 2" and DOMAIN.capabilities.plans.target("push_left(0)") == "block 0"
    assert DOMAIN.capabilities.plans.target("move_down(2)") is None


def test_side_push_preconditions_on_hand_built_states() -> None:
    book = cube_skill_book(5)
    # block 0 (w=2) at (2,2); block 1 (w=1) on the top row; block 2 (w=1) on the left column; block 3
    # (w=1) on the bottom row; block 4 delivered. Agents 0 and 1 stand on block 0's top face.
    blocks = (((2, 2), 2, False), ((5, 0), 1, False), ((0, 5), 1, False), ((4, 7), 1, False), ((6, 4), 1, True))
    state = _view(((2, 1), (3, 1), (6, 6)), blocks)
    assert book.failures(state, 0, Skill("push_down", 0)) == []  # on the face
    assert book.failures(state, 2, Skill("push_down", 0)) == [
        "every cell of block 0's top face is taken or outside the grid"
    ]
    assert book.failures(state, 2, Skill("push_up", 0)) == []  # the bottom face (2,4),(3,4) is free
    assert book.failures(state, 2, Skill("push_left", 0)) == []
    assert book.failures(state, 2, Skill("push_up", 1)) == ["block 1 cannot move up: the grid ends there"]
    assert book.failures(state, 2, Skill("push_left", 2)) == ["block 2 cannot move left: the grid ends there"]
    assert book.failures(state, 2, Skill("push_down", 3)) == ["block 3 cannot move down: the grid ends there"]
    assert book.failures(state, 2, Skill("push_left", 4)) == ["block 4 is already delivered"]
    assert book.failures(state, 2, Skill("push_up", 7)) == ["there is no block 7 (blocks are 0..4)"]
    # a walled-in agent: blocks left of and above the corner (7,7) of a grid
    walled = _view(((7, 7), (0, 0)), (((6, 7), 1, False), ((7, 6), 1, False), ((3, 3), 1, False)))
    assert book.failures(walled, 0, Skill("push_up", 2)) == ["no path leads to block 2's bottom face"]
    assert book.failures(walled, 1, Skill("push_left", 2)) == []


def test_a_face_off_the_grid_is_refused() -> None:
    book = cube_skill_book(1)
    # block 0 (w=1) on the top row: pushing it down needs its top face, above the grid
    state = _view(((0, 4), (1, 4)), (((3, 0), 1, False),))
    assert book.failures(state, 0, Skill("push_down", 0)) == [
        "every cell of block 0's top face is taken or outside the grid"
    ]


def test_side_push_done_tests() -> None:
    book = cube_skill_book(2)
    blocks = (((2, 3), 2, False), ((5, 5), 1, True))
    moved = (PushRecord(CubeAction.DOWN, 0, 2, 2, 2, PushOutcome.OK),)
    state = _view(((2, 2), (3, 2), (0, 0)), blocks, pushes=moved, agent_push=(0, 0, -1))
    assert book.is_done(state, 0, Skill("push_down", 0), 1) and book.is_done(state, 1, Skill("push_down", 0), 4)
    assert not book.is_done(state, 0, Skill("push_down", 0), 0)  # not before a step of its own
    assert not book.is_done(state, 2, Skill("push_down", 0), 3)  # it took no part
    assert not book.is_done(state, 0, Skill("push_up", 0), 1) and not book.is_done(state, 0, Skill("push", 0), 1)
    failed = (PushRecord(CubeAction.UP, 0, 2, 1, 1, PushOutcome.INSUFFICIENT_FORCE),)
    alone = _view(((2, 5), (0, 0), (1, 1)), blocks, pushes=failed, agent_push=(0, -1, -1))
    assert not book.is_done(alone, 0, Skill("push_up", 0), 2)
    for name in SIDE_PUSHES:  # a delivered block ends every push on it
        assert book.is_done(state, 2, Skill(name, 1), 1)


def test_the_controller_goes_to_the_named_face_and_pushes_that_way() -> None:
    book = cube_skill_book(1)
    expected = {"push_up": CubeAction.UP, "push_down": CubeAction.DOWN, "push_left": CubeAction.LEFT}
    block = CubeBlock(0, (3, 3), 2, False)
    for name, direction in expected.items():
        for face_cell in block.face_cells(direction):
            state = _view((face_cell, (0, 0)), (((3, 3), 2, False),))
            assert CubeController(book, 0).act(state, Skill(name, 0)) == direction
    # away from the face: the first step of a shortest walk (from (3,1) the top face is one step down)
    state = _view(((3, 1), (0, 0)), (((3, 3), 2, False),))
    assert CubeController(book, 0).act(state, Skill("push_down", 0)) == CubeAction.DOWN
    state = _view(((7, 3), (0, 0)), (((3, 3), 2, False),))
    assert CubeController(book, 0).act(state, Skill("push_left", 0)) == CubeAction.LEFT
    state = _view(((3, 7), (0, 0)), (((3, 3), 2, False),))
    assert CubeController(book, 0).act(state, Skill("push_up", 0)) == CubeAction.UP


def test_skill_of_event_names_the_push_by_its_direction() -> None:
    def event(kind: CubeEventKind, direction: str, block: int | None = 1) -> CubeEvent:
        return CubeEvent(3, 1, kind, (2, 2), direction, (2, 3), block, 1 if block is not None else None, 1)

    expected = {"up": "push_up", "down": "push_down", "left": "push_left", "right": "push"}
    for direction, name in expected.items():
        assert cube_skill_book(3).skill_of_event(event(CubeEventKind.PUSH_OK, direction)) == Skill(name, 1)
        assert cube_skill_book(3).skill_of_event(event(CubeEventKind.PUSH_OK, direction)) == Skill(name, 1)
        assert cube_skill_book(3).skill_of_event(event(CubeEventKind.PUSH_FAILED, direction)) is None
        assert cube_skill_book(3).skill_of_event(event(CubeEventKind.MOVE, direction, None)) is None
    assert cube_skill_book(3).skill_of_event(event(CubeEventKind.DELIVER, "right")) == Skill("push", 1)


def _play(env: CubeEnv, plans: list[list[Skill]], limit: int = 80) -> tuple[CubeView, list[tuple[int, Skill]], list]:
    """Each seat runs its scripted skills through the controller, one after another (the next on
    the done-test), with the Verificator's checks holding throughout; an empty script stays."""
    state = env.jit_reset(jax.random.PRNGKey(0))
    view = env.symbolic(state)
    book = DOMAIN.skill_book(view)
    gammas = [CubeController(book, seat) for seat in range(env.num_agents)]
    plans = [list(p) for p in plans]
    steps = [0] * env.num_agents
    finished: list[tuple[int, Skill]] = []
    events: list = []
    for _ in range(limit):
        if not any(plans):
            break
        for seat, plan in enumerate(plans):
            if plan:
                assert book.failures(view, seat, plan[0]) == [], (seat, plan[0], view)
        actions = [gammas[seat].act(view, plan[0]) if plan else int(CubeAction.STAY) for seat, plan in enumerate(plans)]
        state = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray(actions)).state
        after = env.symbolic(state)
        events += env.events(view, actions, after)
        view = after
        for seat, plan in enumerate(plans):
            if not plan:
                continue
            steps[seat] += 1
            if book.is_done(view, seat, plan[0], steps[seat]):
                finished.append((seat, plan.pop(0)))
                steps[seat] = 0
    assert not any(plans), plans
    return view, finished, events


def test_a_jammed_block_is_pushed_down_by_two_then_home_and_a_lone_block_left_up_and_home() -> None:
    # block 0 (w=2) at (2,2) has block 1 (w=1) at (5,2) in its way: one push down clears its lane
    scenario = Scenario("jam", (BlockSpec(2, 2, 2), BlockSpec(5, 2, 1)), ((0, 0), (0, 7)), grid_size=8, horizon=120)
    env = CubeEnv(scenario)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    assert block_ahead(first, first.blocks[0]) == 1
    # push(b) is done after one cell: from x=2 block 0 needs four pushes home, block 1 from x=4 three
    both = [Skill("push_down", 0), *[Skill("push", 0)] * 4]
    lone = [Skill("push_left", 1), Skill("push_up", 1), *[Skill("push", 1)] * 3]
    view, finished, events = _play(env, [both + lone, both])
    assert all(b.delivered for b in view.blocks) and view.score == 3
    assert finished[:2] == [(0, Skill("push_down", 0)), (1, Skill("push_down", 0))]
    assert [s for seat, s in finished if seat == 0] == both + lone
    pushes = [e for e in events if e.kind == CubeEventKind.PUSH_OK]
    assert [(e.direction, e.block) for e in pushes[:2]] == [("down", 0), ("down", 0)]  # both pushers, one push
    assert {cube_skill_book(3).skill_of_event(e) for e in pushes} == {
        Skill("push_down", 0),
        Skill("push", 0),
        Skill("push_left", 1),
        Skill("push_up", 1),
        Skill("push", 1),
    }
    # the side pushes moved block 1 one cell each: from x=5 left to 4, then from row 2 up to row 1
    assert [(e.direction, e.position) for e in pushes if e.block == 1][:2] == [("left", (6, 2)), ("up", (4, 3))]


def test_the_side_push_descriptions_render_with_the_env_settings() -> None:
    env = DOMAIN.make_env("easy_2a", 40)
    knowledge = load_knowledge(DOMAIN.knowledge_root, "easy_2a", 0, DOMAIN.knowledge_facts(env))
    goal = env.scenario.goal_column
    texts = {d.name: knowledge.render(d.description) for d in SKILLS}
    assert all("{{" not in t for t in texts.values())
    assert "bottom face" in texts["push_up"] and "top face" in texts["push_down"] and "right face" in texts["push_left"]
    assert f"goal column {goal}" in texts["push_left"] and f"goal column {goal}" in texts["push"]
    assert "bottom face" in knowledge.rules and "in a block's way" in knowledge.rules
