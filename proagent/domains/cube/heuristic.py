"""A scripted CUBE "model" for `proagent.llm.fake_server.FakeChatServer` (tests and offline demos).

It reads the prompt's state text the way a model would (not the engine), plays the `pusher`
convention (the heaviest block whose left face it can reach, pushed right), predicts every
teammate does the same, and answers in the prompt's format (JSON or the labelled lines).
"""

from __future__ import annotations

import re
from typing import Any

from proagent.llm.answer_format import format_answer

_ME = re.compile(r"You \(player (\d+)\) are at \((\d+),(\d+)\)")
_MATE = re.compile(r"Teammate \(player (\d+)\) is at")
_BLOCK = re.compile(r"Block (\d+) \(weight (\d+)\) at \(\d+,\d+\): (.*?)(unreachable|\d+ steps from you)")
_DIRECTIVE = re.compile(r"^- player \d+ \(directive\): (.*)$", re.MULTILINE)
_WANTS_MESSAGE = re.compile(r"JSON object with the keys [^(]*\bmessage\b|^Message: <", re.MULTILINE)


def plan_for(blocks: list[tuple[int, int, bool, bool]]) -> str:
    """``blocks``: (index, weight, reachable, jammed) of the undelivered blocks; the pusher's order:
    clear lanes first, then the heaviest reachable."""
    for index, _, reachable, _ in sorted(blocks, key=lambda b: (b[3], -b[1], b[0])):
        if reachable:
            return f"push({index})"
    return "wait(1)"


def cube_answer(body: dict[str, Any]) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    user = body["messages"][-1]["content"]
    if "Answer" not in user:
        return "That skill's preconditions do not hold here; another block's face is free."
    me = _ME.search(user)
    if me is None:
        return "Plan: wait(1)"
    found = _BLOCK.findall(user)
    blocks = [(int(i), int(w), reach != "unreachable", "in its way" in mid) for i, w, mid, reach in found]
    plan = _directed(user, me.group(1), blocks) or plan_for(blocks)
    guess = plan_for([(i, w, True, jammed) for i, w, _, jammed in blocks])
    mates = [int(s) for s in _MATE.findall(user)]
    message = _message(user, plan if plan.startswith("push") else guess, mates) if _WANTS_MESSAGE.search(user) else None
    analysis = f"{len(blocks)} blocks are left; the heaviest needs us together."
    intention = {f"player {s}": guess for s in mates} if len(mates) > 1 else guess
    return format_answer(body, user, analysis, intention, plan, message)


def _directed(user: str, me: str, blocks: list[tuple[int, int, bool, bool]]) -> str | None:
    """A leader's directive for this player (``player k: push(b)``), when it names a reachable block."""
    reachable = {f"push({i})" for i, _, reach, _ in blocks if reach}
    for directive in _DIRECTIVE.findall(user):
        mine = re.search(rf"player {me}\s*:\s*([a-z_]+\(\d*\))", directive)
        if mine and mine.group(1) in reachable:  # a directive it cannot carry out gives way to its own plan
            return mine.group(1)
    return None


def _message(user: str, plan: str, mates: list[int]) -> str:
    """A leader directs everyone to its own block (the pusher convention: all on the heaviest; the
    heaviest block when it cannot reach one itself); anyone else says what it will do."""
    if "You lead the team" in user:
        return "; ".join(f"player {s}: {plan}" for s in mates)
    return f"I will {plan}; join me."
