"""Batches of a set taught on several system prompts: one group a batch, every example once an
epoch, the same plan on every call (a resumed run sees what an unbroken one saw), and the prefix a
batch computes once is its group's system prompt, cut to the shape bucket."""

from __future__ import annotations

from collections import Counter

from proagent.finetune.batches import (
    PREFIX_BUCKET,
    Example,
    batch_indices,
    batch_plan,
    batch_prefix_length,
    examples_sha256,
    prefix_groups,
)
from proagent.finetune.dataset import system_prompt_group
from proagent.llm.types import Message


def _set(sizes: dict[str, int], prefix: int = 150) -> list[Example]:
    out = []
    for number, (group, size) in enumerate(sorted(sizes.items())):
        system = tuple(1000 * (number + 1) + i for i in range(prefix))  # each group its own system prompt
        out += [Example(prompt=(*system, 7, i + 1), answer=(5, 2), group=group) for i in range(size)]
    return out


def test_a_batch_never_mixes_groups_and_an_epoch_shows_every_example():
    examples = _set({"seat0": 7, "seat1": 5, "cube": 3})
    groups = {i: e.group for i, e in enumerate(examples)}
    per_epoch = 2 + 2 + 1  # ceil(7/4) + ceil(5/4) + ceil(3/4)
    seen: Counter[int] = Counter()
    for step in range(per_epoch):
        batch = batch_plan(examples, 4, step, seed=3)
        assert len(batch) == 4 and len({groups[i] for i in batch}) == 1
        seen.update(batch)
    assert set(seen) == set(range(len(examples)))  # every example, the topped-up batches repeat a few
    assert sum(seen.values()) == 4 * per_epoch


def test_the_plan_is_the_same_on_every_call_and_moves_with_the_seed():
    examples = _set({"a": 9, "b": 6})
    plans = [[batch_plan(examples, 4, step, seed) for step in range(12)] for seed in (0, 0, 1)]
    assert plans[0] == plans[1] and plans[0] != plans[2]


def test_a_set_of_one_group_is_batched_as_before():
    examples = _set({"only": 10})
    assert len(prefix_groups(examples)) == 1
    assert all(batch_plan(examples, 4, s, 5) == batch_indices(10, 4, s, 5) for s in range(8))


def test_a_batch_shares_its_group_system_prompt_cut_to_the_bucket():
    examples = _set({"a": 4, "b": 4}, prefix=150)
    batch = [examples[i] for i in batch_plan(examples, 4, 0, 0)]
    assert batch_prefix_length(batch, set_prefix=0) == 150 - 150 % PREFIX_BUCKET == 128
    assert batch_prefix_length(batch, set_prefix=140) == 140  # never less than the whole set's prefix


def test_examples_group_by_their_system_prompt():
    def chat(system: str, user: str) -> list[Message]:
        return [Message(role="system", content=system), Message(role="user", content=user)]

    assert system_prompt_group(chat("seat 0", "x")) == system_prompt_group(chat("seat 0", "y"))
    assert system_prompt_group(chat("seat 0", "x")) != system_prompt_group(chat("seat 1", "x"))


def test_the_group_is_part_of_the_sets_identity_only_when_named():
    plain = [Example(prompt=(1, 2), answer=(3,))]
    named = [Example(prompt=(1, 2), answer=(3,), group="g")]
    assert examples_sha256(plain) != examples_sha256(named)
    assert examples_sha256(plain) == examples_sha256([Example(prompt=(1, 2), answer=(3,))])
