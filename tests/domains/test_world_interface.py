"""Every world implements the required interface and declares its optional capabilities as typed
records; the smallest world, built on the kit, stays small; worlds install through entry points."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from lamps_world import DOMAIN as LAMPS

import proagent.domains as registry
from proagent.world.capabilities import Capabilities
from proagent.world.interface import REQUIRED_MEMBERS
from proagent.world.types import DomainInputError

LAMPS_FOLDER = Path(__file__).parent / "lamps_world"


@pytest.mark.parametrize("name", ["overcooked", "cube", "yokai", "macrafter"])
def test_builtin_worlds_have_every_required_member(name: str) -> None:
    world = registry.get_domain(name)
    assert [m for m in REQUIRED_MEMBERS if not hasattr(world, m)] == []
    assert isinstance(world.capabilities, Capabilities) and world.capabilities.rendering is not None


def test_the_lamps_world_fits_in_300_lines() -> None:
    """All Python files of its folder, blank lines and docstrings included."""
    lines = sum(len(p.read_text().splitlines()) for p in LAMPS_FOLDER.rglob("*.py"))
    assert lines <= 300, lines
    assert [m for m in REQUIRED_MEMBERS if not hasattr(LAMPS, m)] == []


def test_capabilities_default_to_none() -> None:
    assert Capabilities().names() == []
    assert registry.get_domain("cube").capabilities.names() == ["rendering", "process", "teams", "plans", "rl", "plan_effects"]


def test_an_installed_world_registers_through_its_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """A package declaring ``[project.entry-points."proagent.worlds"] lamps = "lamps_world:DOMAIN"``
    is listed and found by name and by its layouts, without any edit of proagent."""
    installed = [EntryPoint("lamps", "lamps_world:DOMAIN", registry.WORLD_GROUP)]
    monkeypatch.setattr(registry, "entry_points", lambda group: installed if group == registry.WORLD_GROUP else [])
    assert "lamps" in registry.builtin_domain_names()
    assert registry.get_domain("lamps") is LAMPS and registry.domain_for("line3", None) is LAMPS
    assert registry.make_env("lamps:line").name == "line" and registry.make_env("lamps:line").horizon == LAMPS.horizon


def test_world_prefixed_layouts_reach_every_world() -> None:
    env = registry.make_env("cube:easy_2a")
    assert env.name == "easy_2a" and env.num_agents == 2
    yokai = registry.make_env("yokai:9c_2p")
    assert yokai.name == "9c_2p" and yokai.num_agents == 2 and registry.domain_for("16c_3p", None).name == "yokai"
    assert registry.layout_of("cube:easy_2a") == "easy_2a" and registry.layout_of("random:hard:1") == "random:hard:1"
    with pytest.raises(DomainInputError, match="unknown domain"):
        registry.get_domain("no_such_world")


def test_a_built_in_world_is_found_in_its_own_package() -> None:
    """Each ``proagent.domains.<name>`` declares WORLD and DRAWING: the registry reads them, so a new
    built-in world touches no file outside its own folders."""
    import importlib
    import pkgutil

    packages = [info.name for info in pkgutil.iter_modules(registry.__path__) if info.ispkg]
    assert sorted(packages) == registry.builtin_domain_names() == ["cube", "macrafter", "overcooked", "yokai"]
    for name in packages:
        package = importlib.import_module(f"proagent.domains.{name}")
        assert registry.get_domain(name).name == name and ":" in package.WORLD
        assert package.DRAWING is None or registry.replay_drawing_for(name).domain == name


def test_the_kit_counts_events_and_outcomes_by_default() -> None:
    """`WorldBase`'s defaults: events per kind and seat, and metrics that count their event kind."""
    from dataclasses import dataclass

    from proagent.world.kit.base import WorldBase

    @dataclass
    class Happened:
        agent: int
        kind: str

    class Tiny(WorldBase):
        name, event_kinds, metric_names = "tiny", ("light", "miss"), ("light",)

    events = [Happened(0, "light"), Happened(1, "light"), Happened(1, "miss")]
    assert Tiny().count_events(events, 2) == {"light": [1, 1], "miss": [0, 1]}
    assert Tiny().episode_metrics(events) == {"light": 2.0}
