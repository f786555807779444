"""Reading a V2 prompt for the heuristic responder (`heuristic_v2`): the agent's own view, memory,
skill list and the layout's signal convention, parsed from the prompt text only (never the state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CONVENTION = re.compile(
    r"Signal convention[^:]*: an? (\w+) on one of the counters ((?:\[\d+, \d+\](?:, | or )?)+) means ([a-z, ]+?); "
    r"no \1 on them means ([a-z, ]+?)\."
)
_CELL = re.compile(r"\[(\d+), (\d+)\]")
_HELD = re.compile(r"You(?: \(player \d\))? are at \[[^\]]*\](?: facing \w+)?, holding ([^.]+)\.")
_ME = re.compile(r"You(?: \(player \d\))? are at \[(\d+), (\d+)\]")
_POT = re.compile(r"Pot at \[[^\]]*\]: ([^\n]*?)\.(?: |\n|$)")
_FILLING = re.compile(r"(\d) of 3 ingredients \(([^)]*)\)")
_RECIPE = re.compile(r"Recipe: ([^.(\n]*?)(?: \(|\.|;)")
_DISTANCES = re.compile(r"Steps from you to the nearest[^:]*: ([^\n]*)\.")
_REJECTED = re.compile(r"(?:Your plan|You chose) ([a-z_]+\([^)]*\))(?:,)? (?:but it )?cannot be done now")
_STEP = re.compile(r"Step (\d+) of \d+")
_RADIUS = re.compile(r"at most (\d+) away from you")
_STALE = re.compile(r"Recipe: unknown now; it was [^\n]*? until step (\d+)")
_MATE_HELD = re.compile(r"Your teammate(?: \(player \d\))? is at \[[^\]]*\](?: facing \w+)?, holding ([^;.\n]+)")
_MEMORY = re.compile(r"^- step (\d+): you chose ([a-z_]+\([^)]*\)) \(([^)]*)\)", re.MULTILINE)
_SAW_MATE = re.compile(r"the last skill you saw it complete was ([a-z_]+\([^)]*\)) \(step (\d+)\)")
_COUNTERS = re.compile(r"Objects on counters: ([^\n]*)\.\n")
_COUNTER_ITEM = re.compile(r"([a-z][a-z0-9 ,]*?) at \[(\d+), (\d+)\](?: \(out of view; seen at step (\d+)\))?")
_BUTTON_LIT = re.compile(r"Button indicator at \[\d+, \d+\]: (?:lit, showing|[^\n]*?you last saw it lit at step (\d+))")
_KITCHEN = re.compile(r"Kitchen \([^\n]*\n((?:[^\n]*\n)*?)You")
_V2_SKILLS = ("put_in_pot()", "press_button()", "go_to_indicator()")

Pos = tuple[int, int]


@dataclass(frozen=True)
class Convention:
    """An ``item`` on one of the ``spots`` means ``present``; none there means ``absent``."""

    item: str
    spots: tuple[tuple[int, int], ...]
    present: tuple[str, ...]
    absent: tuple[str, ...]


def _recipe(words: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in words.split(","))


def parse_convention(text: str) -> Convention | None:
    match = _CONVENTION.search(text)
    if match is None:
        return None
    spots = tuple((int(x), int(y)) for x, y in _CELL.findall(match.group(2)))
    return Convention(match.group(1), spots, _recipe(match.group(3)), _recipe(match.group(4)))


def is_v2(text: str) -> bool:
    """A prompt of a V2 kitchen: a V2 skill on offer, or a recipe the agent does not know."""
    return any(re.search(rf"\b{re.escape(s)}", text) for s in _V2_SKILLS) or "Recipe: unknown" in text


def parse_recipe(user: str) -> tuple[str, ...] | None:
    """The recipe the prompt says the agent knows (None: unknown or not stated)."""
    match = _RECIPE.search(user)
    if match is None:
        return None
    words = match.group(1).strip()
    if not words or words.startswith("unknown"):
        return None
    return tuple(w.strip() for w in words.split(","))


def _distances(user: str) -> dict[str, int | None]:
    match = _DISTANCES.search(user)
    out: dict[str, int | None] = {}
    if match is None:
        return out
    for part in match.group(1).split(", "):
        name, _, value = part.rpartition(" ")
        if name:
            out[name] = int(value) if value.isdigit() else None
    return out


def _pots(user: str) -> list[tuple[str, tuple[str, ...]]]:
    """(status, ingredients) per pot line: empty, filling, cooking, ready or unknown."""
    out = []
    for text in _POT.findall(user):
        if text.startswith("empty"):
            out.append(("empty", ()))
        elif (filling := _FILLING.match(text)) is not None:
            out.append(("filling", tuple(i.strip() for i in filling.group(2).split(","))))
        elif text.startswith("cooking"):
            out.append(("cooking", ()))
        elif text.startswith("soup ready"):
            out.append(("ready", ()))
        else:
            out.append(("unknown", ()))
    return out


def cells(user: str, letter: str) -> list[Pos]:
    """The map cells drawn as ``letter`` (two characters a cell) in the prompt's kitchen picture."""
    match = _KITCHEN.search(user)
    if match is None:
        return []
    rows = match.group(1).splitlines()
    return [(x // 2, y) for y, row in enumerate(rows) for x in range(0, len(row), 2) if row[x] == letter]


@dataclass
class Prompt:
    """What one V2 prompt says, parsed: the agent's own view, memory and skill list."""

    user: str
    everything: str
    held: str
    pots: list[tuple[str, tuple[str, ...]]]
    recipe: tuple[str, ...] | None
    dist: dict[str, int | None]
    rejected: set[str]
    offered: set[str]
    step: int
    me: Pos | None
    radius: int | None
    stale_since: int | None
    mate_held: str | None
    memory: list[tuple[int, str, str]]
    counters: list[tuple[str, Pos, bool, int | None]]  # item, position, in view now, seen at step
    saw_mate: tuple[str, int] | None
    button_lit: int | None  # the last step it saw a button indicator lit (now: the current step)
    convention: Convention | None = field(default=None)

    def can(self, skill: str) -> bool:
        return skill not in self.rejected and (skill in self.offered or skill not in _V2_SKILLS)

    def reach(self, name: str) -> bool:
        return self.dist.get(name, 0) is not None  # a place the prompt gives no distance for: try it

    def in_view(self, pos: Pos) -> bool:
        if self.me is None or self.radius is None:
            return True
        return abs(pos[0] - self.me[0]) <= self.radius and abs(pos[1] - self.me[1]) <= self.radius

    @property
    def put(self) -> str:
        return "put_in_pot()" if "put_in_pot()" in self.offered else "put_onion_in_pot()"


def _button_lit(user: str, step: int) -> int | None:
    seen = [int(last) if last else step for last in _BUTTON_LIT.findall(user)]  # "" = lit now
    return max(seen, default=None)


def parse_prompt(user: str, everything: str) -> Prompt:
    held_match, me, step = _HELD.search(user), _ME.search(user), _STEP.search(user)
    radius, stale, mate = _RADIUS.search(user), _STALE.search(user), _MATE_HELD.search(user)
    saw = _SAW_MATE.search(user)
    counters = []
    if (listed := _COUNTERS.search(user)) is not None:
        for item, x, y, seen in _COUNTER_ITEM.findall(listed.group(1)):
            counters.append((item.strip(", "), (int(x), int(y)), not seen, int(seen) if seen else None))
    return Prompt(
        user=user,
        everything=everything,
        held=held_match.group(1).strip() if held_match else "nothing",
        pots=_pots(user),
        recipe=parse_recipe(user),
        dist=_distances(user),
        rejected=set(_REJECTED.findall(user)),
        offered={s for s in _V2_SKILLS if s in everything},
        step=int(step.group(1)) if step else 0,
        me=(int(me.group(1)), int(me.group(2))) if me else None,
        radius=int(radius.group(1)) if radius else None,
        stale_since=int(stale.group(1)) if stale else None,
        mate_held=mate.group(1).strip() if mate else None,
        memory=[(int(s), skill, outcome) for s, skill, outcome in _MEMORY.findall(user)],
        counters=counters,
        saw_mate=(saw.group(1), int(saw.group(2))) if saw else None,
        button_lit=_button_lit(user, int(step.group(1)) if step else 0),
        convention=parse_convention(everything),
    )


