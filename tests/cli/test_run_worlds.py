"""Every reader of a run folder reads the world the run played: `replay`, `report` and `analyze` on
a `play` and an `eval` run of each world (Overcooked and CUBE, ProAgent on the loopback model, short
horizons). A CUBE evaluation is drawn as CUBE (its config names the world under ``config``), not as
a kitchen; a play run has a report; `world_of` is the one function that says which world it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.runner.run_world import RunFolderError, world_of
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer
from tests.support.responders.overcooked import overcooked_answer

HORIZON = 12
WORLDS = {"overcooked": ("cramped_room", "greedy", overcooked_answer), "cube": ("easy_2a", "pusher", cube_answer)}
RUNS = [(world, kind) for world in WORLDS for kind in ("play", "eval")]
OWN_METRIC = {"overcooked": "soups", "cube": "blocks_delivered"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """A two-episode play run and a traced two-episode eval run of each world."""
    root = tmp_path_factory.mktemp("world-runs")
    out = {}
    for world, (layout, partner, responder) in WORLDS.items():
        with FakeChatServer(delay_s=0.0, responder=responder) as server:
            common = [*loopback_args(server.url), "--runs-dir", str(root), "--domain", world, "--horizon", str(HORIZON)]
            play = ["play", "--layout", layout, "--partner", partner, "--episodes", "2", "--live", "off", "--no-gif"]
            assert main([*play, *common, "--name", f"play-{world}"]) == 0
            evaluate = ["eval", "--layouts", layout, "--partners", partner, "--seats", "0", "--episodes", "2", "--trace"]
            assert main([*evaluate, *common, "--progress", "off", "--name", f"eval-{world}"]) == 0
        for kind in ("play", "eval"):
            (out[world, kind],) = root.glob(f"*-{kind}-{world}")
    return out


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_world_of_names_the_world_of_every_run(runs, world, kind):
    assert world_of(runs[world, kind]) == world


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_replay_draws_the_world_the_run_played(runs, world, kind, tmp_path):
    out = tmp_path / "replay.html"
    assert main(["replay", str(runs[world, kind]), "--export", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert f'"domain": "{world}"' in html
    if world == "cube":
        assert "soup" not in html, "a CUBE run drawn with the kitchen's script"


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_report_reads_the_run_and_names_its_world(runs, world, kind, capsys):
    run = runs[world, kind]
    assert main(["report", str(run), "--quiet"]) == 0
    table = (run / "table.md").read_text(encoding="utf-8")
    assert f"({world})" in table.splitlines()[0]
    assert OWN_METRIC[world] in (run / "metrics.md").read_text(encoding="utf-8")
    assert "2 episode(s)" in capsys.readouterr().err


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_analyze_reads_the_world_of_the_run(runs, world, kind, capsys):
    code = main(["analyze", str(runs[world, kind]), "--no-write"])
    captured = capsys.readouterr()
    if world == "overcooked":
        assert code == 0 and "2 of 2 episodes analyzed from the trace" in captured.out
    else:
        assert code == 2 and "domain 'cube' has no interdependence model" in captured.err and "Traceback" not in captured.err


def test_world_of_reads_older_and_training_folders(tmp_path):
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    assert world_of(legacy) == "overcooked", "runs from before worlds were all Overcooked"
    old_eval = tmp_path / "old-eval"
    old_eval.mkdir()
    (old_eval / "config.json").write_text(json.dumps({"config": {"domain": "cube", "name": "x"}, "layout_names": []}))
    assert world_of(old_eval) == "cube"
    train = tmp_path / "train"
    train.mkdir()
    (train / "manifest.json").write_text(json.dumps({"world": "overcooked_v2", "algo": "sp"}))
    assert world_of(train) == "overcooked_v2"


@pytest.mark.parametrize(
    "config",
    ['{"domain": 7}', '{"domain": ["cube"]}', '{"domain": "../../etc"}', '{"config": {"domain": {"x": 1}}}', "[1, 2]", "{nope", '"cube"'],
)
def test_world_of_refuses_what_is_not_a_world_name(tmp_path, config):
    (tmp_path / "config.json").write_text(config)
    with pytest.raises(RunFolderError, match="config.json"):
        world_of(tmp_path)


def test_a_replay_of_a_folder_naming_no_world_is_one_clear_error(runs, tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "trace.jsonl").write_bytes((runs["cube", "play"] / "trace.jsonl").read_bytes())
    (run / "config.json").write_text('{"domain": {"$ne": 1}}')
    assert main(["replay", str(run), "--export", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not name a world" in err
