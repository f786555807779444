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
from proagent.world.types import Skill

BeliefMode = Literal["replace", "annotate", "off"]


@dataclass
class Prediction:
    step: int
    skill: Skill | None
    text: str | None


@dataclass
class BeliefTracker:
    """Pending predictions by teammate seat (``None``: the only teammate, or whichever acts first)."""

    mode: BeliefMode
    prompts: PromptSet
    predictions: dict[int | None, Prediction] = field(default_factory=dict)
    hits: int = 0
    total: int = 0
    history: list[dict] = field(default_factory=list)
    by_teammate: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (hits, total)

    @property
    def pending(self) -> Prediction | None:
        """The unresolved prediction about the (single) teammate, if any."""
        return self.predictions.get(None)

    def predict(self, step: int, skill: Skill | None, text: str | None, teammate: int | None = None) -> None:
        """A new prediction replaces an unresolved one about the same teammate (it did nothing in between)."""
        if text is not None:
            self.predictions[teammate] = Prediction(step, skill, text)

    def observe(self, actual: Skill, step: int, memory: Memory, teammate: int | None = None) -> dict | None:
        """The teammate in seat ``teammate`` completed ``actual``; score and correct the pending
        prediction about it (or the one about "the teammate", when predictions are not per seat).
        Accuracy is also kept per teammate who resolved a prediction."""
        key = teammate if teammate in self.predictions else None
        prediction = self.predictions.pop(key, None)
        if prediction is None:
            return None
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
            "belief.j2",
            {"mode": self.mode, "predicted": str(prediction.skill or prediction.text), "actual": str(actual)},
        )
        if self.mode == "replace":
            entry.intention = None
        entry.belief = text

    @property
    def accuracy(self) -> float | None:
        return self.hits / self.total if self.total else None
