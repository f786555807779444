"""Training settings are read field by field before anything runs: a NaN or infinite learning rate,
a value outside its field's range, another script's digits or an unknown key is one line and exit 2,
before any output folder. A run whose losses become NaN stops with one line, and what it saved before
stays its last good state (nothing of the bad call is written)."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from proagent.text_values import typed_values
from proagent.training import cli
from proagent.training.config import PPOConfig
from proagent.training.diverged import TrainingDiverged, check_losses


def _refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> str:
    out = tmp_path / "out"
    try:
        code = cli.main([*argv, "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and all(w in err for w in words), err
    assert not out.exists()
    return err


@pytest.mark.parametrize(
    ("setting", "words"),
    [("lr=nan", "--set lr: must be a number from 0"), ("lr=inf", "--set lr"), ("lr=-inf", "--set lr"),
     ("lr=-1", "--set lr"), ("lr=1e400", "--set lr"), ("gamma=2", "--set gamma"), ("ent_coef=-1", "--set ent_coef"),
     ("num_envs=1e12", "--set num_envs"), ("num_envs=٣", "--set num_envs"), ("update_epochs=" + "9" * 5000, "--set update_epochs"),
     ("max_grad_norm=nan", "--set max_grad_norm")],
)  # fmt: skip
def test_train_refuses_nan_infinite_and_out_of_range_settings_in_one_line(setting, words, tmp_path, capsys) -> None:
    err = _refused(["--layout", "cramped_room", "--set", setting], tmp_path, capsys, words)
    assert len(err) < 300


def test_an_unknown_setting_is_one_line_not_a_validation_block(tmp_path, capsys) -> None:
    _refused(["--layout", "cramped_room", "--set", "no_such=1"], tmp_path, capsys, "--set no_such: no such setting", "lr")


def test_a_setting_a_flag_owns_names_the_flag(tmp_path, capsys) -> None:
    _refused(["--layout", "cramped_room", "--set", "seed=3"], tmp_path, capsys, "--set seed: set it with --seed")


@pytest.mark.parametrize(
    ("argv", "words"),
    [(["--algo", "mep", "--set", "lr=nan"], "--set lr"), (["--algo", "fcp", "--algo-set", "pool_share=nan"], "--algo-set pool_share"),
     (["--algo", "bc", "--set", "lr=inf"], "--set lr"), (["--network-set", "fc_dim=٣"], "--network-set fc_dim")],
)  # fmt: skip
def test_population_bc_and_network_settings_are_read_the_same_way(argv, words, tmp_path, capsys) -> None:
    _refused(["--layout", "cramped_room", *argv], tmp_path, capsys, words)


def test_settings_are_typed_by_their_fields() -> None:
    values = typed_values(PPOConfig, {"lr": "1e-3", "num_envs": "16", "anneal_lr": "false"}, "--set")
    assert values == {"lr": 1e-3, "num_envs": 16, "anneal_lr": "false"}
    assert PPOConfig(layout="cramped_room", **values).anneal_lr is False


def test_the_config_itself_refuses_nan() -> None:
    with pytest.raises(ValueError, match="lr"):
        PPOConfig(layout="cramped_room", lr=math.nan)


def test_finite_losses_pass_and_nan_ones_stop_naming_what_is_kept(tmp_path: Path) -> None:
    check_losses({"env_steps": 10, "value_loss": 0.5, "entropy": 1.0}, tmp_path, ("manifest.json",))
    with pytest.raises(TrainingDiverged, match="no checkpoint was saved"):
        check_losses({"env_steps": 10, "value_loss": math.nan}, tmp_path, ("manifest.json",))
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(TrainingDiverged) as info:
        check_losses({"env_steps": 4096, "value_loss": 1.0, "approx_kl": math.inf}, tmp_path, ("manifest.json",))
    message = str(info.value)
    assert "4,096 env steps" in message and "approx_kl" in message and "last good checkpoint" in message
    assert "\n" not in message


def test_a_population_stage_stops_at_a_nan_loss_keeping_its_last_good_save(tmp_path: Path) -> None:
    from proagent.training.algorithms.common import record_history, run_stage
    from proagent.training.resume import RESUME_DIR, ResumePolicy, StageSaves

    records = [{"env_steps": 8, "value_loss": 0.5}, {"env_steps": 16, "value_loss": math.nan}, {"env_steps": 24}]
    stage = SimpleNamespace(name="pop", calls=3, call=lambda runner, log: ({"w": runner["w"] + 1}, None, records.pop(0)))
    saves = StageSaves(tmp_path, {"run": 1}, ResumePolicy(every_s=0.0))
    state: dict = {"history": []}
    with pytest.raises(TrainingDiverged, match="last good checkpoint"):
        run_stage(stage, {"w": np.zeros(2)}, state, record_history, saves, lambda line: None)
    kept = StageSaves(tmp_path, {"run": 1}, ResumePolicy(resume=True)).restore("pop", {"w": np.zeros(2)})
    assert kept is not None and kept[2] == 1 and np.all(kept[0]["w"] == 1)  # the first call's save, untouched
    assert (tmp_path / RESUME_DIR).is_dir() and len(state["history"]) == 1


def test_a_diverged_run_exits_2_in_one_line(tmp_path, capsys, monkeypatch) -> None:
    from proagent.training import train_run

    def diverged(*args, **kwargs):
        raise TrainingDiverged("training stopped at 8 env steps: value_loss became NaN or infinite")

    monkeypatch.setattr(train_run, "_train", diverged)
    code = cli.main(["--layout", "cramped_room", "--steps", "1000", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == "error: training stopped at 8 env steps: value_loss became NaN or infinite"


def test_a_sweep_with_a_nan_learning_rate_is_one_line_before_any_folder(tmp_path, capsys) -> None:
    sweep, root = tmp_path / "sweep.toml", tmp_path / "sweeps"
    sweep.write_text(
        f'output_root = "{root}"\nmethods = ["sp"]\nlayouts = ["cramped_room"]\nseeds = [0]\n'
        "[train]\ntotal_steps = 1000\nppo = { lr = nan }\n",
        encoding="utf-8",
    )
    assert cli.main(["--sweep", str(sweep)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "lr" in err and not root.exists(), err
