"""Layouts: the classic five are the legacy overcooked_ai kitchens; names, files and validation."""

from __future__ import annotations

import textwrap

import jax
import numpy as np
import pytest

import envs
from envs import Direction, LayoutError, get_layout, parse_layout
from envs.overcooked.engine import StaticObject
from envs.overcooked.layouts import JAXMARL_PREFIX, LEGACY_ALIASES

# The grids of overcooked_ai's layout files (data/layouts/*.layout), '1' and '2' the player starts.
LEGACY_GRIDS = {
    "cramped_room": ["XXPXX", "O  2O", "X1  X", "XDXSX"],
    "asymmetric_advantages": ["XXXXXXXXX", "O XSXOX S", "X   P 1 X", "X2  P   X", "XXXDXDXXX"],
    "coordination_ring": ["XXXPX", "X 1 P", "D2X X", "O   X", "XOSXX"],
    "forced_coordination": ["XXXPX", "O X1P", "O2X X", "D X X", "XXXSX"],
    "counter_circuit": ["XXXPPXXX", "X  2   X", "D XXXX S", "X  1   X", "XXXOOXXX"],
}

# (x, y) of '1' and '2' read off the grids above by hand; y grows downwards.
LEGACY_STARTS = {
    "cramped_room": ((1, 2), (3, 1)),
    "asymmetric_advantages": ((6, 2), (1, 3)),
    "coordination_ring": ((2, 1), (1, 2)),
    "forced_coordination": ((3, 1), (1, 2)),
    "counter_circuit": ((3, 3), (3, 1)),
}

LEGACY_NAMES = {
    "simple": "cramped_room",
    "unident_s": "asymmetric_advantages",
    "random1": "coordination_ring",
    "random0": "forced_coordination",
    "random3": "counter_circuit",
}


@pytest.mark.parametrize("name", sorted(LEGACY_GRIDS))
def test_classic_layout_is_the_legacy_grid(name):
    layout = get_layout(name)
    assert layout.name == name
    assert layout.to_ascii().split("\n") == LEGACY_GRIDS[name]
    assert layout.starts == LEGACY_STARTS[name]
    assert (layout.height, layout.width) == (len(LEGACY_GRIDS[name]), len(LEGACY_GRIDS[name][0]))
    assert layout.num_ingredients == 1
    assert layout.recipes == ((0, 0, 0),)
    # the start cells are floor in the engine's terrain
    for x, y in layout.starts:
        assert layout.tiles[y, x] == StaticObject.EMPTY


def test_classic_layouts_are_exactly_the_five():
    assert set(envs.CLASSIC_LAYOUTS) == set(LEGACY_GRIDS)


@pytest.mark.parametrize("name", sorted(LEGACY_GRIDS))
def test_classic_reset_positions_and_facing(name, make_env):
    env = make_env(name)
    kitchen = env.symbolic(env.jit_reset(jax.random.PRNGKey(3)))
    assert tuple(p.position for p in kitchen.players) == LEGACY_STARTS[name]
    assert all(p.orientation == Direction.UP for p in kitchen.players)
    assert all(p.held is None for p in kitchen.players)
    assert kitchen.step == 0 and kitchen.recipe == (0, 0, 0)
    assert kitchen.counter_items == {}
    assert all(p.is_empty and p.idle for p in kitchen.pots)


@pytest.mark.parametrize("alias, name", sorted(LEGACY_NAMES.items()))
def test_legacy_aliases(alias, name):
    assert LEGACY_ALIASES[alias] == name
    a, b = get_layout(alias), get_layout(name)
    assert (a.name, a.starts, a.recipes, a.num_ingredients) == (b.name, b.starts, b.recipes, b.num_ingredients)
    assert np.array_equal(a.tiles, b.tiles)


def test_layouts_compare_and_hash_by_value():
    """KitchenLayout is a frozen dataclass (``source`` is even marked compare=False), so two parses of
    one kitchen should be equal and usable as dict keys. BUG: the generated __eq__ compares the
    ``tiles`` ndarrays with ``==`` and raises "truth value of an array ... is ambiguous"; __hash__
    hashes the ndarray and raises TypeError."""
    a, b = get_layout("simple"), get_layout("cramped_room")
    assert a == b
    assert a != get_layout("counter_circuit")
    assert hash(a) == hash(b)


def _v2_names() -> list[str]:
    classic = set(envs.CLASSIC_LAYOUTS) | set(LEGACY_ALIASES)
    return [n for n in envs.available_layouts() if n not in classic]


def test_available_layouts_lists_classic_aliases_and_v2():
    names = envs.available_layouts()
    assert names == sorted(names)
    assert set(LEGACY_GRIDS) <= set(names) and set(LEGACY_NAMES) <= set(names)
    # JaxMARL's own versions of the classic names stay reachable under a prefix
    assert JAXMARL_PREFIX + "cramped_room" in names
    assert {"cramped_room_v2", "fun_symmetries", "grounded_coord_ring"} <= set(names)


# A few V2 kitchens for the default run (a recipe indicator and two ingredients; button indicators and
# three ingredients; a one-cook kitchen); every other one under -m slow.
V2_SAMPLE = ["cramped_room_v2", "grounded_coord_ring", "long_room"]


def test_every_v2_layout_parses():
    """All JaxMARL V2 kitchens load as KitchenLayouts (cheap: no engine, no compile)."""
    names = _v2_names()
    assert len(names) >= 20 and set(V2_SAMPLE) <= set(names)
    for name in names:
        layout = get_layout(name)
        assert len(layout.starts) in (1, 2), name  # long_room is a one-cook kitchen
        for x, y in layout.starts:
            assert layout.tiles[y, x] == StaticObject.EMPTY, f"{name}: start {(x, y)} is not floor"
        assert layout.recipes and all(len(r) == 3 for r in layout.recipes), name
        assert all(0 <= i < layout.num_ingredients for r in layout.recipes for i in r), name


def test_every_layout_round_trips_through_our_text_format():
    """layout.to_ascii() parses back to the same kitchen (two-cook kitchens; our format needs '1' and '2')."""
    for name in envs.available_layouts():
        layout = get_layout(name)
        if len(layout.starts) < 2:
            continue
        again = parse_layout(layout.to_ascii(), name=name, recipes=[list(r) for r in layout.recipes])
        assert np.array_equal(again.tiles, layout.tiles), name
        assert again.starts == layout.starts, name
        assert (again.num_ingredients, again.recipes) == (layout.num_ingredients, layout.recipes), name


def _check_builds_and_resets(name: str) -> None:
    env = envs.make(name)
    kitchen = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    assert tuple(p.position for p in kitchen.players) == env.layout.starts
    assert all(p.orientation == Direction.UP and p.held is None for p in kitchen.players)
    assert tuple(sorted(kitchen.recipe)) in env.layout.recipes
    assert kitchen.step == 0 and kitchen.pots and kitchen.counter_items == {}


@pytest.mark.parametrize("name", V2_SAMPLE)
def test_v2_layout_builds_and_resets(name):
    _check_builds_and_resets(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in _v2_names() if n not in V2_SAMPLE])
def test_every_other_v2_layout_builds_and_resets(name):
    """About 0.5 s each (engine construction + reset compile), hence slow."""
    _check_builds_and_resets(name)


def test_jaxmarl_prefix_gives_jaxmarls_classic():
    ours, theirs = get_layout("counter_circuit"), get_layout(JAXMARL_PREFIX + "counter_circuit")
    assert theirs.name == JAXMARL_PREFIX + "counter_circuit"
    assert np.array_equal(ours.tiles, theirs.tiles)  # same kitchen, JaxMARL's own start cells
    assert theirs.starts == ((6, 3), (2, 1))


# ---- user files ----

KITCHEN_TXT = """
XXPPXX
O 1  X
D  2 S
XXXXXX
"""


def test_user_layout_from_txt(tmp_path, make_env):
    path = tmp_path / "my_kitchen.txt"
    path.write_text(KITCHEN_TXT)
    layout = get_layout(str(path))
    assert layout.name == "my_kitchen"
    assert layout.starts == ((2, 1), (3, 2))
    assert layout.to_ascii().split("\n") == ["XXPPXX", "O 1  X", "D  2 S", "XXXXXX"]
    assert layout.recipes == ((0, 0, 0),)
    env = envs.make(str(path))
    kitchen = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    assert [p.position for p in kitchen.pots] == [(2, 0), (3, 0)]
    assert kitchen.map.serving == ((5, 2),) and kitchen.map.dish_dispensers == ((0, 2),)
    assert kitchen.map.ingredient_dispensers == {0: ((0, 1),)}


KITCHEN_TOML = '''
grid = """
XXPXX
O  2T
X1  X
XDXSX
"""
recipes = [["onion", "onion", "tomato"], ["tomato", "tomato", "tomato"]]
'''


def test_user_layout_from_toml_with_recipes(tmp_path):
    path = tmp_path / "two_soups.toml"
    path.write_text(KITCHEN_TOML)
    layout = get_layout(str(path))
    assert layout.name == "two_soups"
    assert layout.num_ingredients == 2
    assert layout.recipes == ((0, 0, 1), (1, 1, 1))
    assert layout.starts == ((1, 2), (3, 1))
    env = envs.make(str(path))
    recipes = {env.symbolic(env.jit_reset(jax.random.PRNGKey(seed))).recipe for seed in range(8)}
    assert recipes <= {(0, 0, 1), (1, 1, 1)} and len(recipes) == 2


def test_toml_without_grid(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('recipes = [["onion", "onion", "onion"]]\n')
    with pytest.raises(LayoutError, match="needs a 'grid'"):
        get_layout(str(path))


def test_toml_unknown_ingredient(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('grid = "XXPXX\\nO12 X\\nXDXSX"\nrecipes = [["onion", "carrot", "onion"]]\n')
    with pytest.raises(LayoutError, match="unknown ingredient 'carrot'"):
        get_layout(str(path))


def test_missing_layout_file(tmp_path):
    with pytest.raises(LayoutError, match="does not exist"):
        get_layout(str(tmp_path / "nowhere.txt"))


# ---- validation ----


def grid(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


BAD_LAYOUTS = {
    "no pot": (
        grid("""
            XXXXX
            O12 X
            XDXSX
        """),
        r"has no pot \(P\)",
    ),
    "pot walled off": (
        grid("""
            XXXXXXX
            O12 XXX
            D   XPX
            S   XXX
            XXXXXXX
        """),
        r"no pot \(P\) can be reached by any player \(first at x=5, y=2\)",
    ),
    "pot in another room": (
        grid("""
            XXXXXXX
            O12 X X
            D   XPX
            S   X X
            XXXXXXX
        """),
        r"no pot \(P\) can be reached",
    ),
    "missing player 2": (
        grid("""
            XXPXX
            O1  O
            XDXSX
        """),
        r"missing start for player\(s\) 2",
    ),
    "missing both players": (
        grid("""
            XXPXX
            O   O
            XDXSX
        """),
        r"missing start for player\(s\) 1, 2",
    ),
    "duplicate start": (
        grid("""
            XXPXX
            O1 1O
            X 2 X
            XDXSX
        """),
        r"player 1 starts twice \(at \(1, 1\) and \(3, 1\)\)",
    ),
    "gap in player numbers": (
        grid("""
            XXPXX
            O1 3O
            XDXSX
        """),
        r"without gaps",
    ),
    "unknown character": (
        grid("""
            XXPXX
            O12 Q
            XDXSX
        """),
        r"unknown character 'Q' at \(x=4, y=1\)",
    ),
    "floor at the border": (
        "XXPXX\nO12  \nXDXSX",
        r"floor at the edge \(x=4, y=1\)",
    ),
    "two ingredients, no indicator, no recipes": (
        grid("""
            XXPXX
            O12 T
            XDXSX
        """),
        r"2 ingredients but no recipe indicator \(R/L\).*\.toml",
    ),
    "no serving spot": (
        grid("""
            XXPXX
            O12 X
            XDXXX
        """),
        r"has no serving spot \(S\)",
    ),
    "empty": ("\n\n", r"is empty"),
}


@pytest.mark.parametrize("case", BAD_LAYOUTS)
def test_invalid_layouts_are_rejected_with_a_clear_message(case):
    text, message = BAD_LAYOUTS[case]
    with pytest.raises(LayoutError, match=message):
        parse_layout(text, name="bad")


def test_layout_error_names_the_layout():
    with pytest.raises(LayoutError, match="layout 'my_kitchen'"):
        parse_layout("XXXXX\nO12 X\nXDXSX", name="my_kitchen")


def test_two_ingredients_with_an_indicator_get_every_recipe():
    layout = parse_layout(grid("""
        XXPRX
        O12 T
        XDXSX
    """))
    assert layout.num_ingredients == 2 and layout.has_recipe_indicator
    assert layout.recipes == ((0, 0, 0), (0, 0, 1), (0, 1, 1), (1, 1, 1))


def test_recipe_with_a_missing_ingredient_is_rejected():
    with pytest.raises(LayoutError, match=r"recipe \[0, 0, 1\] must have 3 ingredients available"):
        parse_layout("XXPXX\nO12 X\nXDXSX", recipes=[[0, 0, 1]])


def test_unknown_layout_name_lists_the_classic_names():
    with pytest.raises(LayoutError) as info:
        get_layout("crammed_room")
    message = str(info.value)
    assert "unknown layout 'crammed_room'" in message
    for name in LEGACY_GRIDS:
        assert name in message
    assert ".txt/.toml" in message
    with pytest.raises(LayoutError):
        envs.make("crammed_room")
