"""`--plan-weight`: the loss may weigh the answer tokens that name the chosen skill above the JSON
around them. The span is found in the answer as the student writes it, mapped onto llama.cpp's own
tokens, and a weight of 1 leaves every batch (and so every run) as it was."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from proagent.finetune.answers import plan_value_bytes
from proagent.finetune.batches import Example, make_batch
from proagent.finetune.dataset import SupervisedPair, plan_span, to_examples
from proagent.finetune.llama import answer_loss, params_from_weights
from proagent.finetune.lora import LoraConfig, init_lora
from proagent.llm.types import Message

CHAT = (Message(role="system", content="You cook. Answer with JSON."), Message(role="user", content="Onion at [2, 2]."))


def _pair(answer: str) -> SupervisedPair:
    return SupervisedPair(
        messages=CHAT, answer=answer, world="overcooked", run="r", episode=0, step=1, score=0.0, accepted=True
    )


def test_the_plan_value_is_found_by_its_bytes_after_non_ascii_text():
    answer = '{"analysis": "Le pot — vide, \\"plan\\": \\"x\\".", "intention": "wait(1)", "plan": "pickup(onion)"}'
    first, last = plan_value_bytes(answer)
    assert answer.encode()[first:last] == b"pickup(onion)"  # the escaped "plan" inside the analysis is not it
    assert plan_value_bytes("Plan: pickup(onion)") is None  # a free-text answer has no JSON plan
    assert plan_value_bytes('{"intention": "wait(1)"}') is None


def test_the_span_covers_exactly_the_tokens_that_overlap_the_plan():
    ends = [2, 5, 9, 12, 13]  # five tokens: bytes [0,2) [2,5) [5,9) [9,12) [12,13)
    assert plan_span(ends, (5, 9)) == (2, 3)
    assert plan_span(ends, (4, 10)) == (1, 4)  # partly covered tokens count
    assert plan_span(ends, None) is None


@pytest.mark.parametrize("skill", ["pickup(onion)", "wait(3)", "move(4_to_2_5)"])
def test_a_set_marks_the_tokens_that_spell_the_skill(tokenizer, skill):
    answer = f'{{"intention": "place_obj_on_counter()", "plan": "{skill}"}}'
    (example,) = to_examples([_pair(answer)], tokenizer, None)
    start, end = example.plan_span
    text = tokenizer.text(example.answer[start:end])
    assert skill in text and len(text) <= len(skill) + 3  # at most the quotes a token shares with it
    assert skill not in tokenizer.text(example.answer[start + 1 : end])  # its first token is part of it
    assert skill not in tokenizer.text(example.answer[start : end - 1])


def test_the_weight_lands_on_the_span_and_a_weight_of_one_changes_nothing():
    plain = Example(prompt=(1, 2, 3), answer=(4, 5, 6, 7, 2))
    marked = plain.model_copy(update={"plan_span": (1, 3)})
    weighted = make_batch([marked], 1, plan_weight=4.0)["pred_mask"][0]
    assert weighted[:6].tolist() == [1.0, 4.0, 4.0, 1.0, 1.0, 0.0]
    for key, value in make_batch([plain], 1).items():
        np.testing.assert_array_equal(make_batch([marked], 1, plan_weight=1.0)[key], value)


def test_the_weighted_loss_is_the_weighted_mean_of_the_token_losses(tokenizer, two_layers):
    params, hp = params_from_weights(two_layers), two_layers.hparams
    (example,) = to_examples([_pair('{"intention": "wait(1)", "plan": "pickup(onion)"}')], tokenizer, None)
    lora = jax.tree_util.tree_map(lambda x: x + 0.01, init_lora(LoraConfig(rank=2, targets=("q",)), params))
    loss = jax.jit(answer_loss, static_argnames=("hp", "lora_scale", "remat"))

    def mean_loss(weight: float) -> float:
        return float(loss(params, hp, lora, 2.0, jax.tree_util.tree_map(jnp.asarray, make_batch([example], 0, 32, weight)), False))

    # per-token losses from two weights: loss(w) = (S_rest + w S_plan) / (n_rest + w n_plan)
    start, end = example.plan_span
    n_plan, n_rest = end - start, len(example.answer) - (end - start)
    one, five = mean_loss(1.0), mean_loss(5.0)
    total = one * (n_rest + n_plan)
    s_plan = (five * (n_rest + 5 * n_plan) - total) / 4
    assert one != pytest.approx(five, rel=1e-4)  # the skill's tokens are not as hard as the rest
    assert mean_loss(3.0) == pytest.approx((total - s_plan + 3 * s_plan) / (n_rest + 3 * n_plan), rel=1e-4)
