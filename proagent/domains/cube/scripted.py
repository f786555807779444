"""The CUBE scripted planner (`--llm scripted`): the ``pusher`` convention from the seat's grounding.

It plays the heaviest block whose left face it can reach (pushed right, clear lanes first),
predicts every teammate does the same, follows a leader's directive for it when it can, and, when
the conversation lets it speak, tells the team: a leader directs everyone to its block, anyone
else says what it will do. The answer takes the format the prompt asked for
(`proagent.llm.scripted.format_answer`).
"""

from __future__ import annotations

import re
from typing import Any

from proagent.llm.scripted import Answer, format_answer, require
from proagent.llm.types import Grounding
from proagent.world.capabilities import ScriptedPlanning

EXPLANATION = "That skill's preconditions do not hold here; another block's face is free."

BlockReading = tuple[int, int, bool, bool]  # index, weight, its face reachable, another block in its way


def plan_for(blocks: list[BlockReading]) -> str:
    """``blocks``: the undelivered blocks; the pusher's order: clear lanes first, then the heaviest reachable."""
    for index, _, reachable, _ in sorted(blocks, key=lambda b: (b[3], -b[1], b[0])):
        if reachable:
            return f"push({index})"
    return "wait(1)"


def cube_answer(grounding: Grounding | None) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    g = require(grounding)
    if g.purpose == "explain":
        return EXPLANATION
    facts = g.facts
    blocks = [_reading(b) for b in facts["blocks"] if not b["delivered"]]
    plan = _directed(g, facts["me"]["seat"], blocks) or plan_for(blocks)
    guess = plan_for([(i, w, True, jammed) for i, w, _, jammed in blocks])
    mates = [t["seat"] for t in facts["teammates"]]
    message = _message(g, plan if plan.startswith("push") else guess, mates) if "message" in g.fields else None
    analysis = f"{len(blocks)} blocks are left; the heaviest needs us together."
    intention = {f"player {s}": guess for s in mates} if len(mates) > 1 else guess
    return format_answer(g, Answer(analysis, intention, plan, message))


def _reading(block: dict[str, Any]) -> BlockReading:
    distance = block["distance"]
    return (block["index"], block["weight"], distance is not None and distance >= 0, block["ahead"] is not None)


def _directives(g: Grounding) -> list[str]:
    """The directives the seat received since it last planned (each message's first line)."""
    messages = g.talk["messages"] if g.talk is not None else []
    return [m["text"].split("\n")[0] for m in messages if m["kind"] == "directive"]


def _directed(g: Grounding, me: int, blocks: list[BlockReading]) -> str | None:
    """A leader's directive for this player (``player k: push(b)``), when it names a reachable block."""
    reachable = {f"push({i})" for i, _, reach, _ in blocks if reach}
    for directive in _directives(g):
        mine = re.search(rf"player {me}\s*:\s*([a-z_]+\(\d*\))", directive)  # the message's own words
        if mine and mine.group(1) in reachable:  # a directive it cannot carry out gives way to its own plan
            return mine.group(1)
    return None


def _message(g: Grounding, plan: str, mates: list[int]) -> str:
    """A leader directs everyone to its own block (the pusher convention: all on the heaviest; the
    heaviest block when it cannot reach one itself); anyone else says what it will do."""
    talk = g.talk or {}
    if talk.get("topology") == "centralized" and talk.get("role") == "leader":
        return "; ".join(f"player {s}: {plan}" for s in mates)
    return f"I will {plan}; join me."


SCRIPTED = ScriptedPlanning(answer=cube_answer, source=__name__)
