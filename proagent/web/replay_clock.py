"""The replay's marks of a clocked run (``--clock tokens:N`` or ``seconds:S``): when each decision
was asked and when it landed, read from the trace's ``clock`` records (`proagent.agent.clock.DecisionTiming`).

A decision's ``clock`` record rides on the trace line of its decision record (the step it was asked
under a token clock, the step it landed under a seconds clock); it names both steps, so the marks
go on the frames of those steps wherever the record sits. The lines are typed when read
(`proagent.run_lines.ClockLine`); a record that lands before it was asked is left out here.
"""

from __future__ import annotations

from proagent.run_lines import MAX_STEPS


def clock_marks(records: list[dict]) -> dict[int, list[dict]]:
    """Step -> the marks the replay's timeline shows at it: ``asked`` (the decision read this step's
    world; ``lands`` says when it is acted on) and ``landed`` (its ``skill`` is acted on from this
    step, ``based_on`` steps ago), each with ``steps``, ``tokens_in``, ``tokens_out`` and ``wall_s``.
    Empty for a trace without clock records (turns)."""
    marks: dict[int, list[dict]] = {}
    for record in records:
        timing = record.get("clock")
        if not isinstance(timing, dict):
            continue
        based_on, lands = _whole(timing.get("based_on")), _whole(timing.get("lands"))
        if based_on is None or lands is None or lands < based_on:
            continue
        decision = record.get("decision")
        skill = decision.get("skill") if isinstance(decision, dict) else None
        cost = {
            "steps": lands - based_on,
            "tokens_in": _whole(timing.get("tokens_in")) or 0,
            "tokens_out": _whole(timing.get("tokens_out")) or 0,
            "wall_s": _seconds(timing.get("wall_s")),
        }
        marks.setdefault(based_on, []).append({"mark": "asked", "lands": lands, "skill": skill, **cost})
        marks.setdefault(lands, []).append({"mark": "landed", "based_on": based_on, "skill": skill, **cost})
    return marks


def _whole(value: object) -> int | None:
    """A JSON whole number from 0 to `MAX_STEPS`, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEPS else None


def _seconds(value: object) -> float | None:
    """A JSON number of seconds (finite, not negative), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < float("inf") else None
