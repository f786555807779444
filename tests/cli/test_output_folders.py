"""Where a user's output goes: every front end (play, eval, human, train) takes `--runs-dir` for
the folder its run folders go in, and by default runs and the model-answer cache land in the
current folder (runs/, .cache/llm/), not in the installed package's tree; `--help` says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.cli import build_parser, main
from proagent.paths import PROJECT_ROOT
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args


@pytest.mark.parametrize("command", ["play", "eval", "human", "train"])
def test_every_front_end_takes_runs_dir_and_says_where_runs_go_by_default(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--runs-dir" in text and "in the current folder" in text


def test_a_play_run_and_the_cache_default_to_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert build_parser().parse_args(["play"]).cache_dir == tmp_path / ".cache" / "llm"
    assert build_parser().parse_args(["human"]).cache_dir == tmp_path / ".cache" / "llm"
    with FakeChatServer(delay_s=0.0) as server:
        argv = ["play", "--layout", "cramped_room", "--partner", "stay", "--horizon", "2", "--live", "off", "--no-gif"]
        assert main([*argv, *loopback_args(server.url), "--name", "here"]) == 0
    (run,) = (tmp_path / "runs").glob("*-here")
    assert json.loads((run / "config.json").read_text())["layout"] == "cramped_room"
    assert not list((PROJECT_ROOT / "runs").glob("*-here"))


def test_train_finds_and_refuses_by_runs_dir(tmp_path: Path, capsys) -> None:
    assert main(["train", "--algo", "sp", "--resume", "--runs-dir", str(tmp_path)]) == 2
    assert f"no interrupted sp run of overcooked counter_circuit under {tmp_path}" in capsys.readouterr().err
    assert main(["train", "--algo", "sp", "--ship", "--runs-dir", str(tmp_path)]) == 2
    assert "--runs-dir names another folder: give one of them" in capsys.readouterr().err
