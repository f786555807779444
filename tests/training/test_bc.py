"""Behaviour cloning: a tiny run learns, is deterministic given its seed, saves a checkpoint that
plays either seat as an RLPartner; the shipped bc partners load by name."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import serialization
from training_helpers import overcooked_partner

import envs
from envs import Action
from proagent.domains.overcooked.human_data import bc_dataset
from proagent.domains.overcooked.partners.registry import make_partner
from proagent.training import cli
from proagent.training.bc import BCConfig, fit, train_bc
from proagent.training.partner import available_rl_partners

pytestmark = pytest.mark.slow  # trains behaviour cloning per module (~25 s on 2 cores); the slow CI step runs it

TINY = {"layout": "cramped_room", "epochs": 8, "batch_size": 64}


@pytest.fixture(scope="module")
def cramped():
    env = envs.make("cramped_room")
    return env, bc_dataset(env)


@pytest.fixture(scope="module")
def tiny_bc(tmp_path_factory, cramped):
    out = tmp_path_factory.mktemp("bc") / "overcooked" / "cramped_room" / "bc"
    manifest, result = train_bc(BCConfig(seed=1, **TINY), out, eval_episodes=4, log=lambda _: None)
    return manifest, result, out


def _blob(params) -> bytes:
    return serialization.msgpack_serialize(jax.tree.map(np.asarray, params))


def test_training_reduces_the_loss_and_beats_chance(tiny_bc):
    _, result, _ = tiny_bc
    h = result.history
    assert len(h.train_loss) == TINY["epochs"]
    assert h.train_loss[-1] < h.train_loss[0] - 0.3
    assert h.val_loss[result.best_epoch] == h.val_loss.min()
    assert h.train_accuracy[-1] > 0.5 and h.val_accuracy[result.best_epoch] > 1 / 5  # 5 non-STAY actions


def test_deterministic_given_the_seed(cramped, tiny_bc):
    _, (train, val) = cramped
    _, first, _ = tiny_bc  # seed 1
    again, other = fit(BCConfig(seed=1, **TINY), train, val), fit(BCConfig(seed=2, **TINY), train, val)
    assert _blob(again.params) == _blob(first.params)
    np.testing.assert_array_equal(again.history.val_loss, first.history.val_loss)
    assert _blob(other.params) != _blob(first.params)


def test_manifest_records_provenance_and_accuracy(tiny_bc):
    manifest, result, out = tiny_bc
    assert manifest.algorithm == "bc" and manifest.env_steps == 0 and manifest.layout == "cramped_room"
    assert "weak human model" in manifest.data["provenance"]
    assert manifest.data["trials"][0]["trial_id"] == 110
    assert manifest.data["train_samples"] == len(result.train) and manifest.data["val_samples"] == len(result.val)
    assert 0 < manifest.bc["val_accuracy"] <= 1 and manifest.self_play.episodes == 4
    assert (out / "params.msgpack").is_file()


def test_checkpoint_plays_either_seat_as_rl_partner(tiny_bc):
    _, _, out = tiny_bc
    env = envs.make("cramped_room")
    a, b = overcooked_partner(out, env.layout), overcooked_partner(out, env.layout)
    assert a.name == "bc"
    state = env.jit_reset(jax.random.PRNGKey(0))
    a.reset(0, 0)
    b.reset(1, 1)
    for t in range(10):
        kitchen = env.symbolic(state)
        joint = (a.policy(kitchen, state), b.policy(kitchen, state))
        assert all(isinstance(x, int) and x in set(map(int, Action)) for x in joint)
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.array([int(x) for x in joint])).state


def test_cli_trains_bc(tmp_path, capsys):
    out = tmp_path / "bc"
    argv = ["--algo", "bc", "--layout", "cramped_room", "--out", str(out), "--eval-episodes", "2", "--set", "epochs=2"]
    assert cli.main(argv) == 0
    assert "val accuracy" in capsys.readouterr().out and (out / "manifest.json").is_file()
    assert cli.main(["--algo", "bc", "--layout", "cramped_room", "--set", "no_such_field=1"]) == 2
    assert cli.main(["--algo", "bc", "--layout", "forced_coordination", "--out", str(tmp_path / "x")]) == 2


@pytest.mark.parametrize("layout", ["cramped_room", "asymmetric_advantages", "counter_circuit"])
def test_shipped_bc_partner_loads_by_name(layout):
    if "bc" not in available_rl_partners("overcooked", layout):
        pytest.skip(f"no shipped bc checkpoint for {layout}")
    partner = make_partner("bc", layout)
    m = partner.manifest
    assert m.algorithm == "bc" and m.layout == layout and "weak human model" in m.data["provenance"]
    assert m.bc["val_accuracy"] > m.bc["val_majority_baseline"]
    assert partner.act_batch(jnp.zeros((2, *m.obs_shape), jnp.int32), jax.random.PRNGKey(0)).shape == (2,)
