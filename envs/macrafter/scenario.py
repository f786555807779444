"""MA-Crafter scenarios: the rules' settings, the seed, the target resource, the starts and the map.

A scenario is validated when it is built, so an invalid one never reaches the env: every problem
is one line (`ScenarioError`). Scenarios come by name: ``emcoop`` is EmCoop's world (64x64,
generated anew from each reset's key by `envs.macrafter.terrain`, agents spawned on random
grass; ``emcoop:<seed>`` the world of that seed whatever the key); ``easy_2a``, ``medium_3a``, ``hard_4a``
are our smaller fixed maps generated from their seeds (`envs.macrafter.worldgen`, which guarantees what the target
needs near a compact start); ``random:<easy|medium|hard>:<seed>`` draws more of those. Any of them takes ``@<n>`` for a
team of n (`with_agents`; EmCoop's grid plays 3 and 6); `with_settings` applies ``--env KEY=VALUE``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from envs.macrafter.rules import MAX_AGENTS, MIN_AGENTS, WALKABLE, Material
from envs.macrafter.settings import CrafterSettings, RecipeRule, ResourceRule
from envs.macrafter.worldgen import NEEDS, generate
from proagent.bounded import NumberError, read_int, shown, small_whole
from proagent.text_values import field_value

Pos = tuple[int, int]  # (x, y), y grows downwards
TARGETS: tuple[str, ...] = tuple(NEEDS)
MAX_SEED = 2**31 - 1  # a random world's seed: what the generator's int32 key takes


class ScenarioError(ValueError):
    """An invalid or unknown scenario or setting; the message is one line."""


@dataclass(frozen=True)
class Scenario:
    """One MA-Crafter task. ``grid[y][x]`` is a `Material` value; ``max_agents`` pads the agent
    arrays (None: the team size) so scenarios of different team sizes can share a compiled step."""

    name: str
    difficulty: str | None
    settings: CrafterSettings
    seed: int | None
    target: str  # the resource the team is asked to collect (tree, stone, coal, iron, diamond)
    agents: tuple[Pos, ...]
    grid: tuple[tuple[int, ...], ...]
    max_agents: int | None = None
    stamped: int = field(default=0, compare=False)  # resource cells the generator had to add
    cows: tuple[Pos, ...] = ()  # cows at the start (objects on walkable ground), created first
    generated: bool = False  # the world (map, cows, starts) is drawn from each reset's key

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", tuple((int(x), int(y)) for x, y in self.agents))
        object.__setattr__(self, "cows", tuple((int(x), int(y)) for x, y in self.cows))
        object.__setattr__(self, "grid", tuple(tuple(int(m) for m in row) for row in self.grid))
        validate(self)

    @property
    def num_agents(self) -> int:
        return self.settings.num_agents if self.generated else len(self.agents)

    @property
    def agent_capacity(self) -> int:
        return self.num_agents if self.max_agents is None else self.max_agents

    @property
    def width(self) -> int:
        return self.settings.width

    @property
    def height(self) -> int:
        return self.settings.height

    def grid_array(self) -> np.ndarray:
        return np.asarray(self.grid, np.int32)


def validate(s: Scenario) -> None:
    """Raise ScenarioError (one line) on the first problem found."""

    def fail(msg: str) -> None:
        raise ScenarioError(f"scenario {s.name!r}: {msg}")

    n, cfg = s.num_agents, s.settings
    if s.generated:
        if s.agents or s.grid or s.cows:
            fail("a generated world has no fixed map, cows or starts")
        if s.max_agents is not None and not n <= s.max_agents <= MAX_AGENTS:
            fail(f"max_agents {s.max_agents} must lie in [{n}, {MAX_AGENTS}]")
        return
    if not MIN_AGENTS <= n <= MAX_AGENTS:
        fail(f"{n} agents, need {MIN_AGENTS} to {MAX_AGENTS}")
    if cfg.num_agents != n:
        fail(f"settings.num_agents {cfg.num_agents} differs from the {n} agent starts")
    if s.max_agents is not None and not n <= s.max_agents <= MAX_AGENTS:
        fail(f"max_agents {s.max_agents} must lie in [{n}, {MAX_AGENTS}]")
    if s.target not in TARGETS:
        fail(f"target {s.target!r}; one of {list(TARGETS)}")
    if len(s.grid) != cfg.height or any(len(row) != cfg.width for row in s.grid):
        fail(f"the map must be {cfg.height} rows of {cfg.width} cells (settings width x height)")
    known = {int(m) for m in Material}
    for y, row in enumerate(s.grid):
        for x, m in enumerate(row):
            if m not in known:
                fail(f"cell ({x}, {y}) holds {m}, not a Material (0 to {max(known)})")
    walkable = {int(m) for m in WALKABLE}
    seen: dict[Pos, int] = {}
    for a, (x, y) in enumerate(s.agents):
        if not (0 <= x < cfg.width and 0 <= y < cfg.height):
            fail(f"agent {a} at ({x}, {y}) lies outside the {cfg.width}x{cfg.height} world")
        if s.grid[y][x] not in walkable:
            fail(f"agent {a} at ({x}, {y}) starts on {Material(s.grid[y][x]).name.lower()}, not walkable ground")
        if (x, y) in seen:
            fail(f"agent {a} at ({x}, {y}) shares its cell with agent {seen[(x, y)]}")
        seen[(x, y)] = a
    _validate_cows(s, fail, seen, walkable)


def _validate_cows(s: Scenario, fail: Any, seen: dict[Pos, int], walkable: set[int]) -> None:
    cfg = s.settings
    if len(s.cows) > cfg.cow_capacity:
        fail(f"{len(s.cows)} cows exceed cow_capacity {cfg.cow_capacity}")
    cows: set[Pos] = set()
    for x, y in s.cows:
        if not (0 <= x < cfg.width and 0 <= y < cfg.height) or s.grid[y][x] not in walkable:
            fail(f"a cow at ({x}, {y}) is not on walkable ground inside the map")
        if (x, y) in seen or (x, y) in cows:
            fail(f"a cow at ({x}, {y}) shares its cell with another object")
        cows.add((x, y))


# ---- hand-made maps ----

# One character per Material, for hand-made maps (tests, notes) and the text drawing.
LEGEND: dict[str, Material] = {
    ".": Material.GRASS,
    ":": Material.SAND,
    "~": Material.WATER,
    "T": Material.TREE,
    "#": Material.STONE,
    "c": Material.COAL,
    "i": Material.IRON,
    "D": Material.DIAMOND,
    "L": Material.LAVA,
    "_": Material.PATH,
    "t": Material.TABLE,
    "f": Material.FURNACE,
    "p": Material.PLANT,
    "P": Material.RIPE_PLANT,
    "C": Material.COW,
}


def from_text(
    name: str,
    rows: Sequence[str],
    settings: CrafterSettings | None = None,
    target: str = "iron",
    max_agents: int | None = None,
) -> Scenario:
    """A hand-made scenario: ``rows`` of `LEGEND` characters, digits for the agents' starts (on
    grass, seat order by digit); ``settings`` default to the map's size and team."""
    starts: dict[int, Pos] = {}
    cows: list[Pos] = []
    grid = []
    for y, row in enumerate(rows):
        cells = []
        for x, ch in enumerate(row):
            if ch == "C":  # a cow: an object standing on grass
                cows.append((x, y))
                cells.append(int(Material.GRASS))
            elif (seat := small_whole(ch, 9)) is not None:  # ASCII 0-9 only: '²' is no seat
                if seat in starts:
                    raise ScenarioError(f"scenario {name!r}: agent {ch} appears twice in the map")
                starts[seat] = (x, y)
                cells.append(int(Material.GRASS))
            elif ch in LEGEND:
                cells.append(int(LEGEND[ch]))
            else:
                raise ScenarioError(
                    f"scenario {name!r}: map cell ({x}, {y}) is {ch!r}; use {''.join(LEGEND)} or a seat digit"
                )
        grid.append(tuple(cells))
    if sorted(starts) != list(range(len(starts))):
        raise ScenarioError(f"scenario {name!r}: seat digits must be 0 to n-1, got {sorted(starts)}")
    agents = tuple(starts[i] for i in range(len(starts)))
    width = max((len(r) for r in rows), default=0)
    base = settings or CrafterSettings()
    try:
        cfg = base.model_copy(update={"width": width, "height": len(rows), "num_agents": len(agents)})
        cfg = CrafterSettings.model_validate(cfg.model_dump())
    except ValidationError as e:
        raise ScenarioError(f"scenario {name!r}: {e.errors()[0]['msg']}") from None
    return Scenario(name, None, cfg, None, target, agents, tuple(grid), max_agents=max_agents, cows=tuple(cows))


def to_text(grid: Sequence[Sequence[int]], cows: Sequence[Pos] = ()) -> list[str]:
    """The map as `LEGEND` rows (the inverse of `from_text` without agents)."""
    chars = {int(m): ch for ch, m in LEGEND.items()}
    rows = [[chars[int(m)] for m in row] for row in grid]
    for x, y in cows:
        rows[y][x] = "C"
    return ["".join(row) for row in rows]


# ---- generated worlds ----


@dataclass(frozen=True, slots=True)
class Difficulty:
    """Random-world knobs: harder = a deeper target in the tech tree, a bigger map, a bigger team."""

    agents: int
    size: int
    target: str


EMCOOP_TEAMS: tuple[int, ...] = (3, 6)  # the team sizes of EmCoop's experiment grid


def emcoop_world(agents: int = 3) -> Scenario:
    """EmCoop's world: 64x64, generated from each reset's key (``emcoop``), or from a fixed world
    seed whatever the key (``emcoop:<seed>``: the same world in every condition of a comparison,
    as EmCoop's ``--seed`` gives), its default rules and horizon."""
    settings = CrafterSettings(num_agents=agents)
    return Scenario("emcoop", "emcoop", settings, None, "diamond", (), (), generated=True)


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(agents=2, size=16, target="coal"),
    "medium": Difficulty(agents=3, size=24, target="iron"),
    "hard": Difficulty(agents=4, size=32, target="diamond"),
}


def build(
    name: str, difficulty: str | None, seed: int, settings: CrafterSettings, target: str, max_agents: int | None = None
) -> Scenario:
    """The generated world of ``seed`` under ``settings`` (its size and team), guaranteed to hold
    what ``target`` needs within reach of the start (a path of at most the map's width)."""
    quorums = {name: rule.quorum for name, rule in settings.resources.items()}
    try:
        world = generate(seed, settings.width, settings.height, settings.num_agents, target, settings.width, quorums)
    except ValueError as e:
        raise ScenarioError(f"scenario {name!r}: {e}") from None
    grid = np.asarray(world.grid, np.int32)
    cows = [(int(x), int(y)) for x, y in sorted(zip(*np.nonzero(grid == Material.COW)[::-1]))]  # x-major
    grid[grid == Material.COW] = Material.GRASS
    return Scenario(
        name=name,
        difficulty=difficulty,
        settings=settings,
        seed=seed,
        target=target,
        agents=world.starts,
        grid=tuple(tuple(int(m) for m in row) for row in grid),
        max_agents=max_agents,
        stamped=world.stamped,
        cows=tuple(cows),
    )


def random_scenario(difficulty: str, seed: int) -> Scenario:
    """The world drawn from ``seed`` at ``difficulty`` (the same seed always gives the same world)."""
    if difficulty not in DIFFICULTIES:
        raise ScenarioError(f"unknown difficulty {shown(difficulty)}; one of {sorted(DIFFICULTIES)}")
    d = DIFFICULTIES[difficulty]
    settings = CrafterSettings(num_agents=d.agents, width=d.size, height=d.size, cow_capacity=16)
    return build(f"random:{difficulty}:{seed}", difficulty, seed, settings, d.target)


def _named(name: str, difficulty: str, seed: int) -> Scenario:
    return replace(random_scenario(difficulty, seed), name=name)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        emcoop_world(),
        _named("easy_2a", "easy", 11),
        _named("medium_3a", "medium", 23),
        _named("hard_4a", "hard", 37),
    )
}


def with_agents(scenario: Scenario, n: int) -> Scenario:
    """The scenario played by ``n`` agents, named ``<name>@<n>``: the same seed's world (the
    terrain does not depend on the team size) with ``n`` starts around the same centre."""
    if n == scenario.num_agents:
        return scenario
    if not MIN_AGENTS <= n <= MAX_AGENTS:
        raise ScenarioError(f"scenario {scenario.name!r}: {n} agents, need {MIN_AGENTS} to {MAX_AGENTS}")
    if scenario.generated:
        settings = scenario.settings.model_copy(update={"num_agents": n})
        max_agents = None if scenario.max_agents is None else max(scenario.max_agents, n)
        return replace(scenario, name=f"{scenario.name}@{n}", settings=settings, max_agents=max_agents)
    if scenario.seed is None:
        raise ScenarioError(f"scenario {scenario.name!r}: a hand-made map has fixed starts; it cannot change its team")
    settings = scenario.settings.model_copy(update={"num_agents": n})
    max_agents = None if scenario.max_agents is None else max(scenario.max_agents, n)
    return build(f"{scenario.name}@{n}", scenario.difficulty, scenario.seed, settings, scenario.target, max_agents)


# ---- settings overrides (--env KEY=VALUE) ----

_NESTED = {"resources", "recipes"}
_MODELS: dict[str, type[BaseModel]] = {"resources": ResourceRule, "recipes": RecipeRule}
NEEDS_LIMIT = 999  # item_max's own bound: a recipe needing more of an item could never be crafted


def setting_keys(settings: CrafterSettings) -> list[str]:
    """Every key `with_settings` accepts: the scalar fields, ``resources.<r>.<quorum|tool|base_value>``,
    ``recipes.<c>.<quorum|stations>`` and ``recipes.<c>.needs.<item>``."""
    keys = [k for k in CrafterSettings.model_fields if k not in _NESTED]
    for r, rule in settings.resources.items():
        keys += [f"resources.{r}.{f}" for f in type(rule).model_fields]
    for c in settings.recipes:
        keys += [f"recipes.{c}.quorum", f"recipes.{c}.stations"]
        keys += [f"recipes.{c}.needs.{item}" for item in ("wood", "stone", "coal", "iron", "diamond", "sapling")]
    return keys


def _assign(data: dict[str, Any], key: str, value: str, settings: CrafterSettings) -> None:
    if key not in setting_keys(settings):
        raise ScenarioError(
            f"--env {_pair(key, value)}: unknown setting; one of the fields "
            f"{sorted(k for k in CrafterSettings.model_fields if k not in _NESTED)}, "
            "resources.<tree|stone|coal|iron|diamond|water|cow>.<quorum|tool|base_value>, "
            "recipes.<craft>.<quorum|stations|needs.<item>>"
        )
    *path, last = key.split(".")
    node = data
    for part in path:
        node = node[part]
    if last == "stations":
        node[last] = tuple(v.strip() for v in value.split(",") if v.strip())
        return
    typed = _typed(path, last, value, f"--env {key}")
    if path and path[-1] == "needs" and typed == 0:
        node.pop(last, None)
    else:
        node[last] = typed


def _typed(path: Sequence[str], last: str, value: str, field: str) -> Any:
    """A setting's text as its field takes it: a number read by the bounded reader in the field's
    range (so ``1_0``, ``'²'`` or 5,000 digits are one short line naming ``field`` and the range,
    not pydantic's lenient parse or an error echoing the whole value); a name is left as text for
    the settings model to check."""
    try:
        if path and path[-1] == "needs":
            return read_int(value, field, 0, NEEDS_LIMIT)
        model = _MODELS.get(path[0], CrafterSettings) if path else CrafterSettings
        return field_value(model, last, value, field)
    except ValueError as exc:  # NumberError, or a list or table that is not JSON
        raise ScenarioError(str(exc)) from None


def _pair(key: str, value: str) -> str:
    """``KEY=VALUE`` for an error line, each cut short (an unknown key may be any text)."""
    if len(key) + len(value) <= 60:
        return f"{key}={value}"
    return f"{shown(key, 40)}={shown(value)}"


def with_settings(scenario: Scenario, overrides: Mapping[str, str]) -> Scenario:
    """The scenario under changed rules (``--env KEY=VALUE``): each value is read by its field's
    type and range, the whole by the settings model, one line per problem; a changed size or team
    regenerates the seed's world."""
    if not overrides:
        return scenario
    data = scenario.settings.model_dump()
    n = scenario.num_agents
    for key, value in overrides.items():
        if key == "num_agents":
            try:
                n = read_int(str(value), "--env num_agents", MIN_AGENTS, MAX_AGENTS)
            except NumberError as exc:
                raise ScenarioError(str(exc)) from None
            continue
        _assign(data, key, str(value), scenario.settings)
    data["num_agents"] = scenario.num_agents
    try:
        settings = CrafterSettings.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ScenarioError(f"--env {where}: {first['msg']}") from None
    return _resized(scenario, settings, n)


def _resized(scenario: Scenario, settings: CrafterSettings, n: int) -> Scenario:
    """``scenario`` under ``settings`` and a team of ``n``: a generated or seeded world is drawn
    again when its size, team or quorums change (so its guarantee holds); a hand-made map cannot."""
    if scenario.generated:
        return with_agents(replace(scenario, settings=settings), n)
    if scenario.seed is None:
        if (settings.width, settings.height) != (scenario.width, scenario.height) or n != scenario.num_agents:
            raise ScenarioError(f"scenario {scenario.name!r}: a hand-made map cannot change its size or team")
        return replace(scenario, settings=settings)
    out = scenario
    if (settings.width, settings.height) != (scenario.width, scenario.height) or any(
        settings.resources[r].quorum != scenario.settings.resources[r].quorum for r in settings.resources
    ):
        out = build(scenario.name, scenario.difficulty, scenario.seed, settings, scenario.target, scenario.max_agents)
    else:
        out = replace(scenario, settings=settings)
    return with_agents(out, n)


# ---- loading ----


def load_scenario(spec: str | Scenario) -> Scenario:
    """A scenario by name or ``random:<difficulty>:<seed>``, either with one ``@<agents>`` appended
    for a team of that size (`with_agents`); every number is ASCII digits within its range."""
    if isinstance(spec, Scenario):
        return spec
    text = str(spec)
    base, at, count = text.rpartition("@")
    if at:
        if "@" in base:
            raise ScenarioError(f"scenario {shown(text, 60)}: give one @<agents> at most (medium_3a@4)")
        return with_agents(
            load_scenario(base), _read(count, f"scenario {shown(text, 60)}: the agents after @", MIN_AGENTS, MAX_AGENTS)
        )
    if text in SCENARIOS:
        return SCENARIOS[text]
    if text.startswith("emcoop:"):
        seed = _read(text[len("emcoop:") :], f"bad scenario {shown(text, 60)}: the world seed", 0, MAX_SEED)
        return replace(emcoop_world(), name=text, seed=seed)
    if text.startswith("random:"):
        parts = text.split(":")
        if len(parts) != 3:
            raise ScenarioError(
                f"bad random scenario spec {shown(text, 60)}; expected random:<easy|medium|hard>:<seed> "
                "(seed 0 to 2^31-1)"
            )
        return random_scenario(
            parts[1], _read(parts[2], f"bad random scenario spec {shown(text, 60)}: the seed", 0, MAX_SEED)
        )
    raise ScenarioError(
        f"unknown scenario {shown(text, 60)}; one of {sorted(SCENARIOS)}, emcoop:<seed> or "
        "random:<easy|medium|hard>:<seed>, optionally with @<agents> (medium_3a@4)"
    )


def _read(text: str, field: str, low: int, high: int) -> int:
    """A whole number of a scenario string (ASCII digits, in range), or a one-line ScenarioError."""
    try:
        return read_int(text, field, low, high)
    except NumberError as exc:
        raise ScenarioError(str(exc)) from None


def available_scenarios() -> list[str]:
    return sorted(SCENARIOS)


__all__ = [
    "DIFFICULTIES",
    "EMCOOP_TEAMS",
    "LEGEND",
    "SCENARIOS",
    "TARGETS",
    "Difficulty",
    "Scenario",
    "ScenarioError",
    "available_scenarios",
    "build",
    "emcoop_world",
    "from_text",
    "load_scenario",
    "random_scenario",
    "setting_keys",
    "to_text",
    "validate",
    "with_agents",
    "with_settings",
]
