"""Supervised examples as token ids, and the fixed-shape batches the jitted train step reads.

Why fixed shapes: every new shape recompiles the step (tens of seconds on a CPU), so rows are
padded to a multiple of ``bucket`` tokens and answers to a multiple of 16, and the prefix a batch
shares (the static system prompt) is cut to a multiple of `PREFIX_BUCKET` tokens. Why the shared
prefix: its keys and values are computed once a batch instead of once a row, which is exact (see
`proagent.finetune.llama`) and saves most of the work when prompts are long and alike.

Why prefix groups: a set taught on several worlds (or seats, whose system prompts differ) shares
almost nothing across the whole set, only the chat template's first tokens, so one set-wide prefix
would make every row carry its whole system prompt. Each example therefore names its group (the
system prompt it starts with), and a batch is drawn from one group only (`batch_plan`): its
prefix is that group's system prompt. A set of one group is batched as before (`batch_indices`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Example",
    "batch_indices",
    "batch_plan",
    "batch_prefix_length",
    "examples_sha256",
    "make_batch",
    "prefix_groups",
    "shared_prefix_length",
]

ANSWER_BUCKET = 16
PREFIX_BUCKET = 64  # a batch's prefix is cut to a multiple of this: few distinct shapes, few compiles


class Example(BaseModel):
    """One supervised pair: the prompt's ids as llama.cpp evaluates them, the answer's ids (end token included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: tuple[int, ...] = Field(min_length=1)
    answer: tuple[int, ...] = Field(min_length=1)
    group: str = ""  # the prompts that share a system prompt share a group; batches never mix groups
    world: str = ""  # the world it was played in (held-out scores per world); not part of the set's identity
    # answer tokens [start, end) that spell the chosen skill (the plan's value; None: not found), which
    # `make_batch` may weigh above the rest; derived from the answer, so not part of the set's identity
    plan_span: tuple[int, int] | None = None


def examples_sha256(examples: Sequence[Example]) -> str:
    """Identity of a training set (order included): recorded in the manifest, checked on resume."""
    digest = hashlib.sha256()
    for example in examples:
        row = [example.prompt, example.answer, example.group] if example.group else [example.prompt, example.answer]
        digest.update(json.dumps(row, separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def shared_prefix_length(examples: Sequence[Example]) -> int:
    """Tokens every prompt starts with, leaving each prompt at least one token of its own (the state
    that predicts the first answer token must belong to the row)."""
    first = examples[0].prompt
    length = min(len(e.prompt) for e in examples) - 1
    for example in examples[1:]:
        same = 0
        while same < length and example.prompt[same] == first[same]:
            same += 1
        length = same
    return max(length, 0)


def batch_indices(n_examples: int, batch_size: int, step: int, seed: int) -> list[int]:
    """The examples of step ``step``: epochs of seeded permutations, so a resumed run sees what an
    unbroken one would have seen."""
    out = []
    for position in range(step * batch_size, (step + 1) * batch_size):
        epoch, offset = divmod(position, n_examples)
        out.append(int(np.random.default_rng([seed, epoch]).permutation(n_examples)[offset]))
    return out


def prefix_groups(examples: Sequence[Example]) -> list[list[int]]:
    """Indices of the examples of each group, groups in the order of their names."""
    by_group: dict[str, list[int]] = {}
    for index, example in enumerate(examples):
        by_group.setdefault(example.group, []).append(index)
    return [by_group[name] for name in sorted(by_group)]


def _epoch_batches(groups: Sequence[Sequence[int]], batch_size: int, epoch: int, seed: int) -> list[list[int]]:
    """One epoch: each group shuffled and cut into full batches (the last one topped up from the
    group's own shuffled start, so a batch never mixes groups), then the batches shuffled."""
    batches = []
    for number, members in enumerate(groups):
        order = [members[i] for i in np.random.default_rng([seed, epoch, number]).permutation(len(members))]
        for start in range(0, len(order), batch_size):
            batches.append([order[(start + k) % len(order)] for k in range(batch_size)])
    return [batches[i] for i in np.random.default_rng([seed, epoch]).permutation(len(batches))]


def batch_plan(examples: Sequence[Example], batch_size: int, step: int, seed: int) -> list[int]:
    """The examples of step ``step``: `batch_indices` for a set of one group; else a batch of one
    group at a time (`_epoch_batches`). Deterministic in (set, step, seed), so a resumed run sees
    what an unbroken one would have seen."""
    groups = prefix_groups(examples)
    if len(groups) == 1:
        return batch_indices(len(examples), batch_size, step, seed)
    per_epoch = sum(-(-len(members) // batch_size) for members in groups)
    epoch, offset = divmod(step, per_epoch)
    return _epoch_batches(groups, batch_size, epoch, seed)[offset]


def batch_prefix_length(picked: Sequence[Example], set_prefix: int) -> int:
    """The prefix one batch computes once: what its rows share, cut to a multiple of
    `PREFIX_BUCKET`, and never less than the whole set's (``set_prefix``, 0 when not sharing)."""
    shared = shared_prefix_length(picked)
    return max(set_prefix, shared - shared % PREFIX_BUCKET)


def _round_up(n: int, multiple: int) -> int:
    return max(multiple, -(-n // multiple) * multiple)


def make_batch(
    examples: Sequence[Example], prefix_len: int, bucket: int = 32, plan_weight: float = 1.0
) -> dict[str, np.ndarray]:
    """``prefix``, ``rows`` and the answer positions/tokens/mask `proagent.finetune.llama.answer_loss` reads.

    A row is the example's tokens after the prefix, minus the last one (only ever a target); the
    state at the prompt's last token predicts the first answer token. ``plan_weight``: the mask's
    value on each example's `Example.plan_span` (1 elsewhere), so the loss, a weighted mean, counts
    the tokens that choose the skill that much more than the JSON around them."""
    prefix = np.asarray(examples[0].prompt[:prefix_len], dtype=np.int32)
    inputs, starts = [], []
    for example in examples:
        if example.prompt[:prefix_len] != tuple(prefix.tolist()):
            raise ValueError("every example of a batch must start with the shared prefix")
        inputs.append((*example.prompt, *example.answer)[prefix_len:-1])
        starts.append(len(example.prompt) - 1 - prefix_len)
    width = _round_up(max(len(row) for row in inputs), bucket)
    answers = _round_up(max(len(e.answer) for e in examples), ANSWER_BUCKET)
    rows = np.zeros((len(examples), width), dtype=np.int32)
    pred_pos = np.zeros((len(examples), answers), dtype=np.int32)
    pred_tok = np.zeros((len(examples), answers), dtype=np.int32)
    pred_mask = np.zeros((len(examples), answers), dtype=np.float32)
    for i, (row, start, example) in enumerate(zip(inputs, starts, examples, strict=True)):
        rows[i, : len(row)] = row
        n = len(example.answer)
        pred_pos[i, :n] = start + np.arange(n)
        pred_tok[i, :n] = example.answer
        pred_mask[i, :n] = 1.0
        if example.plan_span is not None:
            pred_mask[i, example.plan_span[0] : example.plan_span[1]] = plan_weight
    return {"prefix": prefix, "rows": rows, "pred_pos": pred_pos, "pred_tok": pred_tok, "pred_mask": pred_mask}
