"""What a fine-tuning manifest says of the student's evaluation (`proagent finetune --eval`).

The student (the base model with the new adapter) and the raw model play the same episodes: the
same worlds, partners, seats and seeds, through the evaluation harness, into one run folder under
the fine-tuning folder. The manifest keeps the summary beside the data and hyper-parameters that
made the adapter, so one file says what was trained and what it bought: each arm's mean score with
its n and 95% interval, and the paired difference (student minus raw, episode by episode on the
same seed), which is what the seed's luck cancels out of. These are plain records; the numbers
are computed by the evaluation harness's statistics.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["RAW", "STUDENT", "ArmScore", "StudentEvaluation"]

STUDENT = "student"  # the arms' labels in the evaluation's records and tables
RAW = "raw"


class ArmScore(BaseModel):
    """A mean over episodes: n, mean, standard error and 95% t interval (None where n is too small)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    mean: float | None = None
    se: float | None = None
    low: float | None = None
    high: float | None = None

    def text(self) -> str:
        """``mean [low, high] (n=…)``, or what is missing: for the command's summary line."""
        if self.mean is None:
            return f"no episode (n={self.n})"
        interval = "" if self.low is None or self.high is None else f" [{self.low:.1f}, {self.high:.1f}]"
        return f"{self.mean:.1f}{interval} (n={self.n})"


class StudentEvaluation(BaseModel):
    """The student against the raw model on held-out seeds, as the manifest records it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_folder: str  # the evaluation's run folder, relative to the fine-tuning folder
    llm: str  # the model spec both arms played (the student adds the adapter)
    adapter_sha256: str
    prompt: str | None  # the prompt set both arms used (None: the embedded model's default)
    domain: str
    layouts: list[str]
    partners: list[str]
    seats: list[int]
    seeds: list[int]
    horizon: int | None  # None: each layout's own
    score: dict[str, ArmScore]  # by arm: STUDENT, RAW
    score_difference: ArmScore  # student - raw, paired by episode (same layout, partner, seat, seed)
    oscillations: dict[str, ArmScore]  # undo loops detected an episode, by arm
    episodes_failed: int
