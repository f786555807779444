"""One tiny training run (a few hundred env steps) shared by the training tests: compiling the PPO
update is most of its cost, so it is built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from training_helpers import tiny_config


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    from proagent.training.trainer import train

    out = tmp_path_factory.mktemp("ckpt") / "cramped_room" / "sp"
    result = train(tiny_config(), out, updates_per_call=1, eval_episodes=10, log=lambda _: None)
    return result, Path(out)
