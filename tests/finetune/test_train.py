"""The trainer: the shared-prefix loss is the plain loss, training lowers the answer loss, a killed
run resumes to the very adapter an unbroken run makes, and the manifest records the run."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from finetune_helpers import Killed, dies_on_call, jax_logits

from proagent.finetune.batches import Example, make_batch, shared_prefix_length
from proagent.finetune.gguf_adapter import read_lora_gguf
from proagent.finetune.gguf_weights import file_sha256
from proagent.finetune.llama import answer_loss, params_from_weights
from proagent.finetune.lora import LoraConfig, init_lora
from proagent.finetune.train import MANIFEST_FILE, FinetuneManifest, TrainConfig, finetune
from proagent.llm.types import Message

SYSTEM = "You control a chef in a kitchen. Answer with JSON."
PLANS = ("fetch_onion", "deliver_soup")


@pytest.fixture(scope="module")
def examples(tokenizer) -> list[Example]:
    out = []
    for i, plan in enumerate(PLANS):
        chat = [Message(role="system", content=SYSTEM), Message(role="user", content=f"The pot has {i} onions.")]
        out.append(
            Example(prompt=tuple(tokenizer.prompt(chat)), answer=tuple(tokenizer.answer(f'{{"plan": "{plan}"}}')))
        )
    return out


@pytest.fixture(scope="module")
def two_layer_params(two_layers):
    return params_from_weights(two_layers)


def test_the_shared_prefix_changes_nothing_but_the_work(examples, two_layers, two_layer_params):
    """The loss with the system prompt computed once equals the loss with every row whole, and
    both equal the answer tokens' log-probabilities read off the full-sequence logits."""
    weights, params = two_layers, two_layer_params
    hp = weights.hparams
    lora = init_lora(LoraConfig(rank=2, targets=("q", "down")), params)
    lora = jax.tree_util.tree_map(lambda x: x + 0.01, lora)  # B != 0: the deltas take part
    prefix_len = shared_prefix_length(examples)
    assert prefix_len >= 10  # the system turn is shared
    loss = jax.jit(answer_loss, static_argnames=("hp", "lora_scale", "remat"))
    losses = [
        float(loss(params, hp, lora, 2.0, jax.tree_util.tree_map(jnp.asarray, make_batch(examples, n)), False))
        for n in (prefix_len, 0)
    ]
    manual = []
    for example in examples:
        logp = jax.nn.log_softmax(jax_logits(params, weights, [*example.prompt, *example.answer], lora, 2.0), axis=-1)
        start = len(example.prompt) - 1
        manual += [float(logp[start + j, t]) for j, t in enumerate(example.answer)]
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    assert losses[0] == pytest.approx(-np.mean(manual), rel=1e-5)


CONFIG = TrainConfig(
    lora=LoraConfig(rank=4, alpha=8.0, targets=("q", "v", "up"), learning_rate=1e-2),
    steps=3,
    batch_size=2,
    log_every=1,
    checkpoint_every=1,
)


def test_training_lowers_the_answer_loss_and_the_manifest_records_the_run(
    examples, two_layers, gguf_path, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO, logger="proagent.finetune")
    run = finetune(examples, gguf_path, tmp_path, CONFIG, source="two plans", weights=two_layers)
    assert [p.step for p in run.losses] == [1, 2, 3]
    assert run.losses[0].loss > run.losses[1].loss > run.losses[2].loss
    assert any("loss" in r.getMessage() and "examples/s" in r.getMessage() for r in caplog.records)
    alpha, trained = read_lora_gguf(tmp_path / "adapter.gguf")
    assert alpha == 8.0 and set(trained) == {"q", "v", "up"}
    assert all(float(jnp.abs(ab["b"]).max()) > 0 for ab in trained.values())  # trained, not the zero start

    manifest = FinetuneManifest.model_validate_json((tmp_path / MANIFEST_FILE).read_text())
    assert manifest == run
    assert manifest.base_sha256 == file_sha256(gguf_path)
    assert manifest.adapter_sha256 == file_sha256(tmp_path / "adapter.gguf")
    assert manifest.data.n_examples == 2 and manifest.data.shared_prefix_tokens >= 10
    assert manifest.config == CONFIG and manifest.steps_done == 3 and manifest.examples_per_s > 0
    assert json.loads(manifest.config.model_dump_json())["lora"]["rank"] == 4


def test_a_killed_run_resumes_to_the_adapter_an_unbroken_run_makes_and_only_with_the_same_config(
    examples, two_layers, gguf_path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    whole = finetune(examples, gguf_path, tmp_path / "whole", CONFIG, source="two plans", weights=two_layers)
    calls = dies_on_call(monkeypatch, "_train_step", 3)  # steps 1 and 2 done and checkpointed
    with pytest.raises(Killed):
        finetune(examples, gguf_path, tmp_path / "broken", CONFIG, source="two plans", weights=two_layers)
    monkeypatch.undo()
    resumed = finetune(
        examples, gguf_path, tmp_path / "broken", CONFIG, source="two plans", resume=True, weights=two_layers
    )

    assert len(calls) == 3  # the resumed run did not redo steps 1 and 2 through the patched step
    assert [p.loss for p in resumed.losses] == pytest.approx([p.loss for p in whole.losses], rel=1e-5)
    _, a = read_lora_gguf(tmp_path / "whole" / "adapter.gguf")
    _, b = read_lora_gguf(tmp_path / "broken" / "adapter.gguf")
    for name in a:
        np.testing.assert_allclose(np.asarray(a[name]["b"]), np.asarray(b[name]["b"]), rtol=1e-5, atol=1e-7)

    other = CONFIG.model_copy(update={"batch_size": 1})
    with pytest.raises(ValueError, match="another config"):
        finetune(examples, gguf_path, tmp_path / "broken", other, resume=True, weights=two_layers)


def test_a_run_stopped_at_its_checkpoint_ends_there_and_a_longer_one_goes_on(
    examples, two_layers, gguf_path, tmp_path: Path
):
    """--steps may change on resume: the batches and the optimiser depend on the step, not the total."""
    config = CONFIG.model_copy(update={"steps": 4, "checkpoint_every": 2})
    whole = finetune(examples, gguf_path, tmp_path / "whole", config, source="two plans", weights=two_layers)
    short = config.model_copy(update={"steps": 2})
    finetune(examples, gguf_path, tmp_path / "grown", short, source="two plans", weights=two_layers)
    stopped = finetune(examples, gguf_path, tmp_path / "grown", short, resume=True, weights=two_layers, source="two plans")
    assert stopped.steps_done == 2 and stopped.config.steps == 2
    grown = finetune(examples, gguf_path, tmp_path / "grown", config, resume=True, weights=two_layers, source="two plans")
    assert [p.loss for p in grown.losses] == pytest.approx([p.loss for p in whole.losses], rel=1e-5)
    with pytest.raises(ValueError, match="at step 4: resume with --steps 4 or more"):
        finetune(examples, gguf_path, tmp_path / "grown", short, resume=True, weights=two_layers, source="two plans")


def test_a_run_started_from_an_adapter_begins_where_that_adapter_ended_and_refuses_one_that_does_not_fit(
    examples, two_layers, gguf_path, tmp_path: Path
):
    """``--init-adapter``: the held-out loss before the first step is the loss the given adapter
    ends with (its deltas, read back exactly), the config records its sha256, and an adapter of
    another alpha or rank is refused before the output folder exists."""
    first = finetune(examples, gguf_path, tmp_path / "first", CONFIG, weights=two_layers, heldout=examples)
    adapter = tmp_path / "first" / "adapter.gguf"
    second = finetune(
        examples, gguf_path, tmp_path / "second", CONFIG, weights=two_layers, heldout=examples, init_adapter=adapter
    )
    assert second.heldout[0].step == 0
    assert second.heldout[0].loss == pytest.approx(first.heldout[-1].loss, rel=1e-6)
    assert second.heldout[0].loss < first.heldout[0].loss  # not a fresh start
    assert second.config.init_adapter_sha256 == file_sha256(adapter)
    assert first.config.init_adapter_sha256 is None

    for change, words in (({"alpha": 4.0}, "give the same --alpha"), ({"rank": 2}, "another --rank")):
        other = CONFIG.model_copy(update={"lora": CONFIG.lora.model_copy(update=change)})
        with pytest.raises(ValueError, match=words):
            finetune(examples, gguf_path, tmp_path / "refused", other, weights=two_layers, init_adapter=adapter)
        assert not (tmp_path / "refused").exists()
