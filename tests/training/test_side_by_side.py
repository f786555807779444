"""``proagent train --seeds N``: N seeds of sp or op trained side by side in one vmapped program,
each with a lone run's budget (updates, learning-rate schedule, shaping, minibatches per learner),
each saved in its own folder with its own seed and manifest; what cannot run is refused in one line
before any folder is made, and a killed run resumes to the uninterrupted result."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_rl_worlds import TINY_CUBE, Killed, _killed_after

from proagent.training import checkpoint, cli, run_config, run_folder, train_run
from proagent.training.algorithms import side_by_side
from proagent.training.algorithms.common import Stage
from proagent.training.population import Pairing
from proagent.training.ppo import lr_schedule, shaping_coef
from proagent.training.request import TrainRequest
from proagent.training.trainer import rounded_config

SEEDS_2 = [*TINY_CUBE, "--seeds", "2"]  # 2 learners x 4 envs x 16 steps, 4 calls of one update


@pytest.fixture
def folders(monkeypatch, tmp_path):
    """Runs land under tmp_path: runs/ (default run folders) and partners/ (--ship); lines in ``said``."""
    said: list[str] = []
    monkeypatch.setattr(train_run, "_say", said.append)
    monkeypatch.setattr(run_folder, "TRAIN_RUNS", tmp_path / "runs")
    monkeypatch.setattr(run_folder, "SHIP_ROOT", tmp_path / "partners")
    return said


def _shipped(tmp_path, name: str) -> checkpoint.Manifest:
    return checkpoint.load_manifest(tmp_path / "partners" / "cube" / "easy_2a" / name)


def test_two_sp_seeds_ship_as_two_partners_and_a_killed_run_resumes_to_them(folders, tmp_path, monkeypatch):
    assert cli.main([*SEEDS_2, "--ship"]) == 0
    manifests = [_shipped(tmp_path, name) for name in ("sp", "sp_s1")]
    assert [m.seed for m in manifests] == [0, 1] and [m.algorithm for m in manifests] == ["sp", "sp"]
    for k, m in enumerate(manifests):
        assert m.details["side_by_side"] == {"program_seed": 0, "seeds": 2, "member": k}
        assert m.self_play is not None and m.self_play.episodes == 2 and m.env_steps == 256
        assert m.train_config["seed"] == k and m.train_config["total_steps"] == 256  # one seed's recipe
        assert m.train_config["ppo"]["num_envs"] == 4 and m.history.records == 4 and m.history.env_steps == 256
    assert manifests[0].params_sha256 != manifests[1].params_sha256
    assert [line.split(" (")[0] for line in folders[-2:]] == ["saved sp seed 0", "saved sp seed 1"]
    assert not (tmp_path / "runs").exists()
    # killed after 2 of its 4 calls, the same command with --resume finds the first seed's folder
    monkeypatch.setattr(train_run, "_say", _killed_after(2))
    with pytest.raises(Killed):
        cli.main([*SEEDS_2, "--ship", "again"])
    assert (tmp_path / "partners" / "cube" / "easy_2a" / "again" / "resume").is_dir()
    monkeypatch.setattr(train_run, "_say", lambda line: None)
    assert cli.main([*SEEDS_2, "--ship", "again", "--resume"]) == 0
    resumed = [_shipped(tmp_path, name) for name in ("again", "again_s1")]
    assert [m.params_sha256 for m in resumed] == [m.params_sha256 for m in manifests]
    assert not (tmp_path / "partners" / "cube" / "easy_2a" / "again" / "resume").exists()


def _args(*argv: str) -> TrainRequest:
    return cli.parse_argv(list(argv))


@pytest.mark.parametrize("algo", ["sp", "op"])
def test_each_seed_gets_a_lone_runs_updates_schedule_shaping_and_minibatches(algo):
    recipe = ["--layout", "cramped_room", "--algo", algo, "--steps", "3e5", "--num-envs", "16", "--updates-per-call", "3"]
    one = _args(*recipe)
    per_seed = run_config.build_algo_config(_args(*recipe, "--seeds", "3"))
    env = per_seed.make_env()
    if algo == "sp":  # a lone sp run: trainer.py's loop over build_config
        lone = rounded_config(run_config.build_config(one), one.updates_per_call)
        assert per_seed.stage_config(per_seed.total_steps) == run_config.build_config(one)
    else:
        lone = Stage("op", per_seed.stage_config(per_seed.total_steps), Pairing.self_play(16), env, 3).config
    stage = side_by_side.program_stage(per_seed, algo, 3, env)
    program = stage.config
    assert program.num_envs == 48 and stage.pairing.num_learners == 3
    assert program.num_updates == lone.num_updates and stage.calls * 3 == lone.num_updates
    for update in range(0, lone.num_updates + 2, 7):
        assert float(shaping_coef(program, update)) == float(shaping_coef(lone, update))
    gradient_steps = lone.num_updates * lone.update_epochs * lone.num_minibatches
    for step in range(0, gradient_steps + 1, 13):
        assert float(lr_schedule(program)(step)) == float(lr_schedule(lone)(step))
    per_learner = stage.pairing.learner_actors().shape[1] * program.num_steps // program.num_minibatches
    assert per_learner == lone.num_envs * env.num_agents * lone.num_steps // lone.num_minibatches


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--algo", "fcp"], "fcp trains one seed a run"),
        (["--keep-best", "5"], "--keep-best keeps one run's best window"),
        (["--init-from", "somewhere"], "--init-from fine-tunes one checkpoint"),
        (["--warm-start", "sp"], "--warm-start is for population methods"),
        (["--eval-episodes", "0"], "--eval-episodes 1 or more"),
        (["--seed", "2147383647"], "the last seed would pass"),
    ],
)
def test_what_seeds_cannot_run_with_is_refused_in_one_line(extra, message, folders, tmp_path, capsys):
    assert cli.main([*SEEDS_2, "--ship", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.count("\n") == 0, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["out", "ship"])
def test_a_checkpoint_in_the_second_seeds_folder_refuses_the_run(where, folders, tmp_path, capsys):
    out = tmp_path / "out"
    second = out / "sp_s1" if where == "out" else tmp_path / "partners" / "cube" / "easy_2a" / "sp_s1"
    second.mkdir(parents=True)
    (second / checkpoint.MANIFEST_FILE).write_text("{}")
    target = ["--out", str(out)] if where == "out" else ["--ship"]
    assert cli.main([*SEEDS_2, *target]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{second} holds a checkpoint: add --overwrite" in err and err.count("\n") == 0, err
    assert sorted(p.name for p in second.parent.iterdir()) == ["sp_s1"] and not (tmp_path / "runs").exists()


def test_two_op_seeds_train_in_the_permuted_env_into_one_run_folder(folders, tmp_path):
    tiny_net = ["--encoder", "pointwise", "--network-set", "pointwise=[8,4]", "--network-set", "fc_dim=16",
                "--network-set", "memory=0"]  # fmt: skip
    ppo = ["--steps", "128", "--num-envs", "4", "--set", "num_steps=16", "--set", "update_epochs=1",
           "--set", "num_minibatches=2", "--updates-per-call", "1", "--eval-episodes", "1",
           "--algo-set", "plain_episodes=2"]  # fmt: skip
    argv = ["--layout", "grounded_coord_simple", "--algo", "op", "--seeds", "2", "--seed", "5", *tiny_net, *ppo]
    assert cli.main(argv) == 0
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.endswith("-overcooked-grounded_coord_simple-op-2seeds")  # --resume tells it from a lone op run
    assert sorted(p.name for p in run.iterdir()) == ["op_s5", "op_s6"]
    for k, name in enumerate(["op_s5", "op_s6"]):
        m = checkpoint.load_manifest(run / name)
        assert (m.algorithm, m.seed, m.env_steps, m.self_play.episodes) == ("op", 5 + k, 128, 1)
        assert m.details["permuted"] == [0, 1] and m.details["side_by_side"]["member"] == k
        records = [json.loads(line) for line in (run / name / checkpoint.HISTORY_FILE).read_text().splitlines()]
        assert [r["env_steps"] for r in records] == [64, 128]  # this seed's steps, not the program's
        assert all(np.isnan(r["score"]) or r["score"] == r["learner_scores"][k] for r in records)
        assert all(r["plain_score"] == r["plain_learner_scores"][k] for r in records)  # its own plain game
        assert m.history.last_plain_score == records[-1]["plain_score"]
