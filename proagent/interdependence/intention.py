"""Intention accuracy: the share of an agent's predictions of its teammate's intention that match
the teammate's *next completed skill*.

The agent scores itself while it plays (``BeliefTracker``: a pending prediction is resolved by the
first skill the teammate completes after it, a newer prediction replaces an unresolved one); each
resolution is written to the trace as the step's ``belief``. Here the same figure is recomputed
independently from the trace: predictions from the recorded decisions, completed skills from the
recorded events, so that `proagent analyze` can check the number the agent reported. Which skill
an event completes is the domain's knowledge (the inverse its skill book keeps): it is passed in.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from proagent.interdependence.model import SkillOfEvent
from proagent.world.types import Event


class IntentionAccuracy(BaseModel):
    hits: int = 0
    total: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.hits / self.total if self.total else None


def normalize(skill: str | None) -> str | None:
    """Compare skills by their text without spaces, quotes or case, with '()' where it is missing
    ('pickup(key)' == 'Pickup( "key" )', 'open_door' == 'open_door()')."""
    if skill is None:
        return None
    text = "".join(str(skill).split()).lower().replace("-", "_").replace('"', "").replace("'", "")
    return text if "(" in text else text + "()"


def recompute(
    records: Sequence[dict], events: Sequence[Sequence[Event]], seat: int, skill_of_event: SkillOfEvent
) -> IntentionAccuracy:
    """From trace records (in step order) and each step's events: the agent in ``seat`` predicts
    (``decision.intention``) and its teammate's next completed skill (``skill_of_event``) decides
    the prediction. With more than two agents, the next skill any other agent completes decides."""
    result = IntentionAccuracy()
    pending: str | None = None
    for record, step_events in zip(records, events):
        decision = record.get("decision") or {}
        predicted = decision.get("intention")
        if predicted:  # decided at this step, before this step's events happen
            pending = normalize(predicted)
        for event in step_events:
            if event.agent == seat or pending is None:
                continue
            done = skill_of_event(event)
            if done is None:
                continue
            result.total += 1
            result.hits += int(normalize(str(done)) == pending)
            pending = None
    return result


def from_beliefs(records: Sequence[dict]) -> IntentionAccuracy:
    """The agent's own scoring, as written to the trace (one ``belief`` record per resolution)."""
    resolved = [r["belief"] for r in records if isinstance(r.get("belief"), dict) and "correct" in r["belief"]]
    return IntentionAccuracy(hits=sum(bool(b["correct"]) for b in resolved), total=len(resolved))
