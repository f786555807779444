"""A killed self-play run continues from its last intermediate checkpoint and ends exactly where an
uninterrupted run ends."""

from __future__ import annotations

import numpy as np
import pytest
from training_helpers import tiny_config

from proagent.training import resume
from proagent.training.trainer import train


class Killed(Exception):
    pass


def kill_after(records: int):
    seen = []

    def log(line: str) -> None:
        if "steps" in line and "sps" in line:
            seen.append(line)
            if len(seen) > records:
                raise Killed

    return log


def run(config, out, log=lambda _: None, resume_run=False):
    return train(config, out, updates_per_call=1, eval_episodes=1, checkpoint_every_s=0.0, log=log, resume=resume_run)


def test_resumed_run_ends_with_the_uninterrupted_parameters(tmp_path):
    config = tiny_config().model_copy(update={"total_steps": 4 * 4 * 32})  # 4 calls of one update
    whole = run(config, tmp_path / "whole")
    with pytest.raises(Killed):
        run(config, tmp_path / "killed", log=kill_after(2))  # dies in the 3rd call, after 2 were checkpointed
    assert (tmp_path / "killed" / resume.RESUME_DIR / resume.PROGRESS_FILE).is_file()
    lines: list[str] = []
    resumed = run(config, tmp_path / "killed", log=lines.append, resume_run=True)
    assert lines[0].startswith("resuming") and "2 calls done" in lines[0]
    assert len([line for line in lines if "sps" in line]) == 2  # only the 2 missing calls ran
    assert whole.manifest.params_sha256 == resumed.manifest.params_sha256
    assert [r["env_steps"] for r in resumed.history] == [r["env_steps"] for r in whole.history]
    assert np.isclose(resumed.history[-1]["score"], whole.history[-1]["score"], equal_nan=True)
    assert not (tmp_path / "killed" / resume.RESUME_DIR).exists()  # a finished run leaves no resume state


def test_resume_refuses_a_run_with_another_config(tmp_path):
    config = tiny_config()
    progress = resume.Progress(config=config.model_dump(mode="json"), calls_done=1, wall_s=1.0, history=[])
    tree = {"w": np.arange(3, dtype=np.float32)}
    resume.save(tmp_path, tree, progress)
    restored, again = resume.load(tmp_path, {"w": np.zeros(3, np.float32)}, config)
    assert np.array_equal(restored["w"], tree["w"]) and again == progress
    with pytest.raises(ValueError, match="differs in: ent_coef"):
        resume.load(tmp_path, tree, config.model_copy(update={"ent_coef": 0.5}))
    with pytest.raises(ValueError, match="expected float32"):
        resume.load(tmp_path, {"w": np.zeros(4, np.float32)}, config)
    assert resume.load(tmp_path / "elsewhere", tree, config) is None


def test_cli_refuses_resume_for_population_methods(capsys):
    from proagent.training.cli import main

    assert main(["--algo", "cole", "--layout", "cramped_room", "--resume"]) == 2
    assert "sp only" in capsys.readouterr().err
