"""Reads `render_ascii` text back into a kitchen record, for traces written before steps carried
the structured ``kitchen`` (so the replay page shows old runs too).

The ASCII keeps two characters a cell (terrain + content, a player as facing arrow + held item)
and a legend with each player's exact holding; it drops pot timers and, in pots and on counters,
which ingredients a soup has. Those are filled with the best guess (onions, no timer) and the
record is marked ``"approximate": true``.
"""

from __future__ import annotations

import re

_ARROWS = {"^": "up", "v": "down", ">": "right", "<": "left"}
_ITEMS = {"o": "onion", "t": "tomato", "d": "dish", "s": "soup"}
# ASCII digits, a few: an old trace's line with odd or endless digits is left out, never int()'s error
_PLAYER = re.compile(r"player ([0-9]{1,4}): at \(([0-9]{1,4}), ([0-9]{1,4})\) facing (\w+), holding (.+)")
_STEP = re.compile(r"t=([0-9]{1,9})/([0-9]{1,9})\s+recipe: (.*)")


def _split(text: str) -> tuple[list[str], list[str]]:
    lines = text.split("\n")
    grid = [line for line in lines if not line.startswith(("t=", "player "))]
    legend = [line for line in lines if line.startswith(("t=", "player "))]
    width = max((len(line) for line in grid), default=0)
    width += width % 2
    return [line.ljust(width) for line in grid], legend


def parse_terrain(text: str) -> list[str]:
    """The terrain characters (players stand on floor; pots show as P)."""
    grid, _ = _split(text)
    return ["".join(" " if row[i] in _ARROWS else row[i] for i in range(0, len(row), 2)) for row in grid]


def _item(name: str) -> dict:
    name = name.strip()
    if name.startswith("soup"):
        ingredients = [s.strip() for s in name.removeprefix("soup of").split(",") if s.strip()] or ["onion"] * 3
        return {"kind": "soup", "name": "soup", "ingredients": ingredients}
    if name == "dish":
        return {"kind": "dish", "name": "dish", "ingredients": []}
    return {"kind": "ingredient", "name": name, "ingredients": [name]}


def parse_ascii(text: str) -> dict:
    """A kitchen record (as `KitchenState.to_record`) from `render_ascii` output."""
    grid, legend = _split(text)
    record: dict = {
        "step": 0,
        "horizon": 0,
        "players": [],
        "pots": [],
        "counters": [],
        "recipe": [],
        "approximate": True,
    }
    for line in legend:
        if m := _STEP.match(line):
            record["step"], record["horizon"] = int(m.group(1)), int(m.group(2))
            record["recipe"] = [s.strip() for s in m.group(3).split(",") if s.strip()]
        elif m := _PLAYER.match(line):
            held = m.group(5).strip()
            player = {"index": int(m.group(1)), "position": [int(m.group(2)), int(m.group(3))], "facing": m.group(4)}
            record["players"].append({**player, "held": None if held == "nothing" else _item(held)})
    for y, row in enumerate(grid):
        for x in range(len(row) // 2):
            terrain, content = row[2 * x], row[2 * x + 1]
            if terrain == "P":
                record["pots"].append(_pot([x, y], content))
            elif terrain in "XSDRL" and content in _ITEMS:
                record["counters"].append({"position": [x, y], "item": _item(_ITEMS[content])})
    return record


def _pot(position: list[int], mark: str) -> dict:
    count = int(mark) if mark in "0123456789" else 3 if mark in "~!" else 0  # never '²', which int() refuses
    return {
        "position": position,
        "ingredients": ["onion"] * count,
        "cooking": mark == "~",
        "ready": mark == "!",
        "ticks_left": 0,
    }
