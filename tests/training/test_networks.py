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


@pytest.mark.parametrize("shape", [(640, 64), (64, 6), (64, 1), (26, 16), (5, 5, 26, 32), (3, 100)])
def test_orthogonal_matches_flax_without_lapack(shape):
    from flax.linen.initializers import orthogonal as flax_orthogonal

    from proagent.training.networks import orthogonal

    key = jax.random.PRNGKey(7)
    ours = np.asarray(orthogonal(1.3)(key, shape))
    np.testing.assert_allclose(ours, np.asarray(flax_orthogonal(1.3)(key, shape)), atol=1e-5)
    flat = ours.reshape(-1, shape[-1]) / 1.3
    gram = flat.T @ flat if flat.shape[0] >= flat.shape[1] else flat @ flat.T
    np.testing.assert_allclose(gram, np.eye(len(gram)), atol=1e-5)


def test_population_init_has_no_lapack_call(round_robin_program):
    """A vmapped LAPACK QR per layer deadlocked XLA's 2-thread CPU pool (networks.orthogonal)."""
    _, init, _ = round_robin_program
    assert "lapack" not in init.lower(jax.random.PRNGKey(0)).as_text().lower()
