"""COOP²'s paper task on the agent side: listed, resized by their spawn rule, planned over by the
skills (which respect the closed goal column), and played to a delivery by pushers and ProAgent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cube_views import cube_view as _view

from envs.cube import CubeAction, load_scenario
from proagent.cli import main
from proagent.domains import get_domain
from proagent.domains.cube.coop2_faces import face_tasks, step_counts
from proagent.domains.cube.domain import make_team_env
from proagent.domains.cube.skills import bfs_first_step, cube_skill_book, free_face_cells
from proagent.runner.episode import run_episode
from proagent.world.types import DomainInputError, Skill
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer

DOMAIN = get_domain("cube")


@pytest.fixture(scope="module")
def cube_server() -> Iterator[FakeChatServer]:
    with FakeChatServer(delay_s=0.0, responder=cube_answer) as server:
        yield server


def test_listed_owned_and_resized_by_their_spawn(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layouts", "--domain", "cube"]) == 0
    assert capsys.readouterr().out.strip().endswith("coop2")
    assert DOMAIN.owns("coop2") and DOMAIN.owns("coop2:7") and DOMAIN.owns("coop2:7@6")
    assert DOMAIN.default_horizon("coop2:7") == 50
    six = make_team_env("coop2:7", 50, 6)
    assert six.scenario == load_scenario("coop2:7@6") and six.num_blocks == 9
    assert make_team_env("coop2:7@4", 50, 3).scenario.agents == load_scenario("coop2:7").agents
    with pytest.raises(DomainInputError, match=r"^cube: bad scenario spec 'coop2:x'"):
        DOMAIN.make_env("coop2:x", 50)


def test_skills_keep_agents_out_of_the_goal_column() -> None:
    """On an 8x8 grid (goal column 7): a walk never crosses column 7, a block's right face there
    is no place to stand, and a step into it is refused with the reason."""
    book = cube_skill_book(2)
    # block 0 (w=1) at (6, 3): its right face is (7, 3), in the goal column
    state = _view(((6, 0), (6, 6)), (((6, 3), 1, False), ((2, 2), 1, False)))
    assert free_face_cells(state, 0, state.blocks[0], CubeAction.LEFT) == []
    assert book.failures(state, 0, Skill("push_left", 0)) == [
        "every cell of block 0's right face is taken, outside the grid or in the goal column"
    ]
    assert book.failures(state, 0, Skill("move_right", 1)) == [
        "the goal column 7 is right of you: only blocks enter it"
    ]
    # from (6, 2) to (6, 4) past blocks at (6, 3) and (4..5, 3..4): 4 steps through column 7 if it
    # were open, 10 steps round the left as it is
    walled = _view(((6, 2), (0, 7)), (((6, 3), 1, False), ((4, 3), 2, False)))
    assert bfs_first_step(walled, 0, {(6, 4)}) == (10, int(CubeAction.LEFT))


def test_pushers_deliver_on_the_paper_task() -> None:
    for spec in ("coop2:42", "coop2:42@6"):
        env = DOMAIN.make_env(spec, 50)
        agents = [DOMAIN.make_partner("pusher", env) for _ in range(env.num_agents)]
        record = asyncio.run(run_episode(env, DOMAIN, agents, 0, 7, 0))
        assert record.domain_metrics["blocks_delivered"] >= 1, spec


def test_play_proagent_with_pushers_on_the_paper_task(cube_server: FakeChatServer, tmp_path: Path) -> None:
    argv = ["play", "--domain", "cube", "--layout", "coop2:42", "--partner", "pusher", "--live", "off"]
    assert main([*argv, *loopback_args(cube_server.url), "--runs-dir", str(tmp_path)]) == 0
    (run,) = tmp_path.glob("*-play-coop2*")
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["team"] == ["proagent", "pusher", "pusher"] and episode["steps"] <= 50
    assert episode["domain_metrics"]["blocks_delivered"] >= 1 and episode["fallbacks"] == 0


def test_their_face_tasks_and_step_counts_on_a_designed_state() -> None:
    """Two agents on block 0's left face (one pushing), one under it pushing up, block 2 delivered:
    every face of the two blocks left is a task; counts as COOP²'s tracker and adapter take them."""
    after = _view(((2, 3), (2, 4), (3, 5)), (((3, 3), 2, False), ((6, 6), 1, False), ((1, 0), 1, True)))
    actions = [int(CubeAction.RIGHT), int(CubeAction.STAY), int(CubeAction.UP)]
    tasks = face_tasks(after, actions)
    assert len(tasks) == 8 and {t.block for t in tasks} == {0, 1}
    by = {(t.block, t.direction): t for t in tasks}
    right, up = by[(0, CubeAction.RIGHT)], by[(0, CubeAction.UP)]
    assert (right.adjacent, right.pushing, right.spatial, right.temporal) == ((0, 1), (0,), True, False)
    assert (up.adjacent, up.pushing, up.participation_ratio) == ((2,), (2,), 0.5)
    assert step_counts(tasks) == {
        "task_set_size": 8.0,
        "spatial_satisfied": 2.0,
        "temporal_satisfied": 2.0,
        "dependency_satisfied": 8.0,
        "participation_satisfied": 1.0,
        "total_satisfied": 1.0,
        "participation_ratio_avg": 1.5 / 8,
    }
    # With the planners' intents, pushing is what each means, wherever it stands.
    intents = {0: (0, CubeAction.RIGHT), 1: (0, CubeAction.RIGHT), 2: (1, CubeAction.RIGHT)}
    meant = {(t.block, t.direction): t for t in face_tasks(after, actions, intents)}
    assert meant[(0, CubeAction.RIGHT)].temporal and meant[(1, CubeAction.RIGHT)].pushing == (2,)
    assert meant[(0, CubeAction.UP)].pushing == ()
