"""Environment feedback (``--feedback``): the world's snapshot rides on the leader's spoken messages,
labelled as environment feedback, only when the option is on; refused in one line for a world
without the capability; and MA-Crafter's snapshot says what the next task lacks."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import pytest

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, CrafterView
from proagent.contract import Observation
from proagent.domains.macrafter.feedback import next_resource, snapshot
from proagent.maeil import TopologyConfig
from proagent.maeil.loop import Maeil
from proagent.maeil.talk import FEEDBACK_LABEL
from tests.maeil.test_topologies import Quiet, Talker, _seated


@dataclass
class _State:
    step: int


def _truth(state: _State) -> str:
    return f"truth at step {state.step}"


def _run(topology: str, feedback: bool, steps: int = 2, leader: int = 0) -> tuple[Maeil, list[Talker], list[dict]]:
    team = _seated([Talker(), Talker(), Talker(), Quiet()])
    config = TopologyConfig(name=topology, feedback=feedback, leader=leader)  # type: ignore[arg-type]
    maeil = Maeil(config, team, None, _truth)
    records: list[dict] = []
    for step in range(steps):
        obs = [Observation(s, _State(step), None, None, 0.0) for s in range(len(team))]
        asyncio.run(maeil.step_actions(obs, [], _State(step)))
        records += maeil.log.drain()
    return maeil, team[:3], records


def _messages(records: list[dict]) -> list[dict]:
    return [r for r in records if r["kind"] == "message"]


def test_centralized_directives_carry_the_snapshot_when_on() -> None:
    _, team, records = _run("centralized", feedback=True)
    directives = [m for m in _messages(records) if m["type"] == "directive"]
    assert [m["t_env"] for m in directives] == [0, 1]
    assert [m["feedback"] for m in directives] == ["truth at step 0", "truth at step 1"]
    assert all(m["text"] == "hello" for m in directives)  # the leader's words stay its own
    assert all("feedback" not in m for m in _messages(records) if m["type"] != "directive")  # requests, acks
    seen = [m for t in team[1].talks for m in t.to_prompt()["messages"] if m["kind"] == "directive"]
    assert seen and all(m["text"] == f"hello {FEEDBACK_LABEL} truth at step {i}" for i, m in enumerate(seen))


def test_no_message_carries_it_when_off() -> None:
    for topology in ("centralized", "debate", "decentralized"):
        _, team, records = _run(topology, feedback=False)
        assert _messages(records) and all("feedback" not in m for m in _messages(records))
        prompts = [m["text"] for agent in team for t in agent.talks for m in t.to_prompt()["messages"]]
        assert prompts and not any(FEEDBACK_LABEL in text for text in prompts)


@pytest.mark.parametrize("topology", ["debate", "decentralized"])
def test_without_a_central_leader_the_leader_seat_broadcasts_carry_it(topology: str) -> None:
    _, _, records = _run(topology, feedback=True, leader=1)
    spoken = [m for m in _messages(records) if m["type"] == "say"]
    assert {m["from"] for m in spoken} == {0, 1, 2}
    assert all(("feedback" in m) == (m["from"] == 1) for m in spoken)


def test_individual_has_no_messages_to_carry_it() -> None:
    _, _, records = _run("individual", feedback=True)
    assert _messages(records) == []


def test_a_world_without_a_snapshot_is_refused() -> None:
    team = _seated([Talker(), Talker()])
    with pytest.raises(ValueError, match="no environment feedback"):
        Maeil(TopologyConfig(name="centralized", feedback=True), team, None, None)


def test_the_cli_refuses_feedback_in_one_line_for_a_world_without_it(capsys: pytest.CaptureFixture[str]) -> None:
    from proagent.cli import main

    code = main(
        [
            "play",
            "--domain",
            "cube",
            "--layout",
            "easy_2a",
            "--topology",
            "centralized",
            "--feedback",
            "--llm",
            "embedded",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["error: --feedback: the cube world gives no environment feedback snapshot"]


def test_eval_config_refuses_feedback_without_the_capability(tmp_path) -> None:
    from proagent.cli import main

    argv = [
        "eval",
        "--domain",
        "cube",
        "--layouts",
        "easy_2a",
        "--partners",
        "proagent",
        "--seats",
        "0",
        "--topologies",
        "centralized",
    ]
    code = main(
        [*argv, "--feedback", "--llm", "embedded", "--runs-dir", str(tmp_path), "--episodes", "1", "--progress", "off"]
    )
    assert code == 2 and not any(tmp_path.iterdir())


# MA-Crafter's snapshot, on hand-built views (the env's truth).


def _agent(seat: int, x: int, y: int, **items: int) -> AgentState:
    bag = {i.name.lower(): items.get(i.name.lower(), 0) for i in Item}
    return AgentState(seat, (x, y), (1, 0), True, False, bag, {"health": 9, "food": 9, "drink": 9, "energy": 9})


def _view(agents: list[AgentState], cells: dict[tuple[int, int], Material]) -> CrafterView:
    grid = tuple(tuple(int(cells.get((x, y), Material.GRASS)) for x in range(9)) for y in range(9))
    return CrafterView(7, 100, False, 0.0, 9, 9, grid, tuple(agents), settings=CrafterSettings(width=9, height=9))


def test_snapshot_names_the_missing_tool_station_and_ingredients() -> None:
    team = [
        _agent(0, 1, 1, wood_pickaxe=1, wood=1),
        _agent(1, 3, 4, wood_pickaxe=1, stone=2),
        _agent(2, 5, 4, wood_pickaxe=1),
    ]
    view = _view(team, {(4, 4): Material.IRON, (0, 0): Material.TABLE})
    assert next_resource(view, CrafterSettings()) == "iron"
    text = snapshot(view)
    assert text.startswith(
        "step 7; agent 0 at (1,1) holds wood_pickaxe, wood 1; agent 1 at (3,4) holds wood_pickaxe, stone 2;"
    )
    assert "table at (0,0); no furnace placed" in text
    assert "next task: collect iron (3 agents with stone_pickaxe within 1 acting in the same step)" in text
    assert "0 of 3 hold stone_pickaxe" in text and "nearest iron at (4,4), 2 agents within reach" in text
    assert (
        "to craft stone_pickaxe: table placed; no agent holds all of wood 1, stone 1"
        in text
    )
    assert "gather them in one bag (share)" in text
    stocked = replace(view, agents=(team[0], _agent(1, 3, 4, wood_pickaxe=1, stone=2, wood=1), team[2]))
    assert "agent 1 holds wood 1, stone 1" in snapshot(stocked)
    assert "\n" not in text


def test_snapshot_follows_the_tech_tree() -> None:
    bare = _view([_agent(0, 1, 1), _agent(1, 2, 2)], {(3, 3): Material.TREE})
    assert next_resource(bare, CrafterSettings()) == "stone"  # trees need no tool: equipped already
    text = snapshot(bare)
    assert "next task: collect stone" in text and "no stone left in the world" in text
    assert "to craft wood_pickaxe: place table" in text and "the team lacks wood 1" in text
    tools = {"wood_pickaxe": 1, "stone_pickaxe": 1, "iron_pickaxe": 1}
    small = _view([_agent(0, 1, 1, **tools), _agent(1, 2, 2, **tools)], {})
    assert "out of reach: the team has 2 agents" in snapshot(small)  # coal is fine, iron needs 3
    exact = _view([_agent(0, 1, 1, iron_pickaxe=1), _agent(1, 2, 2, iron_pickaxe=1)], {})
    assert next_resource(exact, CrafterSettings()) == "stone"  # an iron pickaxe does not mine stone
    down = replace(bare, agents=(replace(bare.agents[0], alive=False), bare.agents[1]))
    assert "agent 0 is down" in snapshot(down)


def test_the_replay_lanes_show_the_feedback_apart_from_the_text() -> None:
    from proagent.web.replay_lanes import episode_lanes

    _, _, records = _run("centralized", feedback=True, steps=1)
    lanes = episode_lanes([{"step": 0, "actions": ["noop"] * 4, "cognition": records}])
    assert lanes is not None
    (directive,) = [m for m in lanes["steps"][0]["messages"] if m["kind"] == "directive"]
    assert directive["text"] == "hello" and directive["feedback"] == "truth at step 0"
    assert all("feedback" not in m for m in lanes["steps"][0]["messages"] if m["kind"] != "directive")
