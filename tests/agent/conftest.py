"""Shared environments for the agent tests.

Jitting an env's step costs seconds, so every test gets its envs from one session-wide cache keyed
by layout: cramped_room is built and compiled once for the whole tests/agent run.
"""

from __future__ import annotations

import os

import jax
import pytest

import envs


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent tests never need a key; make sure none can leak into a record they write."""
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_BASE", "_TOKEN")):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def agent_env():
    """agent_env(layout) -> a shared OvercookedEnv (classic dynamics, built once per layout)."""
    cache: dict[str, envs.OvercookedEnv] = {}

    def _make(layout: str) -> envs.OvercookedEnv:
        if layout not in cache:
            cache[layout] = envs.make(layout)
        return cache[layout]

    return _make


@pytest.fixture(scope="module")
def cramped(agent_env) -> envs.OvercookedEnv:
    return agent_env("cramped_room")


@pytest.fixture(scope="session")
def first_kitchens(agent_env) -> dict[str, envs.KitchenState]:
    """The reset state of each classic layout (seed 0)."""
    return {name: agent_env(name).symbolic(agent_env(name).jit_reset(jax.random.PRNGKey(0))) for name in envs.CLASSIC_LAYOUTS}
