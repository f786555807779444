"""Reading an MA-Crafter skill from a model's text: several arguments, in the words models use.

The canonical form is ``name(a, b, c)`` (what ``str(skill)`` prints and the JSON schema lists); a
model may also write keywords (``share(id=1, item=wood, qty=2)``), quotes, ``player 2`` or ``agent_2`` for a
teammate, ``wood`` for a tree, ``wooden_pickaxe``, ``sapling`` for a plant, a missing count (1)
or a compass direction. Anything that still names no valid skill is a
SkillParseError that says which part was wrong.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Protocol

from proagent.bounded import NumberError, read_int
from proagent.world.kit.skills import ArgChoices, ArgRange
from proagent.world.types import Skill, SkillParseError

_CALL = re.compile(r"([a-z_]+)\s*\(([^()]*)\)")
_KEYWORD = re.compile(r"\b[a-z_]+\s*[=:]\s*")
_TEAMMATE = re.compile(r"\b(?:agent|player|teammate|seat)_?\s*([0-9]+)")
_TOKEN = re.compile(r"[a-z_]+|[0-9]+")
_NUMBER = re.compile(r"[0-9]+")
MAX_NUMBER = 10**6  # above every count, seat and step a skill takes: the book's ranges say the rest
_WORD = re.compile(r"[a-z_]+")
_SYNONYMS = {
    "wood": "tree",
    "trees": "tree",
    "log": "tree",
    "drink": "water",
    "crafting_table": "table",
    "workbench": "table",
    "north": "up",
    "south": "down",
    "west": "left",
    "east": "right",
}
_ARG_KIND = {
    "noop": "steps",
    "move": "move",
    "navigate": "navigate",
    "collect": "collect",
    "craft": "craft",
    "place": "place",
    "share": "share",
}


class _Book(Protocol):
    specs: dict
    aliases: dict[str, str]
    ranges: dict[str, ArgRange | ArgChoices]

    def signatures(self) -> list[str]: ...


def _call(text: str, book: _Book) -> tuple[str, str]:
    """(skill name, argument text) of the first call of a known skill (or a bare known name)."""
    known = set(book.specs) | set(book.aliases)
    for match in _CALL.finditer(text):
        if match.group(1) in known:
            return match.group(1), match.group(2)
    bare = [w for w in _WORD.findall(text) if w in known]
    if bare:
        return bare[0], text.split(bare[0], 1)[1]
    raise SkillParseError(f"no skill call found in {text!r}; expected one of {book.signatures()}", text)


def _tokens(args: str, signature: str, raw: str) -> tuple[list[str], list[int]]:
    """The argument's words (synonyms resolved) and whole numbers, in order; a SkillParseError for
    a number in other digits than 0-9 (``noop(٣)``) or out of all bounds (5,000 nines)."""
    if any(not c.isascii() and unicodedata.numeric(c, None) is not None for c in args):
        raise SkillParseError(f"{signature}: write numbers with the digits 0-9", raw)
    args = _TEAMMATE.sub(r"agent \1", _KEYWORD.sub(" ", args)).replace("wooden", "wood")
    tokens = _TOKEN.findall(args)
    words = [_SYNONYMS.get(t, t) for t in tokens if not _NUMBER.fullmatch(t)]
    try:
        return words, [read_int(t, f"{signature}: a number", 0, MAX_NUMBER) for t in tokens if _NUMBER.fullmatch(t)]
    except NumberError as exc:
        raise SkillParseError(str(exc), raw) from None


def _canonical(name: str, words: list[str], numbers: list[int]) -> str | int | None:
    """The skill's canonical argument from its words and numbers (before the range check)."""
    count = numbers[0] if numbers else 1
    if name == "noop":
        return count
    if name == "move":
        return f"{words[0] if words else ''}, {count}"
    if name == "navigate":
        if "agent" in words or (numbers and not words):
            return f"agent, {numbers[0]}" if numbers else "agent, ?"
        return words[0] if words else ""
    if name == "share":
        items = [w for w in words if w != "agent"]
        item = (
            "wood"
            if items and items[0] == "tree"
            else "drink"
            if items and items[0] == "water"
            else items[0]
            if items
            else ""
        )
        qty = numbers[1] if len(numbers) > 1 else 1
        return f"{numbers[0] if numbers else '?'}, {item}, {qty}"
    word = words[0] if words else ""
    return "plant" if name == "place" and word == "sapling" else word


def read_skill(text: str, book: _Book) -> Skill:
    """A skill from free text, its arguments read loosely and checked against the book's ranges."""
    cleaned = text.strip().lower().replace("-", "_").replace("'", " ").replace('"', " ")
    called, args = _call(cleaned, book)
    name = book.aliases.get(called, called)
    spec = book.specs[name]
    if spec.args is None:
        return Skill(name)
    words, numbers = _tokens(args, spec.signature, text)
    arg = _canonical(name, words, numbers)
    allowed = book.ranges[_ARG_KIND[name]]
    if isinstance(allowed, ArgRange):
        return Skill(name, allowed.read(spec.signature, str(arg), text))
    if arg not in allowed.choices:
        raise SkillParseError(f"{spec.signature}: cannot read {called}({args.strip()}); {_hint(name, allowed)}", text)
    return Skill(name, arg)


def _hint(name: str, allowed: ArgChoices) -> str:
    """What the arguments may be, short enough for a re-plan prompt."""
    if name in ("collect", "craft", "place"):
        return f"the argument must be one of {list(allowed.choices)}"
    if name == "share":
        return "write share(k, item, qty): k a teammate's seat, an item you hold (or food, drink, energy), qty 1 to 5"
    if name == "move":
        return "write move(dir, steps): dir one of left, right, up, down; steps 1 to 5"
    return "write navigate(target) with a thing's name, or navigate(agent, k) for teammate k"


__all__ = ["read_skill"]
