"""Checkpoints: files and manifest fields, exact round trip, integrity check."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest
from training_helpers import overcooked_partner

import envs
from proagent.training import checkpoint
from proagent.training.networks import ActorCritic

MANIFEST_FIELDS = (
    "algorithm",
    "layout",
    "seed",
    "env_steps",
    "train_wall_time_s",
    "device",
    "encoder",
    "network",
    "obs_shape",
    "self_play",
    "git_commit",
    "params_sha256",
)


def test_files_and_manifest_fields(tiny_run):
    _, out = tiny_run
    assert (out / checkpoint.PARAMS_FILE).is_file() and (out / "history.jsonl").is_file()
    raw = json.loads((out / checkpoint.MANIFEST_FILE).read_text())
    for field in MANIFEST_FIELDS:
        assert field in raw, field
    assert raw["algorithm"] == "sp" and raw["layout"] == "cramped_room" and raw["encoder"] == "fast"
    assert set(raw["self_play"]) >= {"mean", "se", "episodes", "horizon"} and raw["self_play"]["horizon"] == 400
    assert (out / checkpoint.PARAMS_FILE).stat().st_size < 1_000_000


def test_round_trip_gives_identical_actions(tiny_run):
    _, out = tiny_run
    env = envs.make("cramped_room")
    params, manifest = checkpoint.load(out)
    obs = env.observe_batch(env.reset_batch(jax.random.split(jax.random.PRNGKey(3), 8))).reshape(16, 4, 5, 30)
    key = jax.random.PRNGKey(7)
    net = ActorCritic(manifest.network)
    partner = overcooked_partner(out, env.layout)
    again = checkpoint.load(out)[0]
    logits_a, logits_b = net.apply(params, obs)[0], net.apply(again, obs)[0]
    np.testing.assert_array_equal(logits_a, logits_b)
    expected = jax.random.categorical(key, logits_a)
    np.testing.assert_array_equal(partner.act_batch(obs, key), expected)


def test_tampered_params_are_refused(tiny_run, tmp_path):
    _, out = tiny_run
    copy = tmp_path / "sp"
    copy.mkdir()
    (copy / checkpoint.MANIFEST_FILE).write_bytes((out / checkpoint.MANIFEST_FILE).read_bytes())
    blob = bytearray((out / checkpoint.PARAMS_FILE).read_bytes())
    blob[-1] ^= 1
    (copy / checkpoint.PARAMS_FILE).write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="sha256"):
        checkpoint.load(copy)
