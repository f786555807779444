"""`--holdout N`: whole episodes held out per world, never taught and never a taught prompt; their
score is the model's own (answer loss, answers greedy decoding writes as taught), recorded before
the first step and at every checkpoint, and a killed run resumes to the same record."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import numpy as np
import pytest
from finetune_helpers import Killed, dies_on_call, jax_logits
from test_train import CONFIG as TRAIN_CONFIG

from proagent.finetune.batches import Example
from proagent.finetune.dataset import DataFilter, SupervisedPair, heldout_pairs, hold_out
from proagent.finetune.heldout import score_heldout
from proagent.finetune.llama import params_from_weights
from proagent.finetune.lora import LoraConfig, init_lora
from proagent.finetune.train import finetune
from proagent.finetune.train_state import CHECKPOINT_RECORD
from proagent.llm.types import Message, StructuredOutput

SCHEMA = StructuredOutput(
    name="plan",
    json_schema={
        "type": "object",
        "properties": {"plan": {"type": "string", "enum": ["a", "b"]}},
        "required": ["plan"],
    },
)


def _pair(world: str, run: str, episode: int, text: str) -> SupervisedPair:
    messages = (Message(role="system", content="s"), Message(role="user", content=text))
    return SupervisedPair(
        messages=messages,
        answer='{"plan": "a"}',
        structured=SCHEMA,
        plan="a",
        world=world,
        run=run,
        episode=episode,
        step=0,
        score=1.0,
        accepted=True,
    )


def test_the_last_episodes_of_each_world_are_held_out_whole() -> None:
    pairs = [
        _pair("w/a", "20260101-run", 0, "a0"),
        _pair("w/a", "20260101-run", 1, "a1"),
        _pair("w/a", "20260101-run", 1, "a1 later"),
        _pair("w/a", "20260102-run", 0, "a2"),
        _pair("w/b", "20260101-run", 0, "b0"),  # a world of one episode is taught whole
    ]
    taught, held = hold_out(pairs, 2)
    assert [p.messages[1].content for p in held] == ["a1", "a1 later", "a2"]
    assert [p.messages[1].content for p in taught] == ["a0", "b0"]
    assert hold_out(pairs, 0) == (pairs, [])
    assert hold_out(pairs, 3)[1] == []  # no world has more than 3 episodes: none held out


def test_a_held_out_prompt_that_is_also_taught_is_not_scored() -> None:
    taught = [_pair("w/a", "r", 0, "same state")]
    held = [_pair("w/a", "r", 1, "same state"), _pair("w/a", "r", 1, "new state"), _pair("w/a", "r", 1, "new state")]
    kept = heldout_pairs(held, taught, DataFilter())
    assert [p.messages[1].content for p in kept] == ["new state"]  # taught prompt and duplicate dropped


def _greedy(params, weights, prompt: list[int], n: int) -> list[int]:
    tokens = list(prompt)
    for _ in range(n):
        tokens.append(int(np.argmax(jax_logits(params, weights, tokens)[-1])))
    return tokens[len(prompt) :]


@pytest.fixture(scope="module")
def two_layer_params(two_layers):
    return params_from_weights(two_layers)


@pytest.fixture(scope="module")
def scored_set(chat_tokens, two_layers, two_layer_params) -> list[Example]:
    """Two answers to one prompt: the model's own greedy continuation, and the same with its last
    token changed (so it is not what greedy decoding writes)."""
    own = _greedy(two_layer_params, two_layers, chat_tokens, 4)
    other = [*own[:-1], (own[-1] + 1) % two_layers.hparams.n_vocab]
    return [Example(prompt=tuple(chat_tokens), answer=tuple(a)) for a in (own, other)]


def test_the_held_out_score_is_the_models_own(scored_set, two_layers, two_layer_params) -> None:
    lora = init_lora(LoraConfig(rank=2, targets=("q",)), two_layer_params)  # B = 0: the raw model
    got = score_heldout(scored_set, two_layer_params, two_layers.hparams, lora, 2.0, 0, batch_size=4, bucket=32)
    logp = []
    for example in scored_set:
        full = jax.nn.log_softmax(jax_logits(two_layer_params, two_layers, [*example.prompt, *example.answer]), -1)
        start = len(example.prompt) - 1
        logp += [float(full[start + j, t]) for j, t in enumerate(example.answer)]
    assert got.n == 2 and got.greedy_matches == 1  # the greedy continuation, not its altered twin
    assert got.loss == pytest.approx(-np.mean(logp), rel=1e-4)


def test_the_held_out_score_is_told_per_world(scored_set, two_layers, two_layer_params) -> None:
    """The greedy continuation in one world, its altered twin in another: each world's own count and
    loss, and the whole the sum of its parts."""
    lora = init_lora(LoraConfig(rank=2, targets=("q",)), two_layer_params)
    own, other = (e.model_copy(update={"world": w}) for e, w in zip(scored_set, ("w/own", "w/other"), strict=True))
    whole = score_heldout([own, other], two_layer_params, two_layers.hparams, lora, 2.0, 0, batch_size=4, bucket=32)
    alone = score_heldout([own], two_layer_params, two_layers.hparams, lora, 2.0, 0, batch_size=4, bucket=32)
    assert list(whole.by_world) == ["w/other", "w/own"]
    assert (whole.by_world["w/own"].n, whole.by_world["w/own"].greedy_matches) == (1, 1)
    assert (whole.by_world["w/other"].n, whole.by_world["w/other"].greedy_matches) == (1, 0)
    assert whole.by_world["w/own"].loss == pytest.approx(alone.loss, rel=1e-6)
    assert whole.by_world["w/other"].loss > whole.by_world["w/own"].loss
    assert "w/own 1/1" in whole.text() and "w/other 0/1" in whole.text()
    assert whole.n == 2 and whole.greedy_matches == 1


CONFIG = TRAIN_CONFIG.model_copy(update={"steps": 4, "checkpoint_every": 2})


def test_held_out_scores_come_at_step_0_and_each_checkpoint_and_survive_a_resume(
    scored_set, two_layers, gguf_path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taught, held = [scored_set[1]], [scored_set[0]]
    whole = finetune(taught, gguf_path, tmp_path / "whole", CONFIG, weights=two_layers, heldout=held)
    assert [s.step for s in whole.heldout] == [0, 2, 4] and whole.data.heldout_examples == 1
    assert whole.heldout[0].greedy_matches == 1 and whole.heldout[-1].loss > whole.heldout[0].loss  # taught the twin

    dies_on_call(monkeypatch, "_train_step", 3)
    with pytest.raises(Killed):
        finetune(taught, gguf_path, tmp_path / "broken", CONFIG, weights=two_layers, heldout=held)
    monkeypatch.undo()
    resumed = finetune(taught, gguf_path, tmp_path / "broken", CONFIG, resume=True, weights=two_layers, heldout=held)
    assert [(s.step, s.greedy_matches) for s in resumed.heldout] == [(s.step, s.greedy_matches) for s in whole.heldout]
    assert [s.loss for s in resumed.heldout] == pytest.approx([s.loss for s in whole.heldout], rel=1e-4)
    with pytest.raises(ValueError, match="another config, data set"):  # another held-out set is another run
        finetune(taught, gguf_path, tmp_path / "broken", CONFIG, resume=True, weights=two_layers, heldout=taught)


def test_a_run_stopped_while_scoring_keeps_its_steps_and_a_resume_scores_them(
    scored_set, two_layers, gguf_path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkpoint is saved before the held-out score (minutes on a large set): a run killed while
    scoring resumes at that step, scores it first, and ends with the scores an unbroken run has; the
    cadences (checkpoints, held-out scores) may change on resume, the training may not."""
    taught, held = [scored_set[1]], [scored_set[0]]
    whole = finetune(taught, gguf_path, tmp_path / "whole", CONFIG, weights=two_layers, heldout=held)
    dies_on_call(monkeypatch, "score_heldout", 2)  # step 0 scored; step 2 trained, checkpointed, killed scoring
    with pytest.raises(Killed):
        finetune(taught, gguf_path, tmp_path / "broken", CONFIG, weights=two_layers, heldout=held)
    monkeypatch.undo()
    assert json.loads((tmp_path / "broken" / CHECKPOINT_RECORD).read_text())["step"] == 2
    cadence = CONFIG.model_copy(update={"checkpoint_every": 1, "heldout_every": 2})
    resumed = finetune(taught, gguf_path, tmp_path / "broken", cadence, resume=True, weights=two_layers, heldout=held)
    assert [s.step for s in resumed.heldout] == [0, 2, 4]
    assert [s.loss for s in resumed.heldout] == pytest.approx([s.loss for s in whole.heldout], rel=1e-4)
    other = CONFIG.model_copy(update={"batch_size": CONFIG.batch_size + 1})
    with pytest.raises(ValueError, match="another config"):
        finetune(taught, gguf_path, tmp_path / "broken", other, resume=True, weights=two_layers, heldout=held)
