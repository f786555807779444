"""Every front end passes one typed request down, built once from its flags (`play`, `human`,
`eval`, `train`): a request built in Python gets the command line's checks, a bad value is one line
naming the flag, and the study runner builds each round's `human` request instead of a namespace."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from proagent.builder import LLMFlags
from proagent.cli import build_parser, main
from proagent.cli.eval_request import EvalRequest
from proagent.cli.eval_run import AGENT_FLAGS, GRID_FLAGS, RUN_FLAGS
from proagent.cli.finetune_request import FinetuneRequest
from proagent.cli.requests import PlayRequest, human_request, llm_flags
from proagent.request import RequestError
from proagent.study.runner import DemographicsBody, StudyRunner
from proagent.training import cli as training_cli
from proagent.training.request import TrainRequest
from proagent.web.human_request import HumanRequest
from tests.study.study_run_helpers import short_study


def _one_line(make) -> str:
    with pytest.raises(RequestError) as caught:
        make()
    line = str(caught.value)
    assert "\n" not in line and len(line) < 300, line
    return line


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: PlayRequest.checked(episodes=0), "--episodes 0: input should be greater than or equal to 1"),
        (lambda: PlayRequest.checked(wall_clock_s=-1), "--wall-clock -1: input should be greater than or equal to 0"),
        (lambda: PlayRequest.checked(llm={"threads": 0}), "--threads 0: input should be greater than or equal to 1"),
        (lambda: HumanRequest.checked(fps=100), "--fps 100: input should be less than or equal to 60"),
        (lambda: HumanRequest.checked(mode="fast"), "--mode 'fast': input should be 'realtime' or 'turns'"),
        (lambda: EvalRequest.checked(concurrency=0), "--concurrency 0: input should be greater than or equal to 1"),
        (lambda: EvalRequest.checked(llm_timeout_s=0), "--llm-timeout 0: input should be greater than 0"),
        (lambda: TrainRequest.checked(steps=0), "--steps 0: input should be greater than or equal to 1"),
        (lambda: TrainRequest.checked(algo="dqn"), "--algo 'dqn': input should be 'sp'"),
        (lambda: FinetuneRequest.checked(runs=(), out="a"), "RUN (): tuple should have at least 1 item"),
        (lambda: FinetuneRequest.checked(runs=("r",), out="a", rank=0), "--rank 0: input should be greater than"),
        (lambda: FinetuneRequest.checked(runs=("r",), out="a", targets=("q", "x")), "--targets 'x': input should be"),
        (lambda: FinetuneRequest.checked(runs=("r",), out="a", min_score=float("nan")), "--min-score nan: input"),
        (lambda: FinetuneRequest.checked(runs=("r",), out="a", eval_seed=3), "--eval-seed only apply with --eval"),
    ],
)
def test_a_request_refuses_a_bad_value_in_one_line_naming_the_flag(make, expected: str) -> None:
    assert _one_line(make).startswith(expected)


def test_a_request_refuses_an_unknown_field_and_says_what_it_takes() -> None:
    line = _one_line(lambda: PlayRequest.checked(layuot="cramped_room"))
    assert line.startswith("PlayRequest has no 'layuot'; it takes layout, domain,")
    assert "fps" in _one_line(lambda: HumanRequest.checked(frames_per_second=5))


def test_a_bad_request_from_the_command_line_exits_2_before_any_run_folder(tmp_path: Path, capsys) -> None:
    """argparse takes --fps 100 (a positive number); the human request refuses it (at most 60)."""
    code = main(["human", "--fps", "100", "--agent", "greedy", "--runs-dir", str(tmp_path), "--no-browser"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == "error: --fps 100.0: input should be less than or equal to 60", err
    assert list(tmp_path.iterdir()) == []


def test_human_flags_make_the_request_field_by_field() -> None:
    argv = ["human", "--domain", "cube", "--human-seat", "1", "--until", "cubes=2", "--no-browser", "--no-questionnaire"]
    request = human_request(build_parser().parse_args([*argv, "--mode", "turns", "--llm", "scripted", "--port", "0"]))
    assert (request.domain, request.human_seat, request.until, request.mode, request.port) == ("cube", 1, ("cubes", 2), "turns", 0)
    assert not request.open_browser and not request.questionnaire and request.llm.llm == "scripted"
    assert request.layout is None and request.command_line[:2] == ("proagent", "human")


def test_the_llm_flags_are_read_whole_and_a_missing_one_is_an_error_not_a_default() -> None:
    args = build_parser().parse_args(["play", "--memory-k", "2", "--no-cache"])
    assert llm_flags(args) == LLMFlags(memory_k=2, no_cache=True, cache_dir=args.cache_dir)
    with pytest.raises(KeyError):
        llm_flags(argparse.Namespace(llm="embedded"))


def test_every_eval_flag_has_its_field_and_the_flags_make_the_request() -> None:
    assert set(GRID_FLAGS) | set(RUN_FLAGS) | set(AGENT_FLAGS) <= set(EvalRequest.model_fields)
    argv = ["eval", "--layouts", "a,b", "--memory-k", "3", "--no-cache", "--env", "x=1", "--llm-timeout", "5"]
    args = build_parser().parse_args(argv)
    request = EvalRequest.from_args(args, args.config, args.agents)
    assert (request.layouts, request.memory_k, request.cache, request.env, request.llm_timeout_s) == ("a,b", 3, False, ("x=1",), 5.0)
    assert request.config is None and request.command_line == ("proagent", *argv)


def test_the_train_request_defaults_are_the_flags_defaults() -> None:
    parser = argparse.ArgumentParser()
    training_cli.add_arguments(parser)
    assert TrainRequest.from_args(parser.parse_args([])) == TrainRequest()
    request = training_cli.parse_argv(["--algo", "fcp", "--set", "lr=0.1", "--algo-set", "pool_members=2", "--seeds", "1"])
    assert (request.algo, request.set, request.algo_set) == ("fcp", ("lr=0.1",), ("pool_members=2",))


def test_a_train_request_with_a_sweep_refuses_a_run_setting_given_beside_it(tmp_path: Path) -> None:
    refused = training_cli.refuse_flags(TrainRequest(sweep=tmp_path / "sweep.toml", layout="cramped_room", seed=2))
    assert refused is not None and refused.endswith("drop --layout, --seed")
    assert training_cli.refuse_flags(TrainRequest(sweep=tmp_path / "sweep.toml", resume=True)) is None


def test_the_study_runner_builds_each_rounds_human_request(tmp_path: Path) -> None:
    folder = short_study(tmp_path / "study")
    llm = LLMFlags(llm="scripted", memory_k=2)
    runner = StudyRunner(folder, llm, ("proagent", "study", "run", "here"))
    person = runner.new_participant("P001")
    runner.consent_given(person.id)
    runner.demographics(person.id, DemographicsBody())
    step = runner.step(person.id)
    request = runner.round_request(step)
    assert isinstance(request, HumanRequest) and (step.phase, step.round) == ("round", 0)
    assert (request.layout, request.agent, request.horizon, request.mode) == ("cramped_room", "greedy", 3, "turns")
    assert request.seed == runner.config.seed and not request.questionnaire and request.llm == llm
    live = runner.live_round(person.id, start=True)  # the round is built from that request
    config = json.loads((live.session.folder.path / "config.json").read_text())
    assert config["command"] == "proagent study run here" and config["horizon"] == 3 and config["partner"] == "human"
    runner.close()


def test_every_finetune_flag_has_its_field_and_the_defaults_are_the_flags_defaults(tmp_path: Path) -> None:
    args = build_parser().parse_args(["finetune", "run", "--out", str(tmp_path / "a")])
    assert set(vars(args)) - {"command", "run"} == set(FinetuneRequest.model_fields)
    words = ("proagent", "finetune", "run", "--out", str(tmp_path / "a"))
    expected = FinetuneRequest(runs=(Path("run"),), out=tmp_path / "a", command_line=words)
    assert FinetuneRequest.from_args(args) == expected
    argv = ["finetune", "r1", "r2", "--out", "o", "--targets", "q,v", "--min-score", "-3", "--balance", "worlds"]
    request = FinetuneRequest.from_args(build_parser().parse_args([*argv, "--eval", "--eval-seed", "7"]))
    assert (request.runs, request.targets, request.min_score) == ((Path("r1"), Path("r2")), ("q", "v"), -3.0)
    assert request.balance == "worlds"
    assert request.eval and request.eval_seed == 7 and request.command_line[:2] == ("proagent", "finetune")


def test_a_bad_finetune_request_from_the_command_line_exits_2_before_the_out_folder(tmp_path: Path, capsys) -> None:
    """argparse takes each flag alone; the request refuses --eval-* flags given without --eval."""
    out = tmp_path / "adapter"
    code = main(["finetune", str(tmp_path), "--out", str(out), "--eval-episodes", "3", "--eval-prompt", "compact"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0, err
    assert err.endswith("--eval-episodes, --eval-prompt only apply with --eval; add --eval or drop them")
    assert not out.exists()
