"""Other-Play trains in its own game (each seat through its own symmetry), so its training score can
overstate the plain game it is shipped for. After every call the run scores each learner in the
plain game too, on its own keys: the history keeps both, and training is the same with or without."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from proagent.training import checkpoint
from proagent.training.algorithms import SETTINGS, TRAINERS, AlgoConfig
from proagent.training.algorithms.other_play import PLAIN_SEED_OFFSET
from proagent.training.evaluate import make_learners_self_play
from proagent.training.networks import NetworkConfig

TINY = AlgoConfig(
    world="yokai",
    layout="9c_2p",
    total_steps=2 * 4 * 16,
    network=NetworkConfig(encoder="pointwise", pointwise=(8, 4), fc_dim=16, memory=0),
    ppo={"num_steps": 16, "update_epochs": 1, "num_minibatches": 2, "num_envs": 4},
    updates_per_call=1,
    eval_episodes=2,
)


def _history(out) -> list[dict]:
    return [json.loads(line) for line in (out / checkpoint.HISTORY_FILE).read_text().splitlines()]


@pytest.mark.slow  # two tiny Yōkai runs, ~30 s
def test_other_play_scores_the_plain_game_after_every_call_and_trains_the_same(tmp_path):
    said: list[str] = []
    scored = TRAINERS["op"](TINY, tmp_path / "scored", said.append, SETTINGS["op"](plain_episodes=6))
    unscored = TRAINERS["op"](TINY, tmp_path / "unscored", lambda _: None, SETTINGS["op"](plain_episodes=0))
    assert scored.params_sha256 == unscored.params_sha256  # the plain game's keys are not training's
    assert [r["score"] for r in _history(tmp_path / "scored")] == [r["score"] for r in _history(tmp_path / "unscored")]
    assert all("plain_score" not in r for r in _history(tmp_path / "unscored"))
    assert unscored.history.last_plain_score is None

    records = _history(tmp_path / "scored")
    assert len(records) == 2 and all(r["plain_score"] == r["plain_learner_scores"][0] for r in records)
    assert sum("plain game, 6 episodes a learner" in line for line in said) == 2
    # the last record is the saved policy's plain game on that call's deals
    params, _ = checkpoint.load(tmp_path / "scored")
    stacked = jax.tree.map(lambda x: jnp.asarray(x)[None], params)
    env = TINY.make_env()
    key = jax.random.fold_in(jax.random.PRNGKey(TINY.seed + PLAIN_SEED_OFFSET), 2)
    scores = np.asarray(make_learners_self_play(env, TINY.network, 6)(stacked, key))
    assert scores.shape == (1, 6) and (scores < 0).all()  # a Yōkai game that is not won scores below zero
    assert records[-1]["plain_score"] == round(float(scores.mean()), 3) == scored.history.last_plain_score
