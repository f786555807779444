"""The llama forward of a GGUF model in jax.numpy, written to match llama.cpp's graph for llama.

Why our own: the JAX fine-tuning libraries do not fit the project's pins, and a llama block is
small. What must match llama.cpp (its ``llm_build_llama``), so a model trained here behaves the
same when llama.cpp runs it:

* RMSNorm with the GGUF's epsilon, then the norm weight;
* rotary embeddings of llama.cpp's "normal" kind: rotate adjacent pairs ``(x[2i], x[2i+1])``.
  The GGUF converter permutes the Q and K rows of Hugging Face checkpoints so that this kind is
  right, so the GGUF's Q/K weights are used as stored, and a LoRA delta trained on them is in the
  GGUF's basis (what llama.cpp adds it to);
* grouped-query attention: query head ``h`` reads key/value head ``h // (n_head / n_head_kv)``;
* SwiGLU feed-forward, ``down(silu(gate(x)) * up(x))``; output tied to the token embedding when
  the GGUF has no ``output.weight``.

Parameters are a plain pytree with the layers stacked on a leading axis, so the 30 blocks run as
one `jax.lax.scan` (one block compiled, not thirty). A batch may share a token prefix (the static
system prompt): its keys and values are computed once and every row attends to them, which is
exact, since a causal model's prefix states do not depend on what follows.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from proagent.finetune.gguf_weights import LlamaHParams, LlamaWeights

__all__ = ["PROJECTIONS", "answer_loss", "answer_scores", "forward_hidden", "full_logits", "params_from_weights"]

Params = dict[str, Any]
LoraParams = dict[str, dict[str, jax.Array]]

# Our short name of each projection -> its tensor name inside a GGUF block.
PROJECTIONS: dict[str, str] = {
    "q": "attn_q.weight",
    "k": "attn_k.weight",
    "v": "attn_v.weight",
    "o": "attn_output.weight",
    "gate": "ffn_gate.weight",
    "up": "ffn_up.weight",
    "down": "ffn_down.weight",
}


def params_from_weights(weights: LlamaWeights, dtype: Any = jnp.float32) -> Params:
    """The pytree the forward reads: projections transposed to ``(n_in, n_out)`` (applied as ``x @ W``)
    and stacked over layers."""
    hp, t = weights.hparams, weights.tensors

    def stack(name: str, transpose: bool) -> jax.Array:
        rows = [t[f"blk.{i}.{name}"] for i in range(hp.n_layer)]
        return jnp.asarray(np.stack([r.T if transpose else r for r in rows]), dtype=dtype)

    layers = {short: stack(gguf, True) for short, gguf in PROJECTIONS.items()}
    layers["attn_norm"] = stack("attn_norm.weight", False)
    layers["ffn_norm"] = stack("ffn_norm.weight", False)
    output = t["token_embd.weight"] if hp.tied_embeddings else t["output.weight"]
    return {
        "embed": jnp.asarray(t["token_embd.weight"], dtype=dtype),
        "output": jnp.asarray(output, dtype=dtype),
        "final_norm": jnp.asarray(t["output_norm.weight"], dtype=dtype),
        "layers": layers,
    }


def _rms_norm(x: jax.Array, weight: jax.Array, eps: float) -> jax.Array:
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def _rope(x: jax.Array, positions: jax.Array, theta: float) -> jax.Array:
    """llama.cpp's normal rotary embedding: ``x`` is ``(..., T, heads, head_dim)``, pairs are adjacent."""
    half = x.shape[-1] // 2
    freqs = theta ** (-jnp.arange(half, dtype=jnp.float32) * 2.0 / x.shape[-1])
    angle = positions.astype(jnp.float32)[:, None] * freqs[None, :]  # (T, half)
    cos, sin = jnp.cos(angle)[:, None, :], jnp.sin(angle)[:, None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


def _project(x: jax.Array, layer: Params, lora: LoraParams | None, name: str, scale: float) -> jax.Array:
    out = x @ layer[name]
    if lora is not None and name in lora:
        out = out + ((x @ lora[name]["a"]) @ lora[name]["b"]) * scale
    return out


def _attend(q: jax.Array, k: jax.Array, v: jax.Array, visible: jax.Array) -> jax.Array:
    """Softmax attention with grouped KV heads. q ``(B,T,H,D)``, k/v ``(B,S,Hkv,D)``, visible ``(T,S)``."""
    batch, length, heads, dim = q.shape
    groups = heads // k.shape[2]
    q = q.reshape(batch, length, k.shape[2], groups, dim)
    scores = jnp.einsum("btkgd,bskd->bkgts", q, k) / np.sqrt(dim)
    scores = jnp.where(visible[None, None, None], scores, -jnp.inf)
    weights = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bkgts,bskd->btkgd", weights, v)
    return out.reshape(batch, length, heads * dim)


def _qkv(x: jax.Array, layer: Params, lora: LoraParams | None, hp: LlamaHParams, pos: jax.Array, scale: float):
    shape = x.shape[:-1]
    q = _project(x, layer, lora, "q", scale).reshape(*shape, hp.n_head, hp.head_dim)
    k = _project(x, layer, lora, "k", scale).reshape(*shape, hp.n_head_kv, hp.head_dim)
    v = _project(x, layer, lora, "v", scale).reshape(*shape, hp.n_head_kv, hp.head_dim)
    return _rope(q, pos, hp.rope_theta), _rope(k, pos, hp.rope_theta), v


def _ffn(h: jax.Array, layer: Params, lora: LoraParams | None, hp: LlamaHParams, scale: float) -> jax.Array:
    x = _rms_norm(h, layer["ffn_norm"], hp.rms_eps)
    gated = jax.nn.silu(_project(x, layer, lora, "gate", scale)) * _project(x, layer, lora, "up", scale)
    return h + _project(gated, layer, lora, "down", scale)


def _block(hp: LlamaHParams, scale: float, carry: tuple[jax.Array, jax.Array], xs: tuple[Params, LoraParams | None]):
    """One llama block over the shared prefix ``(1,P,D)`` and the rows ``(B,T,D)`` that follow it."""
    h_pre, h = carry
    layer, lora = xs
    n_pre, n_row = h_pre.shape[1], h.shape[1]
    pos_pre, pos_row = jnp.arange(n_pre), n_pre + jnp.arange(n_row)
    q_pre, k_pre, v_pre = _qkv(_rms_norm(h_pre, layer["attn_norm"], hp.rms_eps), layer, lora, hp, pos_pre, scale)
    q, k, v = _qkv(_rms_norm(h, layer["attn_norm"], hp.rms_eps), layer, lora, hp, pos_row, scale)
    causal_pre = pos_pre[:, None] >= pos_pre[None, :]
    att_pre = _attend(q_pre, k_pre, v_pre, causal_pre)
    batch = h.shape[0]
    k_all = jnp.concatenate([jnp.broadcast_to(k_pre, (batch, *k_pre.shape[1:])), k], axis=1)
    v_all = jnp.concatenate([jnp.broadcast_to(v_pre, (batch, *v_pre.shape[1:])), v], axis=1)
    keys = jnp.concatenate([pos_pre, pos_row])
    att = _attend(q, k_all, v_all, pos_row[:, None] >= keys[None, :])
    h_pre = _ffn(h_pre + _project(att_pre, layer, lora, "o", scale), layer, lora, hp, scale)
    h = _ffn(h + _project(att, layer, lora, "o", scale), layer, lora, hp, scale)
    return (h_pre, h), None


def forward_hidden(
    params: Params,
    hp: LlamaHParams,
    prefix: jax.Array,
    rows: jax.Array,
    lora: LoraParams | None = None,
    lora_scale: float = 1.0,
    remat: bool = False,
) -> jax.Array:
    """Final hidden states ``(B,T,D)`` (output norm applied) of ``rows`` ``(B,T)`` that follow ``prefix`` ``(P,)``.

    ``P`` may be 0. Rows are right-padded freely: a causal model's state at a real token never sees
    the padding after it. ``remat`` recomputes each block in the backward pass instead of keeping its
    activations (memory bound by one block, not thirty; about a third more compute)."""
    h_pre = params["embed"][prefix][None]
    h = params["embed"][rows]

    def step(carry, xs):
        return _block(hp, lora_scale, carry, xs)

    if remat:
        step = jax.checkpoint(step)
    (_, h), _ = jax.lax.scan(step, (h_pre, h), (params["layers"], lora))
    return _rms_norm(h, params["final_norm"], hp.rms_eps)


def full_logits(
    params: Params, hp: LlamaHParams, tokens: jax.Array, lora: LoraParams | None = None, lora_scale: float = 1.0
) -> jax.Array:
    """Next-token logits ``(T, V)`` at every position of one sequence (what llama.cpp's ``logits_all`` gives)."""
    prefix = jnp.zeros((0,), dtype=jnp.int32)
    hidden = forward_hidden(params, hp, prefix, tokens[None], lora, lora_scale)[0]
    return hidden @ params["output"].T


def answer_loss(
    params: Params,
    hp: LlamaHParams,
    lora: LoraParams | None,
    lora_scale: float,
    batch: dict[str, jax.Array],
    remat: bool = True,
) -> jax.Array:
    """Mean cross-entropy of the answer tokens only.

    ``batch``: ``prefix (P,)``, ``rows (B,T)``, and per row the positions whose state predicts an
    answer token ``pred_pos (B,A)``, those tokens ``pred_tok (B,A)`` and a 0/1 ``pred_mask (B,A)``.
    Logits are formed only at those positions, so the vocabulary-sized product is paid for the
    answer, not for the prompt."""
    _, token_logp = _answer_logits(params, hp, lora, lora_scale, batch, remat)
    mask = batch["pred_mask"]
    return -jnp.sum(token_logp * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def _answer_logits(
    params: Params,
    hp: LlamaHParams,
    lora: LoraParams | None,
    lora_scale: float,
    batch: dict[str, jax.Array],
    remat: bool,
) -> tuple[jax.Array, jax.Array]:
    """The logits ``(B,A,V)`` at the positions that predict answer tokens, and each answer token's
    log-probability ``(B,A)``: logits are formed only there, so the vocabulary-sized product is paid
    for the answer, not for the prompt."""
    hidden = forward_hidden(params, hp, batch["prefix"], batch["rows"], lora, lora_scale, remat)
    picked = jnp.take_along_axis(hidden, batch["pred_pos"][..., None], axis=1)  # (B,A,D)
    logits = picked @ params["output"].T
    logp = jax.nn.log_softmax(logits, axis=-1)
    return logits, jnp.take_along_axis(logp, batch["pred_tok"][..., None], axis=-1)[..., 0]


def answer_scores(
    params: Params,
    hp: LlamaHParams,
    lora: LoraParams | None,
    lora_scale: float,
    batch: dict[str, jax.Array],
) -> tuple[jax.Array, jax.Array]:
    """Per row of ``batch`` (as `answer_loss` reads it): the summed log-probability of its answer
    tokens, and whether every answer token is the model's most likely next token given the tokens
    before it. Why the second: when it holds, greedy decoding writes the answer token for token
    (a grammar that admits the answer only narrows the choice), so it is a lower bound on how often
    the student, playing at temperature 0, would answer as its teacher did."""
    logits, token_logp = _answer_logits(params, hp, lora, lora_scale, batch, remat=False)
    mask = batch["pred_mask"]
    hits = (jnp.argmax(logits, axis=-1) == batch["pred_tok"]) | (mask == 0)
    return jnp.sum(token_logp * mask, axis=1), jnp.all(hits, axis=1)
