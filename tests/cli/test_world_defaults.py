"""Every world is equal in every front end: `play`, `eval`, `human` and `train` with no `--layout`
play the named world's own default layout (`Domain.default_layout`), never another world's.
Parametrised over the registry, so a world added later is covered without editing this file. Short
horizons: the defaults are under test, not the play."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any

import pytest

from proagent.cli import build_parser, human_cmd, main
from proagent.cli.requests import human_request
from proagent.domains import builtin_domain_names, get_domain
from proagent.web.human_request import HumanRequest
from tests.support.fake_server import FakeChatServer
from tests.support.http_calls import call
from tests.support.loopback import loopback_args
from tests.support.responders.yokai import plan_for as yokai_plan

WORLDS = builtin_domain_names()
HORIZON = "3"
PLANS = {"yokai": yokai_plan}  # a text-interface world's person: the plan it types from its facts


def _config(root: Path) -> dict[str, Any]:
    (run,) = root.iterdir()
    return json.loads((run / "config.json").read_text())


def _default_partner(world: str) -> str:
    domain = get_domain(world)
    return domain.default_partner(domain.make_env(domain.default_layout(), int(HORIZON)))


def test_overcooked_is_the_default_world_and_counter_circuit_its_layout() -> None:
    assert get_domain(None).default_layout() == "counter_circuit"


@pytest.mark.parametrize("world", WORLDS)
def test_every_world_names_one_of_its_own_layouts_as_its_default(world: str) -> None:
    domain = get_domain(world)
    assert domain.default_layout() in domain.layout_names() and domain.owns(domain.default_layout())


def test_layouts_lists_every_world_with_its_default_first(capsys) -> None:
    assert main(["layouts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for world in WORLDS:
        domain = get_domain(world)
        (line,) = [line for line in lines if line.startswith(f"{world}: ")]
        assert line.startswith(f"{world}: {domain.default_layout()} (default)") and domain.layout_names()[-1] in line
    assert main(["layouts", "cube:easy_2a"]) == 0 and "cube easy_2a: 2 agents" in capsys.readouterr().out


@pytest.mark.parametrize("world", WORLDS)
def test_play_without_a_layout_plays_the_worlds_default(world: str, tmp_path: Path) -> None:
    with FakeChatServer(delay_s=0.0) as server:  # wait(1) in every world: the front end is under test
        argv = ["play", "--domain", world, "--horizon", HORIZON, "--live", "off", "--no-gif", "--runs-dir", str(tmp_path)]
        argv += loopback_args(server.url)
        assert main(argv) == 0
    config = _config(tmp_path)
    assert config["layout"] == get_domain(world).default_layout() and config["domain"] == world
    assert config["command"] == shlex.join(["proagent", *argv])  # started from Python, recorded as typed


@pytest.mark.parametrize("world", WORLDS)
def test_eval_without_layouts_plays_the_worlds_default(world: str, tmp_path: Path) -> None:
    argv = ["eval", "--domain", world, "--agents", _default_partner(world), "--episodes", "1", "--horizon", HORIZON]
    assert main([*argv, "--seats", "0", "--runs-dir", str(tmp_path), "--progress", "off"]) == 0
    assert _config(tmp_path)["config"]["layouts"] == [get_domain(world).default_layout()]


class _Person:
    """Types the world's plan (`PLANS`) from the facts each view was rendered from."""

    def __init__(self, world: str) -> None:
        self.plan = PLANS[world]
        self.facts: dict[str, Any] = {}

    def show(self, view: str, facts: dict[str, Any]) -> None:
        self.facts = facts

    def say(self, line: str) -> None:
        raise AssertionError(f"the planned skill was refused: {line}")

    def ask(self) -> str:
        return self.plan(self.facts)


@pytest.mark.parametrize("world", WORLDS)
def test_human_without_a_layout_plays_the_worlds_default(world: str, tmp_path: Path) -> None:
    agent = _default_partner(world)
    argv = ["human", "--domain", world, "--agent", agent, "--horizon", HORIZON, "--fps", "60", "--runs-dir", str(tmp_path)]
    argv += ["--port", "0", "--no-browser", "--no-questionnaire"]
    request = human_cmd.settle(human_request(build_parser().parse_args(argv)))
    if request.interface == "text":
        from proagent.cli.human_text import run_text

        assert run_text(request, _Person(world)) == 0
    else:
        _play_web(request)
    config = _config(tmp_path)
    assert config["command"] == shlex.join(["proagent", *argv])
    # a world that sizes its teams plays its default with a pair (emcoop@2)
    assert config["layout"].startswith(get_domain(world).default_layout()) and config["human"]["human_seat"] == 0
    (run,) = tmp_path.iterdir()
    assert (run / "episodes.jsonl").read_text().strip()


def _play_web(request: HumanRequest) -> None:
    """The page's part: start the game and let it tick to its horizon with the person idle."""
    from proagent.web.human_session import build_human_session

    session = build_human_session(request)
    with session.serve(0) as server:
        call(server.url, "/api/start", {})
        deadline = time.monotonic() + 60
        while not session.game.done.wait(0.1):
            assert time.monotonic() < deadline, "the game did not reach its horizon"


def test_train_without_a_layout_trains_the_worlds_default(capsys) -> None:
    """Shipping over the default layout's shipped partner is refused before anything compiles, in
    a line that names the folder train settled on (partners/<world>/<its default layout>/sp)."""
    assert main(["train", "--algo", "sp", "--ship"]) == 2
    err = capsys.readouterr().err
    assert f"overcooked/{get_domain(None).default_layout()}/sp holds a checkpoint" in err, err
