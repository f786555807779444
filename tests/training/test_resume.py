"""A killed self-play run continues from its last intermediate checkpoint and ends exactly where an
uninterrupted run ends."""

from __future__ import annotations

import json

import numpy as np
import pytest
from training_helpers import check_saved_partner, tiny_config

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


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_resumed_run_ends_with_the_uninterrupted_parameters(tmp_path):
    config = tiny_config().model_copy(update={"total_steps": 4 * 4 * 32})  # 4 calls of one update
    whole = run(config, tmp_path / "whole")
    with pytest.raises(Killed):
        run(config, tmp_path / "killed", log=kill_after(2))  # dies in the 3rd call, after 2 were checkpointed
    saved = list((tmp_path / "killed" / resume.RESUME_DIR).iterdir())
    assert [f.name for f in saved] == [resume.STATE_FILE]  # runner and progress in one atomic file
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
    restored, again, extras = resume.load(tmp_path, {"w": np.zeros(3, np.float32)}, config.model_dump(mode="json"))
    assert np.array_equal(restored["w"], tree["w"]) and again == progress and extras == {}
    with pytest.raises(ValueError, match="differs in: ent_coef"):
        resume.load(tmp_path, tree, config.model_copy(update={"ent_coef": 0.5}).model_dump(mode="json"))
    with pytest.raises(ValueError, match="expected float32"):
        resume.load(tmp_path, {"w": np.zeros(4, np.float32)}, config.model_dump(mode="json"))
    assert resume.load(tmp_path / "elsewhere", tree, config.model_dump(mode="json")) is None


def test_a_new_run_refuses_to_overwrite_an_interrupted_one(tmp_path):
    progress = resume.Progress(config=tiny_config().model_dump(mode="json"), calls_done=1, wall_s=1.0, history=[])
    resume.save(tmp_path, {"w": np.zeros(3, np.float32)}, progress)  # what a killed run leaves
    with pytest.raises(ValueError, match="add --resume to continue it"):
        run(tiny_config(), tmp_path)
    from proagent.training.algorithms import TRAINERS, AlgoConfig

    with pytest.raises(ValueError, match="add --resume to continue it"):
        TRAINERS["pbt"](AlgoConfig(), tmp_path)


def test_cli_refuses_resume_for_bc(capsys):
    from proagent.training.cli import main

    assert main(["--algo", "bc", "--layout", "cramped_room", "--resume"]) == 2
    assert "bc trains in seconds" in capsys.readouterr().err


POPULATION_RUNS = {  # algorithm -> (envs, calls, settings, calls before the kill)
    # PBT dies after call 3: its exploits at calls 4 and 6 need the restored RNG and window
    "pbt": (16, 8, {"exploit_every": 2}, 3),
    "fcp": (8, 4, {}, 3),  # dies in the best response: the finished pool stage is not trained again (MEP's path too)
    "cole": (8, 4, {"generations": 3}, 2),  # dies in generation 2: the payoffs so far come back
    "human_proxy": (8, 4, {"styles": ["deliverer", "onion_fetcher"]}, 1),
    # dies in its second iteration: the resumed run trains on the saved buffer, not a new one
    "state_aug": (8, 4, {"population": 2, "iterations": 2, "rollouts": 1, "every": 10}, 3),
}


@pytest.mark.slow
@pytest.mark.parametrize("algo", sorted(POPULATION_RUNS))
def test_a_killed_population_run_resumes_to_the_uninterrupted_result(algo, tmp_path, monkeypatch):
    """Also what a finished run of each algorithm promises (check_saved_partner), on the whole run."""
    from proagent import checkout
    from proagent.training.algorithms import SETTINGS, TRAINERS, AlgoConfig
    from proagent.training.resume import ResumePolicy

    num_envs, calls, settings, kill = POPULATION_RUNS[algo]
    ppo = {"num_envs": num_envs, "num_steps": 16, "update_epochs": 1, "num_minibatches": 2}
    config = AlgoConfig(
        layout="cramped_room", total_steps=calls * num_envs * 16, ppo=ppo, updates_per_call=1, eval_episodes=1,
        horizon=34, warm_start="sp",  # 34 steps: skilled members finish a soup in some episodes only, so PBT fitness differs
    )  # fmt: skip

    def train(out, log=lambda _: None, resume_run=False):
        policy = ResumePolicy(resume=resume_run, every_s=0.0)
        result = TRAINERS[algo](config, out / "agent", log, SETTINGS[algo](**settings), policy)
        return result if isinstance(result, list) else [result]

    started: list[str] = []  # HEAD moves on once training has begun (a commit beside the run)
    monkeypatch.setattr(checkout, "git_commit", lambda: "moved-on" if started else "at-start")
    whole = train(tmp_path / "whole", log=started.append)
    assert started and all(m.git_commit == "at-start" for m in whole)  # the code the run started with
    if algo in ("cole", "fcp", "pbt"):
        check_saved_partner(algo, tmp_path / "whole" / "agent", whole[0], eval_episodes=1)
    with pytest.raises(Killed):
        train(tmp_path / "killed", log=kill_after(kill))
    assert list((tmp_path / "killed" / "agent" / resume.RESUME_DIR).glob("*.pkl"))
    lines: list[str] = []
    resumed = train(tmp_path / "killed", log=lines.append, resume_run=True)
    assert any(line.startswith("resuming stage") for line in lines)
    total_calls = len(json_lines(tmp_path / "whole", whole[0]))
    assert len([line for line in lines if "sps" in line]) == total_calls - kill  # only the missing calls ran
    assert [m.params_sha256 for m in resumed] == [m.params_sha256 for m in whole]
    details = lambda manifests: [json.dumps(m.details, sort_keys=True) for m in manifests]  # nan-safe
    assert details(resumed) == details(whole)
    assert json.dumps(untimed(tmp_path / "killed", resumed[0])) == json.dumps(untimed(tmp_path / "whole", whole[0]))
    after_kill = untimed(tmp_path / "killed", resumed[0])[kill:]
    assert algo != "pbt" or any("exploit" in record for record in after_kill)
    assert not (tmp_path / "killed" / "agent" / resume.RESUME_DIR).exists()


def untimed(root, manifest) -> list[dict]:
    """The call records without their timings (the only fields a resumed run may change)."""
    records = [json.loads(line) for line in json_lines(root, manifest)]
    return [{k: v for k, v in record.items() if k not in ("wall_s", "sps")} for record in records]


def json_lines(root, manifest):
    """The call records of a saved agent's history.jsonl."""
    name = manifest.algorithm.removeprefix("human_proxy_")
    folder = root / "agent" if name == manifest.algorithm else root / f"agent_{name}"
    return (folder / "history.jsonl").read_text().splitlines()


def test_cli_refuses_to_start_a_population_run_over_an_interrupted_one(tmp_path, capsys):
    from proagent.training.cli import main

    (tmp_path / resume.RESUME_DIR).mkdir()
    (tmp_path / resume.RESUME_DIR / "pbt.pkl").write_bytes(b"left by a killed run")
    assert main(["--algo", "pbt", "--layout", "cramped_room", "--out", str(tmp_path), "--steps", "1e4"]) == 2
    assert "add --resume to continue it" in capsys.readouterr().err
