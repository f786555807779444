"""Encoders: the CPU im2col path of the paper CNN equals the real convolution, on the same params."""

from __future__ import annotations

import flax.linen as nn
import jax
import numpy as np
import pytest

from proagent.training.networks import ActorCritic, NetworkConfig, SameConv, init_params


@pytest.mark.parametrize("kernel", [5, 3])
def test_same_conv_matches_flax_conv_on_both_paths(kernel, monkeypatch):
    x = jax.random.normal(jax.random.PRNGKey(0), (3, 2, 5, 9, 30))
    conv = SameConv(8, kernel)
    params = jax.jit(conv.init)(jax.random.PRNGKey(1), x)
    ref = nn.Conv(8, (kernel, kernel), padding="SAME").apply(params, x.reshape(6, 5, 9, 30)).reshape(3, 2, 5, 9, 8)
    np.testing.assert_allclose(jax.jit(conv.apply)(params, x), ref, atol=1e-4)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")  # the lax.conv path, run on CPU
    np.testing.assert_allclose(jax.jit(conv.apply)(params, x), ref, atol=1e-4)


@pytest.mark.parametrize("encoder", ["fast", "cnn"])
def test_actor_critic_shapes(encoder):
    cfg = NetworkConfig(encoder=encoder)
    params = jax.jit(init_params, static_argnums=(0, 1))(cfg, (4, 5, 30), jax.random.PRNGKey(0))
    logits, value = jax.jit(ActorCritic(cfg).apply)(params, np.zeros((7, 4, 5, 30), np.int32))
    assert logits.shape == (7, 6) and value.shape == (7,)
    assert np.allclose(logits, 0.0, atol=0.1)  # near-uniform initial policy (0.01-scaled head)
