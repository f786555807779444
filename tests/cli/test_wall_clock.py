"""``--wall-clock S`` (EmCoop's MA-Crafter budget, for any world): an episode ends after the step in
which S seconds have passed since its first step, its record says so (``ended_by``) and the run's
config keeps the budget; a bad value is one line and exit 2 before any run folder. Time is a fake
clock advancing 10 s each time it is read (once as the episode starts, once after each step), so
nothing here depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.domains import get_domain
from proagent.runner import episode as episode_module
from proagent.runner.episode import WallClock, run_episode
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.macrafter import macrafter_answer


def ten_seconds_a_read() -> Callable[[], float]:
    """A clock that reads 0, 10, 20, ... seconds."""
    reads = iter(range(0, 10**6, 10))
    return lambda: float(next(reads))


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every episode's budget counted on its own `ten_seconds_a_read` clock (the front ends use
    the real one; asyncio's own clock is left alone)."""
    monkeypatch.setattr(episode_module, "WallClock", lambda budget, clock: WallClock(budget, ten_seconds_a_read()))


def _overcooked_episode(wall_clock_s: float | None, horizon: int = 20):
    domain = get_domain("overcooked")
    env = domain.make_env("cramped_room", horizon)
    team = [domain.make_partner("stay", env), domain.make_partner("stay", env)]
    clock = ten_seconds_a_read()
    return asyncio.run(run_episode(env, domain, team, 0, 0, 0, wall_clock_s=wall_clock_s, clock=clock))


def test_the_budget_ends_the_episode_after_the_step_in_which_it_ran_out() -> None:
    record = _overcooked_episode(25.0)  # 10 s after step 1, 20 after step 2, 30 after step 3
    assert (record.steps, record.ended_by) == (3, "wall_clock")


def test_the_budget_running_out_on_the_horizon_step_is_the_worlds_end() -> None:
    record = _overcooked_episode(30.0, horizon=3)
    assert (record.steps, record.ended_by) == (3, "world")


def test_without_a_budget_the_episode_plays_to_its_horizon() -> None:
    for budget in (None, 0.0):
        record = _overcooked_episode(budget, horizon=5)
        assert (record.steps, record.ended_by) == (5, "world")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(delay_s=0.0, responder=macrafter_answer) as fake:
        yield fake


def test_play_on_macrafter_ends_by_the_wall_clock_and_records_the_budget(
    server: FakeChatServer, tmp_path: Path, fake_time: None
) -> None:
    argv = ["play", "--domain", "macrafter", "--layout", "easy_2a", "--partner", "helper", "--horizon", "20"]
    flags = ["--wall-clock", "25", "--live", "off", "--no-gif", "--runs-dir", str(tmp_path)]
    assert main([*argv, *flags, *loopback_args(server.url)]) == 0
    (run,) = tmp_path.glob("*-play-easy_2a-helper")
    (line,) = (run / "episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert (record["steps"], record["ended_by"]) == (3, "wall_clock")
    assert json.loads((run / "config.json").read_text())["wall_clock_s"] == 25.0


def test_eval_ends_each_episode_by_the_wall_clock_and_records_the_budget(tmp_path: Path, fake_time: None) -> None:
    argv = ["eval", "--agents", "greedy", "--partners", "stay", "--layouts", "cramped_room", "--seats", "0,1"]
    flags = ["--episodes", "1", "--horizon", "20", "--wall-clock", "25", "--progress", "off", "--name", "clock"]
    assert main([*argv, *flags, "--runs-dir", str(tmp_path)]) == 0
    run = next(tmp_path.glob("*-clock"))
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all((r["steps"], r["ended_by"]) == (3, "wall_clock") for r in records)
    assert json.loads((run / "config.json").read_text())["config"]["wall_clock_s"] == 25.0


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon", "1e999", "²", "9" * 5000])
@pytest.mark.parametrize("command", ["play", "eval"])
def test_a_bad_budget_is_one_line_before_any_run_folder(command: str, value: str, tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    argv = [command, "--domain", "macrafter", "--wall-clock", value, "--runs-dir", str(runs)]
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and len(err.splitlines()) == 1 and "--wall-clock" in err and len(err) < 300, err
    assert not runs.exists()


@pytest.mark.parametrize(
    "line", ["wall_clock_s = nan", "wall_clock_s = -5", "wall_clock_s = true", 'wall_clock_s = "120"']
)
def test_an_eval_config_refuses_a_bad_budget(line: str, tmp_path: Path, capsys) -> None:
    config = tmp_path / "grid.toml"
    config.write_text(f'agents = [{{kind = "greedy"}}]\npartners = ["stay"]\nlayouts = ["cramped_room"]\n{line}\n')
    runs = tmp_path / "runs"
    assert main(["eval", str(config), "--runs-dir", str(runs)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "wall_clock_s" in err and not runs.exists(), err
