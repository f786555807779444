"""Kitchen layouts: the classic five, JaxMARL's OvercookedV2 registry, and user files.

Our own text format is the legacy overcooked_ai one (the one ProAgent and COLE used), extended
with the V2 tiles, so that a user writes a kitchen the way the papers draw it:

    X counter   O onion dispenser   T tomato dispenser   D dish dispenser   P pot
    S serving spot   R recipe indicator   L button recipe indicator   1 2 player starts
    (space) floor

A `.toml` file may add recipes: ``grid = '''...'''`` and ``recipes = [["onion","onion","onion"]]``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from envs.overcooked.engine import StaticObject, jaxmarl_layouts
from proagent.bounded import small_whole
from proagent.untrusted import UntrustedFileError, loads_toml

INGREDIENT_NAMES = ("onion", "tomato")
MAX_PLAYERS = 2  # the engine and the agents are two-player; more starts are refused, not silently dropped

_CHAR_TO_TILE: dict[str, int] = {
    " ": StaticObject.EMPTY,
    "X": StaticObject.WALL,
    "P": StaticObject.POT,
    "S": StaticObject.GOAL,
    "D": StaticObject.PLATE_PILE,
    "O": StaticObject.INGREDIENT_PILE_BASE + 0,
    "T": StaticObject.INGREDIENT_PILE_BASE + 1,
    "R": StaticObject.RECIPE_INDICATOR,
    "L": StaticObject.BUTTON_RECIPE_INDICATOR,
}
# Further ingredients (V2 layouts with more than onion and tomato): a, b, c, ... = ingredient 0, 1, 2, ...
_CHAR_TO_TILE.update({chr(ord("a") + i): StaticObject.INGREDIENT_PILE_BASE + i for i in range(10)})


class LayoutError(ValueError):
    """A kitchen that cannot be played; the message says where and how to fix it."""


def ingredient_name(index: int) -> str:
    return INGREDIENT_NAMES[index] if index < len(INGREDIENT_NAMES) else f"ingredient{index}"


def ingredient_index(name: str) -> int:
    if name in INGREDIENT_NAMES:
        return INGREDIENT_NAMES.index(name)
    number = small_whole(name[len("ingredient") :]) if name.startswith("ingredient") else None
    if number is not None:  # ASCII digits only: "ingredient²" is no ingredient
        return number
    raise LayoutError(f"unknown ingredient {name!r}; use one of {INGREDIENT_NAMES} or 'ingredientN'")


@dataclass(frozen=True)
class KitchenLayout:
    """Static description of a kitchen: terrain codes (engine StaticObject), starts, recipes."""

    name: str
    tiles: np.ndarray  # (height, width) int, StaticObject codes
    starts: tuple[tuple[int, int], ...]  # (x, y) per player, player 0 first
    recipes: tuple[tuple[int, ...], ...]  # possible recipes, ingredient indices
    num_ingredients: int
    source: str = field(default="", compare=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KitchenLayout):
            return NotImplemented
        return (self.name, self.starts, self.recipes, self.num_ingredients) == (
            other.name,
            other.starts,
            other.recipes,
            other.num_ingredients,
        ) and np.array_equal(self.tiles, other.tiles)

    def __hash__(self) -> int:
        return hash((self.name, self.starts, self.recipes, self.tiles.shape, self.tiles.tobytes()))

    @property
    def height(self) -> int:
        return int(self.tiles.shape[0])

    @property
    def width(self) -> int:
        return int(self.tiles.shape[1])

    @property
    def has_recipe_indicator(self) -> bool:
        return bool(np.any(self.tiles == StaticObject.RECIPE_INDICATOR))

    def to_ascii(self) -> str:
        """The layout in our text format (player starts included)."""
        tile_to_char = {v: k for k, v in reversed(_CHAR_TO_TILE.items())}
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                code = int(self.tiles[y, x])
                row.append(tile_to_char[code])
            rows.append(row)
        for i, (x, y) in enumerate(self.starts):
            rows[y][x] = str(i + 1)
        return "\n".join("".join(r) for r in rows)


CLASSIC_LAYOUTS: dict[str, str] = {
    "cramped_room": """
XXPXX
O  2O
X1  X
XDXSX
""",
    "asymmetric_advantages": """
XXXXXXXXX
O XSXOX S
X   P 1 X
X2  P   X
XXXDXDXXX
""",
    "coordination_ring": """
XXXPX
X 1 P
D2X X
O   X
XOSXX
""",
    "forced_coordination": """
XXXPX
O X1P
O2X X
D X X
XXXSX
""",
    "counter_circuit": """
XXXPPXXX
X  2   X
D XXXX S
X  1   X
XXXOOXXX
""",
}

LEGACY_ALIASES = {
    "simple": "cramped_room",
    "unident_s": "asymmetric_advantages",
    "random1": "coordination_ring",
    "random0": "forced_coordination",
    "random3": "counter_circuit",
}

JAXMARL_PREFIX = "jaxmarl:"


def parse_layout(text: str, name: str = "custom", recipes: list[list[int]] | None = None) -> KitchenLayout:
    """Parse and validate a kitchen in our text format."""
    rows = [r.rstrip("\n") for r in text.split("\n")]
    while rows and not rows[0].strip():
        rows.pop(0)
    while rows and not rows[-1].strip():
        rows.pop()
    if not rows:
        raise LayoutError(f"layout {name!r} is empty")
    width = max(len(r) for r in rows)
    tiles = np.zeros((len(rows), width), dtype=np.int32)
    starts: dict[int, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        for x, char in enumerate(row.ljust(width)):
            if char in "123456789":  # ASCII only: '١' or '²' also count as digits to Python
                player = int(char) - 1
                if player in starts:
                    raise LayoutError(f"layout {name!r}: player {char} starts twice (at {starts[player]} and {(x, y)})")
                starts[player] = (x, y)
                continue
            if char not in _CHAR_TO_TILE:
                raise LayoutError(
                    f"layout {name!r}: unknown character {char!r} at (x={x}, y={y}); "
                    f"allowed: {sorted(_CHAR_TO_TILE)} and player starts 1 and 2"
                )
            tiles[y, x] = _CHAR_TO_TILE[char]
    ordered_starts = _ordered_starts(starts, name)
    piles = tiles[tiles >= StaticObject.INGREDIENT_PILE_BASE] - StaticObject.INGREDIENT_PILE_BASE
    num_ingredients = int(piles.max()) + 1 if piles.size else 0
    layout = KitchenLayout(
        name=name,
        tiles=tiles,
        starts=ordered_starts,
        recipes=_default_recipes(recipes, num_ingredients, tiles, name),
        num_ingredients=num_ingredients,
        source=text,
    )
    validate_layout(layout)
    return layout


def _ordered_starts(starts: dict[int, tuple[int, int]], name: str) -> tuple[tuple[int, int], ...]:
    if len(starts) > MAX_PLAYERS:
        raise LayoutError(
            f"layout {name!r}: {len(starts)} player starts, but Overcooked kitchens here are for {MAX_PLAYERS} "
            "players (write only '1' and '2')"
        )
    if len(starts) < 2:
        missing = [str(i + 1) for i in range(2) if i not in starts]
        raise LayoutError(
            f"layout {name!r}: missing start for player(s) {', '.join(missing)} (write '1' and '2' on floor cells)"
        )
    if sorted(starts) != list(range(len(starts))):
        raise LayoutError(
            f"layout {name!r}: player starts must be numbered 1..N without gaps, got {sorted(p + 1 for p in starts)}"
        )
    return tuple(starts[i] for i in range(len(starts)))


def _default_recipes(
    recipes: list[list[int]] | None, num_ingredients: int, tiles: np.ndarray, name: str
) -> tuple[tuple[int, ...], ...]:
    if recipes is not None:
        for recipe in recipes:
            if len(recipe) != 3 or any(not 0 <= i < max(num_ingredients, 1) for i in recipe):
                raise LayoutError(f"layout {name!r}: recipe {recipe} must have 3 ingredients available in the kitchen")
        return tuple(tuple(sorted(r)) for r in recipes)
    if num_ingredients <= 1:
        return ((0, 0, 0),)
    if not np.any(tiles == StaticObject.RECIPE_INDICATOR) and not np.any(tiles == StaticObject.BUTTON_RECIPE_INDICATOR):
        raise LayoutError(
            f"layout {name!r} has {num_ingredients} ingredients but no recipe indicator (R/L): "
            "give its recipes in a .toml file (recipes = [[\"onion\", \"onion\", \"tomato\"]])"
        )
    return tuple(sorted({tuple(sorted(c)) for c in _combinations(num_ingredients)}))


def _combinations(num_ingredients: int) -> list[tuple[int, int, int]]:
    return [
        (a, b, c) for a in range(num_ingredients) for b in range(a, num_ingredients) for c in range(b, num_ingredients)
    ]


def validate_layout(layout: KitchenLayout) -> None:
    """Reject kitchens where the task cannot be done, naming the problem."""
    tiles, name = layout.tiles, layout.name
    floor = tiles == StaticObject.EMPTY
    border = np.zeros_like(floor)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    open_border = np.argwhere(floor & border)
    if len(open_border):
        y, x = open_border[0]
        raise LayoutError(f"layout {name!r}: floor at the edge (x={x}, y={y}); a kitchen must be enclosed by counters")
    for player, (x, y) in enumerate(layout.starts):
        if not floor[y, x]:
            raise LayoutError(f"layout {name!r}: player {player + 1} starts on a non-floor cell (x={x}, y={y})")
    required = {
        "pot (P)": tiles == StaticObject.POT,
        "ingredient dispenser (O/T)": tiles >= StaticObject.INGREDIENT_PILE_BASE,
        "dish dispenser (D)": tiles == StaticObject.PLATE_PILE,
        "serving spot (S)": tiles == StaticObject.GOAL,
    }
    reachable = _reachable_tiles(floor, layout.starts)
    for label, mask in required.items():
        if not mask.any():
            raise LayoutError(f"layout {name!r} has no {label}")
        if not (mask & reachable).any():
            y, x = np.argwhere(mask)[0]
            raise LayoutError(f"layout {name!r}: no {label} can be reached by any player (first at x={x}, y={y})")


def _reachable_tiles(floor: np.ndarray, starts: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Non-floor tiles that some player can face from a floor cell it can walk to."""
    h, w = floor.shape
    seen = np.zeros_like(floor)
    queue = deque((y, x) for x, y in starts)
    for y, x in queue:
        seen[y, x] = True
    facing = np.zeros_like(floor)
    while queue:
        y, x = queue.popleft()
        for dy, dx in ((-1, 0), (1, 0), (0, 1), (0, -1)):
            ny, nx = y + dy, x + dx
            if not (0 <= ny < h and 0 <= nx < w):
                continue
            if floor[ny, nx] and not seen[ny, nx]:
                seen[ny, nx] = True
                queue.append((ny, nx))
            elif not floor[ny, nx]:
                facing[ny, nx] = True
    return facing


def _from_jaxmarl(name: str) -> KitchenLayout:
    source = jaxmarl_layouts()[name]
    recipes = tuple(tuple(sorted(int(i) for i in r)) for r in source.possible_recipes)
    return KitchenLayout(
        name=JAXMARL_PREFIX + name if name in CLASSIC_LAYOUTS else name,
        tiles=np.asarray(source.static_objects, dtype=np.int32),
        starts=tuple((int(x), int(y)) for x, y in source.agent_positions),
        recipes=recipes,
        num_ingredients=int(source.num_ingredients),
    )


def load_toml_layout(path: Path) -> KitchenLayout:
    try:  # the nesting bound of every file that may come from elsewhere
        data = loads_toml(_read_kitchen_text(path), str(path))
    except UntrustedFileError as exc:
        raise LayoutError(str(exc)) from None
    if not isinstance(data.get("grid"), str):
        raise LayoutError(f"{path}: a .toml layout needs a 'grid' string (a multi-line string of kitchen characters)")
    recipes = data.get("recipes")
    if recipes is not None and not (
        isinstance(recipes, list) and all(isinstance(r, list) and all(isinstance(i, str) for i in r) for r in recipes)
    ):
        raise LayoutError(
            f'{path}: \'recipes\' must be a list of ingredient-name lists, e.g. [["onion", "onion", "tomato"]]'
        )
    indices = [[ingredient_index(i) for i in r] for r in recipes] if recipes is not None else None
    return parse_layout(data["grid"], name=path.stem, recipes=indices)


def _read_kitchen_text(path: Path) -> str:
    """A kitchen file's text; any bytes that are not UTF-8 text are a `LayoutError`, not a traceback."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LayoutError(f"{path}: not a text file (byte {exc.start} is not UTF-8); a kitchen is plain text") from exc
    except OSError as exc:
        raise LayoutError(f"{path}: cannot be read: {exc.strerror}") from exc


def available_layouts() -> list[str]:
    names = set(CLASSIC_LAYOUTS) | set(LEGACY_ALIASES)
    for jm in jaxmarl_layouts():
        names.add(JAXMARL_PREFIX + jm if jm in CLASSIC_LAYOUTS else jm)
    return sorted(names)


def get_layout(spec: str) -> KitchenLayout:
    """A layout by name (classic, legacy alias, JaxMARL V2) or by path to a .txt/.toml file."""
    name = LEGACY_ALIASES.get(spec, spec)
    if name in CLASSIC_LAYOUTS:
        return parse_layout(CLASSIC_LAYOUTS[name], name=name)
    if name.startswith(JAXMARL_PREFIX) and name[len(JAXMARL_PREFIX) :] in jaxmarl_layouts():
        return _from_jaxmarl(name[len(JAXMARL_PREFIX) :])
    if name in jaxmarl_layouts():
        return _from_jaxmarl(name)
    path = Path(spec)
    if path.suffix in (".txt", ".toml", ".layout") or path.exists():
        if path.is_dir():
            raise LayoutError(f"layout {spec!r} is a directory; give a kitchen file (.txt or .toml) or a layout name")
        if not path.is_file():
            raise LayoutError(f"layout file {spec!r} does not exist")
        if path.suffix == ".toml":
            return load_toml_layout(path)
        return parse_layout(_read_kitchen_text(path), name=path.stem)
    raise LayoutError(
        f"unknown layout {spec!r}. Classic: {', '.join(CLASSIC_LAYOUTS)}; all names: "
        f"{', '.join(available_layouts())}; or give a path to a .txt/.toml kitchen file"
    )
