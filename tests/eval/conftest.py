"""Fixtures for the evaluation tests: one World per session (its envs and their compiled batched
steps are reused by every test), a scripted or priced model factory, hermetic environment."""

from __future__ import annotations

import os

import pytest
from eval_helpers import PricedModel, respond

from proagent.eval.world import EnvCache, World
from tests.support.scripted import ScriptedModel


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_BASE", "_TOKEN")):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def env_cache() -> EnvCache:
    return EnvCache()


@pytest.fixture
def world(env_cache: EnvCache) -> World:
    """Scripted LLM for every proagent agent (a fresh model per spec; answers depend only on the prompt)."""
    return World(model_factory=lambda spec: ScriptedModel(respond=respond, name=f"scripted-{spec.llm}"), envs=env_cache)


@pytest.fixture
def priced_world(env_cache: EnvCache) -> World:
    return World(model_factory=lambda spec: PricedModel(0.01), envs=env_cache)
