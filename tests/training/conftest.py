"""One tiny training run (a few hundred env steps) shared by the training tests: compiling the PPO
update is most of its cost, so it is built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from training_helpers import tiny_config


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    from proagent.training.trainer import train
    from tests.support.xla import full_xla_optimisation

    out = tmp_path_factory.mktemp("ckpt") / "overcooked" / "cramped_room" / "sp"
    with full_xla_optimisation():  # test_ppo compares its parameters with a sha256 recorded from such a build
        result = train(tiny_config(), out, updates_per_call=1, eval_episodes=10, log=lambda _: None)
    return result, Path(out)


@pytest.fixture(scope="session")
def round_robin_program():
    """(env, init, update) of a 2-learner round robin on 8 envs, horizon 10: compiled once."""
    import envs
    from proagent.domains.overcooked.rl_spec import rl_env
    from proagent.training.algorithms.pairings import round_robin
    from proagent.training.config import PPOConfig
    from proagent.training.networks import NetworkConfig
    from proagent.training.population import Pairing, make_population_train

    env = rl_env(envs.make("cramped_room", envs.Dynamics(horizon=10)))
    config = PPOConfig(layout="cramped_room", num_envs=8, num_steps=20, update_epochs=1, num_minibatches=2,
                       total_steps=10_000, network=NetworkConfig(encoder="fast"))  # fmt: skip
    init, update = make_population_train(config, Pairing(num_learners=2, slots=round_robin(2, 8)), env)
    return env, init, update
