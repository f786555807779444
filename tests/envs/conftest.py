"""Shared environments for the envs tests.

Every OvercookedEnv jit-compiles its step on first use (about a second on a laptop core), so tests
get their envs from one session-wide cache keyed by (layout, dynamics): the same kitchen with the
same rules is built and compiled once for the whole run.
"""

from __future__ import annotations

import pytest

import envs


@pytest.fixture(scope="session")
def make_env():
    """make_env(layout, **dynamics) -> a shared OvercookedEnv (built once per distinct arguments)."""
    cache: dict[tuple, envs.OvercookedEnv] = {}

    def _make(layout: str, **dynamics) -> envs.OvercookedEnv:
        key = (layout, tuple(sorted(dynamics.items())))
        if key not in cache:
            cache[key] = envs.make(layout, envs.Dynamics(**dynamics) if dynamics else None)
        return cache[key]

    return _make


@pytest.fixture(scope="module")
def cramped(make_env) -> envs.OvercookedEnv:
    return make_env("cramped_room")


@pytest.fixture(scope="module")
def circuit(make_env) -> envs.OvercookedEnv:
    return make_env("counter_circuit")
