"""Every count, seed, horizon and size a user gives is bounded, and NaN or infinity is refused,
on the command line and in config files alike: exit 2 with one line, before any folder or work."""

from __future__ import annotations

from pathlib import Path

import pytest

from proagent.cli import main
from proagent.limits import MAX_GRID_EPISODES

GRID_TOO_LARGE = (
    "agents:\n  - kind: greedy\npartners: [greedy, stay, random]\nlayouts: [cramped_room, counter_circuit]\n"
    "seats: [0, 1]\nepisodes: 100000\n"
)


def _refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], words: str) -> None:
    runs = tmp_path / "runs"
    try:
        code = main([*argv, "--runs-dir", str(runs)] if argv[0] != "train" else argv)
    except SystemExit as exc:  # argparse's one-line error
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and words in err, err
    assert not runs.exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["eval", "--agents", "greedy", "--partners", "stay", "--episodes", "1000000000000"], "--episodes"),
        (["eval", "--agents", "greedy", "--partners", "stay", "--seed", "99999999999999999999999"], "--seed"),
        (["play", "--partner", "stay", "--horizon", "99999999999"], "--horizon"),
        (["play", "--partner", "stay", "--seed", "-1"], "--seed"),
        (["eval", "--agents", "greedy", "--partners", "stay", "--concurrency", "10000000"], "--concurrency"),
        (["play", "--partner", "stay", "--llm-timeout", "nan"], "--llm-timeout"),
        (["train", "--layout", "cramped_room", "--steps", "1e400"], "--steps"),
        (["train", "--layout", "cramped_room", "--steps", "nan"], "--steps"),
        (["train", "--layout", "cramped_room", "--seed", "99999999999"], "--seed"),
        (["train", "--layout", "cramped_room", "--seeds", "65"], "--seeds"),
        (["train", "--layout", "cramped_room", "--checkpoint-every", "-5"], "--checkpoint-every"),
    ],
)
def test_flags_out_of_bounds_exit_2_in_one_line(argv, words, tmp_path, capsys) -> None:
    _refused(argv, tmp_path, capsys, words)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("agents:\n  - kind: proagent\n    llm_timeout_s: .inf\npartners: [greedy]\nlayouts: [cramped_room]\n", "llm_timeout_s"),
        ("agents:\n  - kind: proagent\n    temperature: .nan\npartners: [greedy]\nlayouts: [cramped_room]\n", "temperature"),
        ("agents:\n  - kind: greedy\npartners: [greedy]\nlayouts: [cramped_room]\nmax_cost_usd: .inf\n", "max_cost_usd"),
        ("agents:\n  - kind: greedy\npartners: [greedy]\nlayouts: [cramped_room]\nepisodes: 1000000000000\n", "episodes"),
        (GRID_TOO_LARGE, f"at most {MAX_GRID_EPISODES:,}"),
    ],
)
def test_config_files_refuse_nan_infinity_and_unbounded_grids(body, words, tmp_path, capsys) -> None:
    cfg = tmp_path / "grid.yaml"
    cfg.write_text(body)
    _refused(["eval", str(cfg)], tmp_path, capsys, words)


@pytest.mark.parametrize("setting", ["soup_reward=nan", "soup_reward=inf", "soup_reward=-inf"])
def test_env_rules_refuse_nan_and_infinity(setting, tmp_path, capsys) -> None:
    _refused(["play", "--partner", "stay", "--env", setting], tmp_path, capsys, setting.split("=")[0])


@pytest.mark.parametrize("flag", ["--runs-dir", "--cache-dir"])
@pytest.mark.parametrize("command", ["play", "eval"])
def test_a_folder_flag_that_names_a_file_exits_2_in_one_line(flag, command, tmp_path, capsys) -> None:
    a_file = tmp_path / "not_a_folder"
    a_file.write_text("x")
    argv = [command, flag, str(a_file / "runs" if flag == "--cache-dir" else a_file)]
    with pytest.raises(SystemExit) as refused:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert refused.value.code == 2 and len(err.splitlines()) == 1 and flag in err and "is a file" in err


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("grid.toml", b"\xff\xfe agents", "not UTF-8"),
        ("grid.yaml", b"agents: [\n  - x", "not valid YAML at line 2"),
    ],
)
def test_unreadable_config_files_exit_2_in_one_line(name, content, words, tmp_path, capsys) -> None:
    cfg = tmp_path / name
    cfg.write_bytes(content)
    _refused(["eval", str(cfg)], tmp_path, capsys, words)


@pytest.mark.parametrize("layout", ["random:medium:-1", "random:medium:99999999999"])
def test_a_random_scenario_needs_a_seed_in_range(layout, tmp_path, capsys) -> None:
    _refused(["play", "--domain", "cube", "--layout", layout, "--partner", "pusher"], tmp_path, capsys, "bad random scenario")


def test_a_scenario_file_that_is_not_utf8_is_one_line(tmp_path, capsys) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_bytes(b"\xff\xfe grid")
    _refused(["play", "--domain", "cube", "--layout", str(scenario), "--partner", "pusher"], tmp_path, capsys, "not UTF-8")


def test_train_out_that_is_a_file_exits_2_before_training(tmp_path, capsys) -> None:
    a_file = tmp_path / "out"
    a_file.write_text("x")
    _refused(["train", "--layout", "cramped_room", "--steps", "1000", "--out", str(a_file)], tmp_path, capsys, "is a file")
    assert a_file.read_text() == "x"


def test_two_processes_cannot_write_one_run_folder(tmp_path, capsys) -> None:
    """While another process holds a run folder, a resume of it exits 2 in one line and plays nothing."""
    import subprocess
    import sys

    args = ["eval", "--agents", "greedy", "--partners", "stay", "--seats", "0", "--episodes", "1", "--horizon", "5"]
    assert main([*args, "--runs-dir", str(tmp_path / "runs"), "--progress", "off"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    before = (run / "episodes.jsonl").read_text()
    hold = (
        "import fcntl, sys, time\n"
        "from proagent.runner.run_folder import RunFolder\n"
        "folder = RunFolder(__import__('pathlib').Path(sys.argv[1])).lock()\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    other = subprocess.Popen([sys.executable, "-c", hold, str(run)], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        capsys.readouterr()
        assert main(["eval", "--resume", str(run), "--episodes", "2", "--progress", "off"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"in use by proagent process {other.pid}" in err
        assert (run / "episodes.jsonl").read_text() == before
    finally:
        other.kill()
        other.wait()
    assert main(["eval", "--resume", str(run), "--episodes", "2", "--progress", "off"]) == 0  # the lock died with it
