"""CUBE scenarios: the grid, the blocks, the agents' starts, the horizon and the step cost.

A scenario is validated when it is built, so an invalid one never reaches the env: every problem
is one line naming the scenario and the offending block or agent. Scenarios come by name
(``easy_2a``, ``medium_3a``, ``hard_4a``, ``hard_8a``), from a TOML file, or from a seed
(``random:<easy|medium|hard>:<seed>``); all random scenarios of one difficulty have the same
numbers of blocks and agents, so their states stack into one batch. ``coop2:<seed>`` is the COOP²
paper's task from that seed (``coop2`` alone: the paper's seed), generated as their code does.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from envs.cube.rules import MAX_AGENTS, MAX_GRID, MAX_HORIZON, MAX_SEED, MAX_STEP_COST, MAX_WEIGHT, MIN_AGENTS, MIN_GRID
from proagent.bounded import NumberError, bounded_float, bounded_int, read_int
from proagent.untrusted import UntrustedFileError, read_toml

Pos = tuple[int, int]  # (x, y), y grows downwards


class ScenarioError(ValueError):
    """An invalid or unknown scenario; the message is one line."""


@dataclass(frozen=True, slots=True)
class BlockSpec:
    """A square block: top-left cell (x, y) and weight w, which is also its side (w x w cells)."""

    x: int
    y: int
    weight: int

    def cells(self) -> set[Pos]:
        return {(self.x + i, self.y + j) for i in range(self.weight) for j in range(self.weight)}


@dataclass(frozen=True)
class Scenario:
    """One CUBE task. ``max_blocks``/``max_agents`` pad the state arrays (None: the actual counts) so
    scenarios of different sizes can share one compiled step."""

    name: str
    blocks: tuple[BlockSpec, ...]
    agents: tuple[Pos, ...]
    grid_size: int = 15
    horizon: int = 200
    step_cost: float = 0.01
    max_blocks: int | None = None
    max_agents: int | None = None
    difficulty: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        blocks = tuple(b if isinstance(b, BlockSpec) else BlockSpec(*b) for b in self.blocks)  # (x, y, w) ok
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "agents", tuple((int(x), int(y)) for x, y in self.agents))
        validate(self)

    @property
    def block_capacity(self) -> int:
        return len(self.blocks) if self.max_blocks is None else self.max_blocks

    @property
    def agent_capacity(self) -> int:
        return len(self.agents) if self.max_agents is None else self.max_agents

    @property
    def goal_column(self) -> int:
        return self.grid_size - 1

    @property
    def total_weight(self) -> int:
        """The best possible score: every block delivered."""
        return sum(b.weight for b in self.blocks)


def validate(s: Scenario) -> None:
    """Raise ScenarioError (one line) on the first problem found."""

    def fail(msg: str) -> None:
        raise ScenarioError(f"scenario {s.name!r}: {msg}")

    k = s.grid_size
    if not MIN_GRID <= k <= MAX_GRID:
        fail(f"grid_size {k} outside [{MIN_GRID}, {MAX_GRID}]")
    if s.horizon < 1:
        fail(f"horizon {s.horizon} must be >= 1")
    if s.horizon > MAX_HORIZON:
        fail(f"horizon {s.horizon} must be <= {MAX_HORIZON}")
    if s.step_cost < 0:
        fail(f"step_cost {s.step_cost} must be >= 0")
    if not math.isfinite(s.step_cost) or s.step_cost > MAX_STEP_COST:
        fail(f"step_cost {s.step_cost} must be a finite number from 0 to {MAX_STEP_COST:g}")
    n = len(s.agents)
    if not MIN_AGENTS <= n <= MAX_AGENTS:
        fail(f"{n} agents, need {MIN_AGENTS} to {MAX_AGENTS}")
    if not s.blocks:
        fail("no blocks")
    if s.max_agents is not None and not n <= s.max_agents <= MAX_AGENTS:
        fail(f"max_agents {s.max_agents} must lie in [{n}, {MAX_AGENTS}]")
    if s.max_blocks is not None and s.max_blocks < len(s.blocks):
        fail(f"max_blocks {s.max_blocks} < {len(s.blocks)} blocks")
    taken: dict[Pos, int] = {}
    for i, b in enumerate(s.blocks):
        if not 1 <= b.weight <= min(n, MAX_WEIGHT):
            fail(f"block {i} weight {b.weight} outside [1, {min(n, MAX_WEIGHT)}] (a block needs weight-many agents)")
        if b.x < 0 or b.y < 0 or b.x + b.weight > k or b.y + b.weight > k:
            fail(f"block {i} at ({b.x}, {b.y}) weight {b.weight} lies outside the {k}x{k} grid")
        if b.x + b.weight >= k:
            fail(f"block {i} at ({b.x}, {b.y}) weight {b.weight} touches the goal column {k - 1} at the start")
        for cell in sorted(b.cells()):
            if cell in taken:
                fail(f"block {i} at ({b.x}, {b.y}) weight {b.weight} overlaps block {taken[cell]} at cell {cell}")
            taken[cell] = i
    seen: dict[Pos, int] = {}
    for a, (x, y) in enumerate(s.agents):
        if not (0 <= x < k and 0 <= y < k):
            fail(f"agent {a} at ({x}, {y}) lies outside the {k}x{k} grid")
        if x == k - 1:
            fail(f"agent {a} at ({x}, {y}) stands in the goal column {k - 1} (agents never enter it)")
        if (x, y) in taken:
            fail(f"agent {a} at ({x}, {y}) stands on block {taken[(x, y)]}")
        if (x, y) in seen:
            fail(f"agent {a} at ({x}, {y}) shares its cell with agent {seen[(x, y)]}")
        seen[(x, y)] = a


def with_agents(scenario: Scenario, n: int) -> Scenario:
    """The scenario with ``n`` agents instead (EmCoop's team-size axis), named ``<name>@<n>``: its
    own starts when the count matches, else ``n`` agents spread evenly down column 0, skipping cells a block covers.
    Raises ScenarioError when ``n`` is out of range, a block is heavier than the team, or column 0
    has too few free cells."""
    if n == len(scenario.agents):
        return scenario
    if not MIN_AGENTS <= n <= MAX_AGENTS:
        raise ScenarioError(f"scenario {scenario.name!r}: {n} agents, need {MIN_AGENTS} to {MAX_AGENTS}")
    covered = set().union(*(b.cells() for b in scenario.blocks))
    free = [y for y in range(scenario.grid_size) if (0, y) not in covered]
    if len(free) < n:
        raise ScenarioError(f"scenario {scenario.name!r}: column 0 has {len(free)} free cells, too few for {n} agents")
    picks = [free[round((i + 0.5) * len(free) / n - 0.5)] for i in range(n)]
    max_agents = None if scenario.max_agents is None else max(scenario.max_agents, n)
    return replace(scenario, name=f"{scenario.name}@{n}", agents=tuple((0, y) for y in picks), max_agents=max_agents)


# ---- named scenarios ----


def _named(name: str, difficulty: str, horizon: int, blocks: list[tuple[int, int, int]], agents: list[Pos]) -> Scenario:
    return Scenario(name, tuple(BlockSpec(*b) for b in blocks), tuple(agents), horizon=horizon, difficulty=difficulty)


_FIXED: dict[str, Scenario] = {
    s.name: s
    for s in (
        _named("easy_2a", "easy", 100, [(5, 3, 1), (7, 9, 2)], [(0, 6), (0, 8)]),
        _named("medium_3a", "medium", 150, [(4, 2, 1), (6, 6, 2), (8, 10, 3)], [(0, 4), (0, 7), (0, 10)]),
        _named(
            "hard_4a", "hard", 200, [(3, 1, 1), (5, 4, 2), (8, 8, 3), (3, 10, 4)], [(0, 3), (0, 6), (0, 9), (0, 12)]
        ),
        _named(
            "hard_8a",
            "hard",
            300,
            [(3, 1, 2), (7, 1, 3), (4, 6, 4), (9, 6, 3), (3, 11, 3), (8, 11, 2)],
            [(0, y) for y in (1, 3, 5, 7, 8, 10, 12, 14)],
        ),
    )
}


# ---- random scenarios ----


@dataclass(frozen=True, slots=True)
class Difficulty:
    """Random-scenario knobs: harder = more and heavier blocks (participation constraints) and more
    agents (more collisions), EmCoop's two axes of difficulty."""

    agents: int
    blocks: int
    weights: tuple[int, ...]  # each block's weight is drawn from these
    horizon: int


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(agents=2, blocks=2, weights=(1, 2), horizon=100),
    "medium": Difficulty(agents=3, blocks=3, weights=(1, 2, 3), horizon=150),
    "hard": Difficulty(agents=4, blocks=4, weights=(2, 3, 4), horizon=200),
}
RANDOM_MARGIN = 2  # free cells between a random block and the walls / the goal column
_TRIES = 200


def random_scenario(difficulty: str, seed: int, grid_size: int = 15) -> Scenario:
    """A scenario drawn from ``seed`` (the same seed always gives the same scenario): blocks kept
    RANDOM_MARGIN cells from the walls and the goal column and one cell apart from each other
    (every face reachable), agents on distinct cells of column 0."""
    if difficulty not in DIFFICULTIES:
        raise ScenarioError(f"unknown difficulty {difficulty!r}; one of {sorted(DIFFICULTIES)}")
    d = DIFFICULTIES[difficulty]
    rng = np.random.default_rng(seed)
    weights = sorted((int(w) for w in rng.choice(d.weights, size=d.blocks)), reverse=True)
    blocks = _place_all(rng, weights, grid_size)
    if blocks is None:
        raise ScenarioError(f"could not place {d.blocks} {difficulty} blocks on a {grid_size}x{grid_size} grid")
    rows = sorted(int(y) for y in rng.choice(grid_size, size=d.agents, replace=False))
    return Scenario(
        f"random:{difficulty}:{seed}",
        tuple(blocks),
        tuple((0, y) for y in rows),
        grid_size=grid_size,
        horizon=d.horizon,
        difficulty=difficulty,
    )


def _place_all(rng: np.random.Generator, weights: list[int], k: int) -> list[BlockSpec] | None:
    """Rejection sampling, restarting the whole layout when a block finds no room (an early block
    can leave none): still a pure function of the generator's state."""
    for _ in range(_TRIES):
        placed: list[BlockSpec] = []
        for w in weights:
            spot = _spot(rng, w, placed, k)
            if spot is None:
                break
            placed.append(spot)
        else:
            return placed
    return None


def _spot(rng: np.random.Generator, w: int, placed: list[BlockSpec], k: int) -> BlockSpec | None:
    lo, x_hi, y_hi = RANDOM_MARGIN, k - 1 - RANDOM_MARGIN - w, k - RANDOM_MARGIN - w
    if x_hi < lo or y_hi < lo:
        raise ScenarioError(f"grid {k} too small for a weight-{w} block with margin {RANDOM_MARGIN}")
    for _ in range(_TRIES):
        b = BlockSpec(int(rng.integers(lo, x_hi + 1)), int(rng.integers(lo, y_hi + 1)), w)
        if all(_apart(b, p) for p in placed):
            return b
    return None


def _apart(a: BlockSpec, b: BlockSpec) -> bool:
    """At least one free cell between the two squares."""
    return a.x + a.weight < b.x or b.x + b.weight < a.x or a.y + a.weight < b.y or b.y + b.weight < a.y


# ---- the COOP² paper's task ----

COOP2_GRID = 15  # the paper's world: 15 x 15, three blocks at each weight 1, 2, 3, 50 steps
COOP2_BLOCKS: tuple[tuple[int, int], ...] = ((1, 3), (2, 3), (3, 3))  # (weight, count), in placement order
COOP2_HORIZON = 50
COOP2_AGENTS = 3
COOP2_SEED = 42  # the paper grid's seed: ``coop2`` is ``coop2:42``
_COOP2_TRIES = 1000  # spots tried per block before the layout is given up


def coop2_scenario(seed: int, agents: int = COOP2_AGENTS, name: str | None = None) -> Scenario:
    """The COOP² paper's CUBE task from ``seed``, with ``agents`` agents.

    The draw restates COOP²'s generator step for step on Python's own ``random.Random(seed)`` (the
    generator their env seeds), so a seed gives their layout: for each block, weights 1 then 2
    then 3, a top-left cell (row, then column, each uniform in 1..K-w-2) is drawn until the square
    overlaps no earlier block (blocks may touch); then the K rows are shuffled and agent i starts
    at column 0 of the i-th row. The blocks do not depend on the team size, so ``coop2:42@6`` is
    ``coop2:42``'s blocks with six agents, as their agent-count axis has it."""
    if not MIN_AGENTS <= agents <= MAX_AGENTS:
        raise ScenarioError(f"scenario coop2:{seed}: {agents} agents, need {MIN_AGENTS} to {MAX_AGENTS}")
    heaviest = max(w for w, _ in COOP2_BLOCKS)
    if agents < heaviest:
        raise ScenarioError(
            f"scenario coop2:{seed}: {agents} agents cannot push its weight-{heaviest} blocks; "
            f"give {heaviest} to {MAX_AGENTS} (coop2:{seed}@{heaviest})"
        )
    rng = random.Random(seed)
    k = COOP2_GRID
    blocks: list[BlockSpec] = []
    taken: set[Pos] = set()
    for weight, count in COOP2_BLOCKS:
        for _ in range(count):
            block = _coop2_spot(rng, weight, taken, k)
            if block is None:
                raise ScenarioError(f"scenario coop2:{seed}: no room for a weight-{weight} block")
            blocks.append(block)
            taken |= block.cells()
    rows = list(range(k))
    rng.shuffle(rows)
    return Scenario(
        name or f"coop2:{seed}",
        tuple(blocks),
        tuple((0, rows[i]) for i in range(agents)),
        grid_size=k,
        horizon=COOP2_HORIZON,
        difficulty="coop2",
    )


def _coop2_spot(rng: random.Random, w: int, taken: set[Pos], k: int) -> BlockSpec | None:
    for _ in range(_COOP2_TRIES):
        row = rng.randint(1, k - w - 2)
        col = rng.randint(1, k - w - 2)
        block = BlockSpec(col, row, w)
        if not block.cells() & taken:
            return block
    return None


SCENARIOS: dict[str, Scenario] = {**_FIXED, "coop2": coop2_scenario(COOP2_SEED, name="coop2")}


# ---- loading ----

_TOML_KEYS = {"name", "grid_size", "horizon", "step_cost", "agents", "blocks", "max_blocks", "max_agents"}


def load_scenario(spec: str | Path | Scenario) -> Scenario:
    """A scenario by name, ``random:<difficulty>:<seed>``, or a TOML file path; any of them with
    ``@<agents>`` appended is played by that many agents (`with_agents`)."""
    if isinstance(spec, Scenario):
        return spec
    text = str(spec)
    if text.endswith(".toml") or _is_file(text):  # a file's own name may hold an "@"
        return parse_toml_file(Path(text))
    base, at, count = text.rpartition("@")
    if at:
        if "@" in base and not _is_file(base):
            raise ScenarioError(f"scenario {_shown(text)}: give one @<agents> at most (medium_3a@4)")
        agents = _read(count, f"scenario {_shown(text)}: the agents after @", MIN_AGENTS, MAX_AGENTS)
        if base == "coop2" or base.startswith("coop2:"):  # their spawn rule places the team
            return coop2_scenario(_coop2_seed(base), agents, name=text)
        return with_agents(load_scenario(base), agents)
    if text in SCENARIOS:
        return SCENARIOS[text]
    if text.startswith("coop2:"):
        return coop2_scenario(_coop2_seed(text))
    if text.startswith("random:"):
        parts = text.split(":")
        if len(parts) != 3:
            raise ScenarioError(
                f"bad random scenario spec {_shown(text)}; expected random:<easy|medium|hard>:<seed> (seed 0 to 2^31-1)"
            )
        return random_scenario(
            parts[1], _read(parts[2], f"bad random scenario spec {_shown(text)}: the seed", 0, MAX_SEED)
        )
    raise ScenarioError(
        f"unknown scenario {_shown(text)}; one of {sorted(SCENARIOS)}, random:<easy|medium|hard>:<seed>, coop2:<seed>, "
        "or a .toml file, "
        "optionally with @<agents> (medium_3a@4)"
    )


def _coop2_seed(text: str) -> int:
    """The seed of ``coop2`` (the paper's) or ``coop2:<seed>`` (0 to 2^31-1), or a one-line ScenarioError."""
    if text == "coop2":
        return COOP2_SEED
    return _read(text.removeprefix("coop2:"), f"bad scenario spec {_shown(text)}: the coop2 seed", 0, MAX_SEED)


def _is_file(text: str) -> bool:
    """Whether ``text`` names a file (False for a name the system cannot even look up: too long)."""
    try:
        return Path(text).is_file()
    except OSError:
        return False


def _read(text: str, field: str, low: int, high: int) -> int:
    """A whole number of a scenario string (ASCII digits, in range), or a one-line ScenarioError."""
    try:
        return read_int(text, field, low, high)
    except NumberError as exc:
        raise ScenarioError(str(exc)) from None


def _shown(text: str) -> str:
    """``text`` quoted, cut short: a 5,000-digit seed makes a short error line."""
    return repr(text) if len(text) <= 60 else f"{text[:60]!r}… ({len(text):,} characters)"


def available_scenarios() -> list[str]:
    return sorted(SCENARIOS)


def parse_toml_file(path: Path) -> Scenario:
    if not path.is_file():
        raise ScenarioError(f"scenario file {str(path)!r} not found")
    try:  # the size, UTF-8 and nesting bounds of every file that may come from elsewhere
        data = read_toml(path, "scenario file")
    except UntrustedFileError as exc:
        raise ScenarioError(str(exc)) from None
    return parse_scenario(data, default_name=path.stem)


def parse_scenario(data: dict[str, Any], default_name: str = "custom") -> Scenario:
    """Build a scenario from a TOML-shaped dict: ``agents = [[x, y], ...]`` and ``[[blocks]]``
    tables with ``x``, ``y``, ``weight``."""
    name = str(data.get("name", default_name))

    def fail(msg: str) -> ScenarioError:
        return ScenarioError(f"scenario {name!r}: {msg}")

    unknown = sorted(set(data) - _TOML_KEYS)
    if unknown:
        raise fail(f"unknown keys {unknown}; allowed {sorted(_TOML_KEYS)}")
    for key in ("agents", "blocks"):
        if key not in data:
            raise fail(f"missing {key!r}")
    agents = [_pos(a, f"agent {i}", fail) for i, a in enumerate(_list(data["agents"], "agents", fail))]
    blocks = [_block(b, i, fail) for i, b in enumerate(_list(data["blocks"], "blocks", fail))]
    bounds = {"grid_size": (MIN_GRID, MAX_GRID), "horizon": (1, MAX_HORIZON), "max_blocks": (1, MAX_GRID**2),
              "max_agents": (MIN_AGENTS, MAX_AGENTS)}  # fmt: skip
    kwargs: dict[str, Any] = {key: _int(data[key], key, fail, *bounds[key]) for key in bounds if key in data}
    if "step_cost" in data:
        try:  # finite (a nan cost would score every episode nan) and bounded
            kwargs["step_cost"] = bounded_float(data["step_cost"], "step_cost", 0.0, MAX_STEP_COST)
        except NumberError as exc:
            raise fail(str(exc)) from None
    return Scenario(name, tuple(blocks), tuple(agents), **kwargs)


def _list(value: Any, what: str, fail) -> list:
    if not isinstance(value, list):
        raise fail(f"{what} must be a list, got {value!r}")
    return value


def _int(value: Any, what: str, fail, low: int = -MAX_SEED, high: int = MAX_SEED) -> int:
    """A whole number of the file in ``[low, high]`` (by default any that fits an int32: the
    scenario's own checks say where a position or weight must lie)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise fail(f"{what} must be an integer, got {value!r}")
    try:
        return bounded_int(value, what, low, high)
    except NumberError as exc:
        raise fail(str(exc)) from None


def _pos(value: Any, what: str, fail) -> Pos:
    if not (isinstance(value, list) and len(value) == 2):
        raise fail(f"{what} must be [x, y], got {value!r}")
    return (_int(value[0], f"{what} x", fail), _int(value[1], f"{what} y", fail))


def _block(value: Any, i: int, fail) -> BlockSpec:
    if not isinstance(value, dict) or set(value) != {"x", "y", "weight"}:
        raise fail(f"block {i} must be a table with exactly x, y, weight, got {value!r}")
    return BlockSpec(*(_int(value[k], f"block {i} {k}", fail) for k in ("x", "y", "weight")))
