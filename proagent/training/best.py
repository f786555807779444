"""Keep the best policy a self-play run has seen (``proagent train --algo sp --keep-best``).

Why: on OvercookedV2 kitchens, CPU-sized runs often learn while the shaped reward lasts and then
fall apart in the last few million steps (partners/README.md: demo_cook_simple seed 1 reached a
training score near 67 and ended at 9). A run that keeps its best parameters ships the policy it
actually learned instead of the wreck.

The rule, chosen to be honest about the selection:
- "best" is the highest mean *sparse* training score over a window of consecutive calls (the
  shaped reward never counts), so a lucky call of a few episodes cannot win;
- at the end both the final and the best parameters are scored by the same fresh evaluation
  (same seed, same episodes) and the higher one ships; the manifest records both scores, the step
  of the best window and what was chosen, so the selection is visible to whoever uses the partner.

The best parameters live on the host (a CPU-sized network is a few hundred KB) and are saved inside
the resume state's one atomic file, so an interrupted run selects exactly as an uninterrupted one
would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Literal

import jax
import numpy as np
from flax import serialization

from proagent.training.checkpoint import SelfPlayScore

DEFAULT_WINDOW = 10


class BestSoFar:
    """The parameters at the end of the best scoring window seen so far."""

    def __init__(self, window: int = DEFAULT_WINDOW) -> None:
        if window < 1:
            raise ValueError(f"keep-best window must be >= 1 call, got {window}")
        self.window = window
        self._recent: deque[tuple[float, int]] = deque(maxlen=window)  # (score sum, episodes) per call
        self.score = float("-inf")
        self.env_steps = -1
        self.params: Any = None

    def observe(self, record: dict, params: Callable[[], Any]) -> bool:
        """Feed one call's log record (``score`` is a mean over ``episodes``) and a way to get the
        params after it, called (a host copy made) only when this window is a new best."""
        self._recent.append(_score_total(record))
        if len(self._recent) < self.window:
            return False
        seen = sum(n for _, n in self._recent)
        if not seen:
            return False
        mean = sum(s for s, _ in self._recent) / seen
        if mean <= self.score:
            return False
        self.score, self.env_steps = mean, int(record["env_steps"])
        self.params = jax.tree.map(np.asarray, jax.device_get(params()))
        return True

    def replay(self, history: list[dict]) -> None:
        """Rebuild the window (not the params) from a resumed run's history, so the next calls
        compare against the same recent scores as they would have without the interruption."""
        self._recent.extend(_score_total(record) for record in history[-self.window :])

    def to_bytes(self) -> bytes | None:
        """The kept params and their window's score and step, for the resume state (None: none yet)."""
        if self.params is None:
            return None
        state = {"score": self.score, "env_steps": self.env_steps, "params": serialization.to_state_dict(self.params)}
        return serialization.msgpack_serialize(state)

    def restore(self, blob: bytes) -> None:
        saved = serialization.msgpack_restore(blob)
        self.score, self.env_steps = float(saved["score"]), int(saved["env_steps"])
        self.params = saved["params"]


def _score_total(record: dict) -> tuple[float, int]:
    """(score sum, episodes) of one call's record; a call where no episode ended adds nothing."""
    episodes = int(record["episodes"])
    return (float(record["score"]) * episodes if episodes else 0.0), episodes


def choose(final: SelfPlayScore, best: SelfPlayScore) -> Literal["final", "best"]:
    """The higher evaluated mean; a tie keeps the final params (no selection without a gain)."""
    return "best" if best.mean > final.mean else "final"
