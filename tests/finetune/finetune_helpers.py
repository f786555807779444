"""Helpers of the fine-tuner's tests: the JAX logits, compiled once per shape, the stated
tolerances against llama.cpp (their reasons are in test_logits_match's docstring), and a run
killed at a given call (`dies_on_call`), for the resume tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import proagent.finetune.train as train_module
from proagent.finetune.gguf_weights import LlamaWeights
from proagent.finetune.llama import full_logits

QUANTISED_MEAN_REL = 0.05  # mean |diff| / std(logits): Q8 activation rounding measured at ~0.02
QUANTISED_MAX_ABS = 3.0  # worst single logit (measured ~1.4)
QUANTISED_TOP1 = 0.9  # share of positions whose most likely next token agrees (measured >= 0.95)
FLOAT32_MAX_ABS = 1e-3  # float32 vs float32 (measured ~1e-4)


def quantised_gap(ours: np.ndarray, ref: np.ndarray) -> tuple[float, float, float]:
    diff = np.abs(ours - ref)
    return float(diff.mean() / ref.std()), float(diff.max()), float(np.mean(ours.argmax(-1) == ref.argmax(-1)))


def within_quantised_tolerance(ours: np.ndarray, ref: np.ndarray) -> bool:
    rel, worst, top1 = quantised_gap(ours, ref)
    return rel <= QUANTISED_MEAN_REL and worst <= QUANTISED_MAX_ABS and top1 >= QUANTISED_TOP1


_FULL_LOGITS = jax.jit(
    full_logits, static_argnames=("hp", "lora_scale")
)  # one compile per shape, shared by the modules


def jax_logits(params, weights: LlamaWeights, tokens: list[int], lora=None, lora_scale: float = 1.0) -> np.ndarray:
    """The JAX model's next-token logits ``(T, V)`` at every position of ``tokens``."""
    run = _FULL_LOGITS(params, weights.hparams, jnp.asarray(tokens, dtype=jnp.int32), lora, lora_scale=lora_scale)
    return np.asarray(run)


class Killed(Exception):
    """A training run stopped from outside (what a kill or a lost machine does to it)."""


def dies_on_call(monkeypatch: pytest.MonkeyPatch, name: str, call: int) -> list[int]:
    """``proagent.finetune.train.<name>`` raises `Killed` on its ``call``-th call (a run killed there);
    returns the list that counts the calls made through it."""
    real, calls = getattr(train_module, name), []

    def dies(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, name, dies)
    return calls
