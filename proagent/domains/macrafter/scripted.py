"""The MA-Crafter scripted planner (`--llm scripted`): the tech-tree convention from the seat's grounding.

It reads only the seat's facts (its bag, what is in view or remembered, the rules' quorums and
tools, the team size from its teammates): wood first (enough for a table and a pickaxe), a table,
a wood pickaxe, stone, a stone pickaxe, then the most valuable resource the team's size allows and
the seat's exact tools reach; with nothing useful in sight it explores. It predicts every teammate does the same,
follows a leader's directive for it when that names a skill, and, when the conversation lets it
speak, a leader directs everyone to its own plan and anyone else says what it will do; a craft
that needs a quorum, announced by a teammate, is joined.
"""

from __future__ import annotations

import re

from proagent.llm.scripted import Answer, format_answer, require
from proagent.llm.types import Grounding
from proagent.world.capabilities import ScriptedPlanning

EXPLANATION = "That skill's preconditions do not hold here; gather what it needs first."
_EXPLORE = ("left", "up", "right", "down")


def plan_for(facts: dict) -> str:
    """The convention's next skill for the seat whose facts these are."""
    me = facts["me"]
    bag, tier = me["inventory"], _tier(me)
    known = {t["name"] for t in facts["visible"]} | {t["name"] for t in facts["remembered"]}
    team = len(facts["teammates"]) + 1
    wood, stone = bag.get("wood", 0), bag.get("stone", 0)
    if tier == 0:
        if wood < (1 if "table" in known else 3):
            return "collect(tree)" if "tree" in known else _explore(facts)
        return "craft(wood_pickaxe)" if "table" in known else "place(table)"
    if tier == 1:
        if wood < 1:
            return "collect(tree)" if "tree" in known else _explore(facts)
        if stone < 1:
            return "collect(stone)" if "stone" in known else _explore(facts)
        return "craft(stone_pickaxe)" if "table" in known else _explore(facts)
    able = [r for r in facts["rules"] if r["you_can"] and r["quorum"] <= team and r["resource"] in known]
    if not able:
        return _explore(facts)
    return f"collect({max(able, key=lambda r: r['value'])['resource']})"


def _tier(me: dict) -> int:
    """The seat's pickaxe tier from the tools its facts list."""
    tools = me.get("tools", [])
    return 3 if "iron_pickaxe" in tools else 2 if "stone_pickaxe" in tools else 1 if "wood_pickaxe" in tools else 0


def _explore(facts: dict) -> str:
    return f"move({_EXPLORE[(facts['step'] // 8) % 4]}, 3)"


def macrafter_answer(grounding: Grounding | None) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    g = require(grounding)
    if g.purpose == "explain":
        return EXPLANATION
    facts = g.facts
    own = plan_for(facts)
    refused = {f["skill"] for f in g.feedback}
    # A refused plan is never proposed again in the same decision: the convention's fallback is to look around.
    candidates = (_directed(g, facts["me"]["seat"]), _joined(g, facts), own, _explore(facts), "noop(1)")
    plan = next((c for c in candidates if c is not None and c not in refused), "noop(1)")
    mates = [t["seat"] for t in facts["teammates"]]
    message = _message(g, plan, mates) if "message" in g.fields else None
    intention = {f"player {s}": own for s in mates} if len(mates) > 1 else own
    analysis = f"I hold {sum(facts['me']['inventory'].values())} items; the tech tree goes on."
    return format_answer(g, Answer(analysis, intention, plan, message))


def _directed(g: Grounding, me: int) -> str | None:
    """A leader's directive for this player (``player k: skill``), in the message's own words. One the
    Verificator refused in this decision is skipped by the caller: a directive it cannot carry out now
    gives way to its own plan (as the follower's prompt says) instead of being proposed until the retries run out."""
    messages = g.talk["messages"] if g.talk is not None else []
    for m in messages:
        if m["kind"] == "directive":
            mine = re.search(rf"player {me}\s*:\s*([a-z_]+\([^)]*\))", m["text"])
            if mine:
                return mine.group(1)
    return None


def _joined(g: Grounding, facts: dict) -> str | None:
    """A pickaxe craft a teammate announced that needs a quorum (stone, iron): join it where a table
    is known and this seat has no such pickaxe yet (every crafter gets the item, whoever pays)."""
    known = {t["name"] for t in facts["visible"]} | {t["name"] for t in facts["remembered"]}
    messages = g.talk["messages"] if g.talk is not None else []
    for m in messages:
        found = re.search(r"craft\((stone|iron)_pickaxe\)", m["text"])
        tier = 2 if found is not None and found.group(1) == "stone" else 3
        if found and "table" in known and _tier(facts["me"]) < tier:
            return found.group(0)
    return None


def _message(g: Grounding, plan: str, mates: list[int]) -> str:
    talk = g.talk or {}
    if talk.get("topology") == "centralized" and talk.get("role") == "leader":
        return "; ".join(f"player {s}: {plan}" for s in mates)
    return f"I will {plan}."


SCRIPTED = ScriptedPlanning(answer=macrafter_answer, source=__name__)
