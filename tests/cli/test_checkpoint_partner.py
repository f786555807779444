"""Any checkpoint folder can be a partner, named by its path, in play and eval of every world whose
partners are trained checkpoints; the run records the sha256 of the params it played with. A path
that holds no checkpoint, or one trained in another world, is refused in one line before any run
folder exists."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.paths import partner_dir
from proagent.training import checkpoint
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(delay_s=0.0) as srv:
        yield srv


def _copy(world: str, layout: str, name: str, to: Path) -> Path:
    """A shipped checkpoint's two files, copied to a folder outside partners/."""
    to.mkdir(parents=True)
    for file in (checkpoint.PARAMS_FILE, checkpoint.MANIFEST_FILE):
        shutil.copy(partner_dir(world, layout, name) / file, to / file)
    return to


def _sha(folder: Path) -> str:
    return hashlib.sha256((folder / checkpoint.PARAMS_FILE).read_bytes()).hexdigest()


def _play(server: FakeChatServer, runs: Path, layout: str, partner: str) -> int:
    argv = ["play", "--layout", layout, "--partner", partner, "--horizon", "4", "--live", "off", "--no-gif"]
    return main([*argv, "--runs-dir", str(runs), *loopback_args(server.url)])


@pytest.mark.parametrize(("world", "layout", "name"), [("overcooked", "cramped_room", "sp"), ("cube", "easy_2a", "ippo_shared")])
def test_play_with_a_checkpoint_folder_records_its_sha256(server, tmp_path, world, layout, name):
    folder = _copy(world, layout, name, tmp_path / "ckpt" / "mine")
    runs = tmp_path / "runs"
    assert _play(server, runs, layout, str(folder)) == 0
    (run,) = runs.iterdir()
    config = json.loads((run / "config.json").read_text())
    assert config["partner"] == str(folder)
    assert config["partner_provenance"] == {str(folder): {"params_sha256": _sha(folder)}}
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["team"][1] == str(folder) and episode["steps"] == 4


def test_eval_with_a_checkpoint_folder_as_partner(tmp_path):
    folder = _copy("overcooked", "cramped_room", "sp", tmp_path / "ckpt")
    argv = ["eval", "--agents", "greedy", "--partners", str(folder), "--layouts", "cramped_room", "--seats", "0"]
    assert main([*argv, "--episodes", "1", "--horizon", "5", "--runs-dir", str(tmp_path / "runs"), "--progress", "off"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["partner"] == str(folder) and episode["steps"] == 5
    config = json.loads((run / "config.json").read_text())
    assert config["partner_provenance"][str(folder)]["cramped_room"] == {"params_sha256": _sha(folder)}


@pytest.mark.parametrize(
    ("layout", "source", "message"),
    [
        ("cramped_room", None, "no checkpoint folder: params.msgpack and manifest.json missing there"),
        ("cramped_room", ("cube", "easy_2a", "ippo_shared"), "was trained in cube; this game is overcooked cramped_room"),
        ("easy_2a", ("overcooked", "cramped_room", "sp"), "was trained in overcooked; this game is cube easy_2a"),
    ],
)
def test_a_path_without_a_fitting_checkpoint_is_one_line_and_no_run(server, tmp_path, capsys, layout, source, message):
    folder = _copy(*source, tmp_path / "ckpt") if source else tmp_path / "empty"
    runs = tmp_path / "runs"
    assert _play(server, runs, layout, str(folder) + "/") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err, err
    assert not runs.exists()


def test_a_checkpoint_folder_with_a_comma_or_plus_in_its_path_is_one_partner(tmp_path: Path) -> None:
    from proagent.builder import partner_names

    folder = _copy("cube", "easy_2a", "ippo_shared", tmp_path / "sweep+lr,1e-4")
    assert partner_names(str(folder), 3) == [str(folder)] * 2
    assert partner_names("pusher+lazy", 3) == ["pusher", "lazy"]  # a list of names still splits
