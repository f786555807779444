"""Belief Correction: compare the predicted teammate skill with what the teammate actually did.

What the teammate did comes from the event stream (each event completes one skill). When the
teammate's next completed skill is known, the pending prediction is scored (intention-prediction
accuracy) and memory is corrected: ``replace`` overwrites the prediction with the truth,
``annotate`` keeps both, ``off`` leaves memory alone (accuracy is still recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from envs import Event, EventKind
from proagent.agent.memory import Memory
from proagent.agent.prompts import PromptSet
from proagent.skills import Skill

BeliefMode = Literal["replace", "annotate", "off"]


def skill_from_event(event: Event) -> Skill | None:
    """The skill an event completes (START_COOKING and indicator presses complete none)."""
    item = event.item.name if event.item else None
    match event.kind:
        case EventKind.PICKUP_INGREDIENT | EventKind.PICKUP_DISH | EventKind.PICKUP_FROM_COUNTER:
            return Skill("pickup", item)
        case EventKind.PUT_IN_POT:
            return Skill(f"put_{item}_in_pot")
        case EventKind.FILL_DISH:
            return Skill("fill_dish_with_soup")
        case EventKind.DELIVER:
            return Skill("deliver_soup")
        case EventKind.PLACE_ON_COUNTER:
            return Skill("place_obj_on_counter")
    return None


@dataclass
class Prediction:
    step: int
    skill: Skill | None
    text: str | None


@dataclass
class BeliefTracker:
    mode: BeliefMode
    prompts: PromptSet
    pending: Prediction | None = None
    hits: int = 0
    total: int = 0
    history: list[dict] = field(default_factory=list)

    def predict(self, step: int, skill: Skill | None, text: str | None) -> None:
        """A new prediction replaces an unresolved one (the teammate did nothing in between)."""
        if text is not None:
            self.pending = Prediction(step, skill, text)

    def observe(self, actual: Skill, step: int, memory: Memory) -> dict | None:
        """The teammate completed ``actual``; score and correct the pending prediction, if any."""
        if self.pending is None:
            return None
        prediction, self.pending = self.pending, None
        correct = prediction.skill == actual
        self.total += 1
        self.hits += int(correct)
        record = {
            "predicted_at": prediction.step,
            "resolved_at": step,
            "predicted": prediction.text,
            "actual": str(actual),
            "correct": correct,
        }
        self.history.append(record)
        if self.mode != "off":
            self._correct_memory(prediction, actual, memory)
        return record

    def _correct_memory(self, prediction: Prediction, actual: Skill, memory: Memory) -> None:
        entry = memory.find_by_step(prediction.step)
        if entry is None:
            return
        text = self.prompts.render(
            "belief.j2", {"mode": self.mode, "predicted": str(prediction.skill or prediction.text), "actual": str(actual)}
        )
        if self.mode == "replace":
            entry.intention = None
        entry.belief = text

    @property
    def accuracy(self) -> float | None:
        return self.hits / self.total if self.total else None
