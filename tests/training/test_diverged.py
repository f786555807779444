"""A self-play run (`proagent train`, ``--algo sp``) whose losses turn NaN stops with one line and
exit 2, and what it saved before stays its last good checkpoint: nothing of the diverging call is
written. The divergence is the PPO program's own: from the second call on, the learner's learning
rate multiplier (``runner.hparams.lr_mult``, the state PBT's explore step sets) is 1e30, so the
next Adam step throws the parameters past float32's range and the losses computed from them are
not numbers."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import serialization

from proagent.cli import main
from proagent.training import checkpoint, resume, trainer
from proagent.training.population import learner_params

TINY_SP = [  # training_helpers.tiny_config as flags: 4 envs x 32 steps, one update per call, fast encoder
    "--layout", "cramped_room", "--encoder", "fast", "--num-envs", "4", "--steps", "384",
    "--set", "num_steps=32", "--set", "update_epochs=1", "--set", "num_minibatches=2",
    "--updates-per-call", "1", "--eval-episodes", "1", "--checkpoint-every", "0",
]  # fmt: skip


def files(folder: Path) -> dict[str, str]:
    """Every file in ``folder``: its sha256 by its relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()
    }


def params_sha256(params) -> str:
    """As `checkpoint.save` hashes params (its msgpack blob)."""
    blob = serialization.msgpack_serialize(jax.tree.map(np.asarray, serialization.to_state_dict(params)))
    return hashlib.sha256(blob).hexdigest()


def all_finite(tree) -> bool:
    leaves = [np.asarray(x) for x in jax.tree.leaves(tree)]
    return all(np.isfinite(x).all() for x in leaves if np.issubdtype(x.dtype, np.floating))


@pytest.mark.slow  # compiling the update and two real calls: 6-17 s on 2 shared CPU cores
def test_a_self_play_run_whose_loss_turns_nan_exits_2_in_one_line_keeping_its_last_good_checkpoint(
    tmp_path, capsys, monkeypatch
) -> None:
    out = tmp_path / "run"
    seen: dict = {"calls": 0}
    real = trainer.make_self_play

    def wild_from_the_second_call(config, env, updates_per_call=1):
        init, update = real(config, env, updates_per_call)

        def call(runner):
            seen["calls"] += 1
            if int(runner.update) >= 1:  # the runner has trained (and the loop has saved) once
                seen["good"] = learner_params(runner, 0)  # what the last good checkpoint must hold
                seen["on_disk"] = files(out)  # everything written before the diverging call
                lr_mult = jnp.full_like(runner.hparams.lr_mult, 1e30)
                runner = runner._replace(hparams=runner.hparams._replace(lr_mult=lr_mult))
            return update(runner)

        return init, call

    monkeypatch.setattr(trainer, "make_self_play", wild_from_the_second_call)
    code = main(["train", *TINY_SP, "--out", str(out)])
    stdout, err = capsys.readouterr()

    # (1) one line, exit 2, naming the divergence, the call it happened in and what is kept
    assert code == 2, (stdout, err)
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: training stopped at 256 env steps: ") and "became NaN or infinite" in err, err
    assert f"the last good checkpoint in {out} is kept" in err, err
    assert seen["calls"] == 2  # it stopped at the diverging call: the third never ran
    assert "self-play score" not in stdout and "saved" not in stdout  # no final evaluation or save

    # (2) the checkpoint on disk is the first call's, byte for byte: nothing of the second was written
    assert files(out) == seen["on_disk"]
    saved = [checkpoint.MANIFEST_FILE, checkpoint.PARAMS_FILE, f"{resume.RESUME_DIR}/{resume.STATE_FILE}"]
    assert sorted(seen["on_disk"]) == saved
    params, manifest = checkpoint.load(out)  # also checks the params file against the manifest's sha256
    assert manifest.env_steps == 128 and manifest.self_play is None  # one update of 4 envs x 32 steps, no final score
    assert manifest.params_sha256 == params_sha256(seen["good"])
    state = serialization.msgpack_restore((out / resume.RESUME_DIR / resume.STATE_FILE).read_bytes())
    progress = resume.Progress.model_validate(json.loads(state["progress"]))
    assert progress.calls_done == 1 and [r["env_steps"] for r in progress.history] == [128]
    assert all(math.isfinite(progress.history[0][k]) for k in ("value_loss", "actor_loss", "entropy", "approx_kl"))

    # (3) no NaN or infinite parameters anywhere on disk: neither the checkpoint nor the resume state's runner
    assert all_finite(seen["good"]) and all_finite(params)
    assert all_finite(serialization.msgpack_restore(state["runner"]))
