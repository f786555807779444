"""The RL spec of a world by name: the one way the RL program reaches a world (its domain's ``rl``)."""

from __future__ import annotations

from proagent.world.rl_spec import RLSpec


class NoRLSpecError(ValueError):
    """The world provides no RL spec: its partners cannot be trained here."""


def rl_spec(world: str) -> RLSpec:
    """The spec of ``world`` (a built-in name or ``module:attribute``); a ValueError in one line
    for an unknown world or one without an RL spec."""
    from proagent.domains import get_domain  # a world's package is imported on use

    spec = get_domain(world).capabilities.rl
    if spec is None:
        raise NoRLSpecError(f"world {world!r} provides no RL spec: its partners cannot be trained with proagent train")
    return spec


def default_layout(world: str) -> str:
    """The layout ``world`` trains on when a config names none: the world's own default (the one
    every front end plays), so a config built in code for CUBE or Yōkai never falls back on an
    Overcooked kitchen. A ValueError in one line for an unknown world or one without named layouts."""
    from proagent.domains import get_domain  # a world's package is imported on use

    return get_domain(world).default_layout()


def with_world_layout(data: object) -> object:
    """A config's raw fields with ``layout`` filled in from its ``world`` when absent or None (a
    ``model_validator(mode="before")`` body shared by the training configs)."""
    if isinstance(data, dict) and data.get("layout") is None:
        return {**data, "layout": default_layout(data.get("world") or "overcooked")}
    return data
