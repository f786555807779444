"""Belief Correction: compare the predicted teammate skill with what the teammate actually did.

What the teammate did comes from the event stream (the skill book's ``skill_of_event``). When the
teammate's next completed skill is known, the pending prediction is scored (intention-prediction
accuracy) and memory is corrected: ``replace`` overwrites the prediction with the truth,
``annotate`` keeps both, ``off`` leaves memory alone (accuracy is still recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from proagent.agent.memory import Memory
from proagent.agent.prompts import PromptSet
from proagent.domains.base import Skill

BeliefMode = Literal["replace", "annotate", "off"]


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
    by_teammate: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (hits, total)

    def predict(self, step: int, skill: Skill | None, text: str | None) -> None:
        """A new prediction replaces an unresolved one (the teammate did nothing in between)."""
        if text is not None:
            self.pending = Prediction(step, skill, text)

    def observe(self, actual: Skill, step: int, memory: Memory, teammate: int | None = None) -> dict | None:
        """The teammate in seat ``teammate`` completed ``actual``; score and correct the pending
        prediction, if any. With several teammates a prediction is about the next skill any of
        them completes; who resolved it is kept, so accuracy is also known per teammate."""
        if self.pending is None:
            return None
        prediction, self.pending = self.pending, None
        correct = prediction.skill == actual
        self.total += 1
        self.hits += int(correct)
        if teammate is not None:
            hits, total = self.by_teammate.get(teammate, (0, 0))
            self.by_teammate[teammate] = (hits + int(correct), total + 1)
        record = {
            "predicted_at": prediction.step,
            "resolved_at": step,
            "predicted": prediction.text,
            "actual": str(actual),
            "correct": correct,
            **({"teammate": teammate} if teammate is not None else {}),
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
