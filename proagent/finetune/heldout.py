"""Scoring an adapter on answers it was never taught: the held-out episodes of `--holdout N`.

Why: the training loss falls on any set a 135M model can memorise, and a lower loss has made a
worse player (see docs/finetune.md). The answers of episodes the student never saw, scored with
the raw model at step 0 and with the adapter at every checkpoint, say whether it learned what the
teacher does or only the examples: their mean answer-token loss, and how many of them greedy
decoding would write token for token (`proagent.finetune.llama.answer_scores`).

Batches are cut from one prefix group at a time (as training's are) and padded to the batch size
by repeating a row whose score is then ignored, so every batch has the training step's shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from proagent.finetune.batches import Example, batch_prefix_length, make_batch, prefix_groups
from proagent.finetune.gguf_weights import LlamaHParams
from proagent.finetune.llama import answer_scores
from proagent.finetune.train_state import HeldOutScore, WorldHeldOut

__all__ = ["score_heldout"]

_scores = jax.jit(answer_scores, static_argnames=("hp", "lora_scale"))


def score_heldout(
    examples: Sequence[Example],
    params: Any,
    hp: LlamaHParams,
    lora: Any,
    lora_scale: float,
    step: int,
    batch_size: int,
    bucket: int,
) -> HeldOutScore:
    """The adapter ``lora`` scored on ``examples`` at ``step`` (at step 0 its B matrices are zero: the
    raw model), in all and per world."""
    tally: dict[str, _Tally] = {}
    for members in prefix_groups(examples):
        for start in range(0, len(members), batch_size):
            real = [examples[i] for i in members[start : start + batch_size]]
            rows = real + [real[0]] * (batch_size - len(real))
            batch = make_batch(rows, batch_prefix_length(rows, 0), bucket)
            logp, greedy = _scores(params, hp, lora, lora_scale, jax.tree_util.tree_map(jnp.asarray, batch))
            for example, row_logp, row_greedy in zip(real, np.asarray(logp), np.asarray(greedy), strict=False):
                row = _Tally(float(row_logp), int(row_greedy), len(example.answer), 1)
                tally[example.world] = tally.get(example.world, _Tally()) + row
    whole = sum(tally.values(), _Tally())
    worlds = {name: tally[name].score() for name in sorted(tally) if name}
    total = whole.score()
    return HeldOutScore(step=step, n=total.n, loss=total.loss, greedy_matches=total.greedy_matches, by_world=worlds)


@dataclass(frozen=True)
class _Tally:
    """Answer log-probabilities, greedy matches and answer tokens summed over held-out answers."""

    logp: float = 0.0
    matches: int = 0
    tokens: int = 0
    n: int = 0

    def __add__(self, other: _Tally) -> _Tally:
        return _Tally(
            self.logp + other.logp, self.matches + other.matches, self.tokens + other.tokens, self.n + other.n
        )

    def score(self) -> WorldHeldOut:
        return WorldHeldOut(n=self.n, loss=-self.logp / max(self.tokens, 1), greedy_matches=self.matches)
