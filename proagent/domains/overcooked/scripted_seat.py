"""What an Overcooked prompt tells one seat, read from its grounding (the V2 cook's inputs).

The planner prompt is rendered from the seat's facts (`proagent.domains.overcooked.grounding`), its
memory and the feedback on rejected attempts; the system prompt from the kitchen's skills and the
layout's knowledge. `read_seat` takes the same values as typed data, so the scripted planner sees exactly
what the prompt says (with a partial view: only what the seat sees or remembers) whatever the
wording of the templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proagent.llm.types import Grounding

V2_SKILLS = ("put_in_pot()", "press_button()", "go_to_indicator()")

Pos = tuple[int, int]
PotReading = tuple[str, tuple[str, ...]]  # status (empty, filling, cooking, ready, unknown), ingredients


@dataclass(frozen=True)
class Convention:
    """An ``item`` on one of the ``spots`` means ``present``; none there means ``absent``."""

    item: str
    spots: tuple[Pos, ...]
    present: tuple[str, ...]
    absent: tuple[str, ...]


@dataclass(frozen=True)
class CounterItem:
    item: str
    position: Pos
    in_view: bool
    seen_step: int | None  # when it was last seen, for an item out of view


@dataclass(frozen=True)
class Seat:
    """One seat's prompt, as data: its own view, memory, feedback and skill list."""

    held: str
    pots: tuple[PotReading, ...]
    pots_in_view: bool  # a pot the seat sees now (not as remembered, not unseen)
    recipe: tuple[str, ...] | None  # the recipe it knows now
    recipe_on_indicator: bool  # the recipe it knows was read on a recipe indicator (partial view)
    dist: dict[str, int | None]
    rejected: frozenset[str]
    offered: frozenset[str]  # the V2 skills the system prompt lists
    step: int
    me: Pos
    radius: int | None  # its view radius; None: it sees the whole kitchen
    stale_since: int | None  # the recipe it knew went stale at this delivery
    mate_held: str | None  # what the teammate holds, when the seat sees it
    memory: tuple[tuple[int, str], ...]  # (step, skill) of its recent decisions
    counters: tuple[CounterItem, ...]
    saw_mate: tuple[str, int] | None  # the teammate's last skill it saw completed, and when
    button_lit: int | None  # the last step it saw a button indicator lit (now: the current step)
    buttons: tuple[Pos, ...]  # the buttons its kitchen picture shows (in view or remembered)
    convention: Convention | None

    def can(self, skill: str) -> bool:
        return skill not in self.rejected and (skill in self.offered or skill not in V2_SKILLS)

    def reach(self, name: str) -> bool:
        return self.dist.get(name, 0) is not None  # a place with no distance given: try it

    def in_view(self, pos: Pos) -> bool:
        if self.radius is None:
            return True
        return abs(pos[0] - self.me[0]) <= self.radius and abs(pos[1] - self.me[1]) <= self.radius

    @property
    def put(self) -> str:
        return "put_in_pot()" if "put_in_pot()" in self.offered else "put_onion_in_pot()"


def is_v2(grounding: Grounding) -> bool:
    """A V2 kitchen's prompt: a V2 skill on offer, or a recipe the seat does not know."""
    return bool(_offered(grounding)) or (_partial(grounding.facts) and _recipe(grounding.facts) is None)


def read_seat(grounding: Grounding) -> Seat:
    """The seat's prompt as data (see the module docstring)."""
    f = grounding.facts
    partial = _partial(f)
    mate = f["teammate"]
    return Seat(
        held=f["me"]["held"] or "nothing",
        pots=tuple(_pot(p) for p in f["pots"]),
        pots_in_view=any(_pot_seen_now(p, partial) for p in f["pots"]),
        recipe=_recipe(f),
        recipe_on_indicator=_recipe(f) is not None and partial and _source(f)["how"] == "indicator",
        dist=dict(f["distances"]),
        rejected=frozenset(a["skill"] for a in grounding.feedback),
        offered=_offered(grounding),
        step=f["step"],
        me=_pos(f["me"]["position"]),
        radius=f["view"]["radius"] if partial else None,
        stale_since=f["recipe_source"]["stale_since"] if partial and f["recipe_source"] is not None else None,
        mate_held=(mate["held"] or "nothing") if not partial or mate["in_view"] else None,
        memory=tuple((m["step"], m["skill"]) for m in grounding.memory),
        counters=tuple(_counter(c, partial) for c in f["counters"]),
        saw_mate=(mate["last_skill"], mate["last_skill_step"]) if partial and mate["last_skill"] else None,
        button_lit=_button_lit(f) if partial else None,
        buttons=_cells(f["kitchen_ascii"], "L"),
        convention=_convention(grounding.layout.get("signal")),
    )


def _partial(facts: dict[str, Any]) -> bool:
    return "view" in facts  # a partial view's facts (perception on)


def _source(facts: dict[str, Any]) -> dict[str, Any] | None:
    return facts["recipe_source"]


def _recipe(facts: dict[str, Any]) -> tuple[str, ...] | None:
    """The recipe the seat knows now: all of it with the full view; with a partial view only one
    it learned and that no delivery since may have changed."""
    if _partial(facts):
        source = _source(facts)
        if source is None or source["stale_since"] is not None:
            return None
    return tuple(facts["recipe"]) or None


def _offered(grounding: Grounding) -> frozenset[str]:
    return frozenset(s for s in V2_SKILLS if s in grounding.skills)


def _pos(value: list[int]) -> Pos:
    return (int(value[0]), int(value[1]))


def _pot(pot: dict[str, Any]) -> PotReading:
    status = pot["status"]
    return (status, tuple(pot["ingredients"]) if status == "filling" else ())


def _pot_seen_now(pot: dict[str, Any], partial: bool) -> bool:
    """A pot the seat sees now: seen at all, and not only as remembered from out of view."""
    if pot["status"] == "unknown":
        return False
    return not partial or pot["in_view"] or pot["seen_step"] is None


def _counter(counter: dict[str, Any], partial: bool) -> CounterItem:
    in_view = not partial or counter["in_view"]
    return CounterItem(counter["item"], _pos(counter["position"]), in_view, None if in_view else counter["seen_step"])


def _button_lit(facts: dict[str, Any]) -> int | None:
    """The last step a button indicator was seen lit: now if one in view is lit."""
    seen = []
    for button in facts["buttons"]:
        if button["in_view"] and button["lit_ticks"]:
            seen.append(facts["step"])
        elif button["last_lit_step"] is not None and not button["lit_ticks"]:
            seen.append(button["last_lit_step"])
    return max(seen, default=None)


def _cells(picture: str, letter: str) -> tuple[Pos, ...]:
    """The cells drawn as ``letter`` in the kitchen picture (a grid of two-character cells)."""
    rows = picture.splitlines()
    return tuple((x // 2, y) for y, row in enumerate(rows) for x in range(0, len(row), 2) if row[x] == letter)


def _convention(signal: dict[str, Any] | None) -> Convention | None:
    """The layout's signal convention (its knowledge's ``[signal]`` table), if it has one."""
    if signal is None:
        return None
    spots = tuple(_pos(c) for c in signal["counters"])
    return Convention(signal["item"], spots, tuple(signal["present"]), tuple(signal["absent"]))
