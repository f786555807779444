"""Every world implements the required interface and declares its optional capabilities as typed
records; the smallest world, built on the kit, stays small; worlds install through entry points."""

from __future__ import annotations

import asyncio
from importlib.metadata import EntryPoint
from pathlib import Path

import jax
import pytest
from lamps_world import DOMAIN as LAMPS

import proagent.domains as registry
from proagent.runner.episode import run_episode
from proagent.world.capabilities import Capabilities
from proagent.world.interface import REQUIRED_MEMBERS
from proagent.world.types import DomainInputError

LAMPS_FOLDER = Path(__file__).parent / "lamps_world"


WORLDS = registry.builtin_domain_names()  # whatever the registry has: a world added later is covered too
SHORT = 4  # steps of the contract's episodes


@pytest.mark.parametrize("name", WORLDS)
def test_builtin_worlds_have_every_required_member(name: str) -> None:
    world = registry.get_domain(name)
    assert [m for m in REQUIRED_MEMBERS if not hasattr(world, m)] == []
    assert isinstance(world.capabilities, Capabilities) and world.name == name


@pytest.mark.parametrize("name", WORLDS)
def test_every_world_plays_its_default_layout_with_its_default_partner_through_the_runner(name: str) -> None:
    """The contract end to end on the world's own default: env, skill book and controllers from the
    first state, the default partner in every seat, an episode through the core runner, records
    of the world's own metric names."""
    world = registry.get_domain(name)
    env = world.make_env(world.default_layout(), SHORT)
    partner = world.default_partner(env)
    assert partner in world.partner_names(env) or partner in world.partner_names(None)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    book = world.skill_book(first)
    assert book.all_skills() and all(book.parse(str(skill)) == skill for skill in book.all_skills())
    for seat in range(env.num_agents):
        controller = world.controller(book, seat, 0)
        assert controller.act(first, book.all_skills()[0]) in range(len(world.action_names))
    team = [world.make_partner(partner, env) for _ in range(env.num_agents)]
    record = asyncio.run(run_episode(env, world, team, 0, 3, 0))
    assert record.steps == SHORT and set(record.domain_metrics) <= set(world.metric_names)


def test_the_lamps_world_fits_in_300_lines() -> None:
    """All Python files of its folder, blank lines and docstrings included."""
    lines = sum(len(p.read_text().splitlines()) for p in LAMPS_FOLDER.rglob("*.py"))
    assert lines <= 300, lines
    assert [m for m in REQUIRED_MEMBERS if not hasattr(LAMPS, m)] == []


def test_capabilities_default_to_none() -> None:
    assert Capabilities().names() == []
    names = ["rendering", "process", "teams", "plans", "rl", "plan_effects", "scripted"]
    assert registry.get_domain("cube").capabilities.names() == names


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
    assert sorted(packages) == registry.builtin_domain_names() and len(packages) >= 2
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


DISPLAY = {"overcooked": "Overcooked", "cube": "CUBE", "yokai": "Yōkai", "macrafter": "MA-Crafter"}  # else its name


def test_the_guides_capability_table_names_each_world_that_has_each_capability() -> None:
    """docs/domains.md's table of capabilities: one row per capability, whose last column names
    exactly the registered worlds that have it (the docs describe the product as it is)."""
    from dataclasses import fields

    text = (Path(__file__).parents[2] / "docs" / "domains.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): line.split("|")[-2] for line in text.splitlines() if line.startswith("| `")}
    for capability in [f.name for f in fields(Capabilities)]:
        assert capability in rows, f"docs/domains.md has no row for {capability}"
        for name in WORLDS:
            has = getattr(registry.get_domain(name).capabilities, capability) is not None
            assert (DISPLAY.get(name, name) in rows[capability]) == has, (capability, name)


@pytest.mark.parametrize("name", WORLDS)
def test_one_entry_point_makes_every_worlds_env_by_world_and_layout(name: str) -> None:
    """`proagent.domains.make_env("world:layout")`, the documented entry point (docs/envs.md)."""
    world = registry.get_domain(name)
    env = registry.make_env(f"{name}:{world.default_layout()}", horizon=SHORT)
    assert env.name.startswith(world.default_layout()) and env.symbolic(env.jit_reset(jax.random.PRNGKey(0))).horizon == SHORT


def test_the_environment_guide_shows_the_entry_point_it_documents() -> None:
    """The guide's first example runs as written."""
    text = (Path(__file__).parents[2] / "docs" / "envs.md").read_text(encoding="utf-8")
    section = text[text.index("## One entry point for every world") :]
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 3)]
    exec(compile(code, "docs/envs.md", "exec"), {})  # noqa: S102 - the project's own guide, run as a reader would
