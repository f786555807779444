"""Linear probes of a recurrent Yōkai policy's memory (the paper's §6.4): can a linear read-out of
its hidden state tell each card's colour, with itself (self-play, SP) and with a stranger (cross-play,
XP)? A probe that reads colours well in SP but worse in XP says the policy's beliefs lean on its
own conventions.

The protocol is the paper's: one policy A is probed; its probe is fit on A's hidden states in
self-play with an episode-level split (the last ``test_fraction`` of the episodes are held out, so
no step of a test episode was seen in fitting), then scored on the held-out SP episodes and on
episodes where A (seat 0) plays with partner B (seat 1), always reading A's hidden state. Each step
of a live game is one sample per card: its colour is the target (C classes; chance is about 1/C).

The probe is multinomial logistic regression (one softmax over the colours per card) on standardised
features, L2-penalised: optax's cross-entropy minimised by optax's L-BFGS, the solver scikit-learn's
``LogisticRegression`` uses (scikit-learn is not a dependency; optax is). Accuracies come with the
standard error over episodes (steps of one episode are not independent samples).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from pydantic import BaseModel, ConfigDict, Field

from proagent.training.evaluate import pair_traces
from proagent.training.networks import Network
from proagent.world.rl_spec import RLEnv


class ProbeSamples(NamedTuple):
    """Per episode and step: seat 0's memory, the cards' colours, and whether the game was live."""

    hidden: np.ndarray  # (E, T, M) float32
    colours: np.ndarray  # (E, T, Y) int
    live: np.ndarray  # (E, T) bool


class LinearProbe(NamedTuple):
    mean: np.ndarray  # (M,)
    scale: np.ndarray  # (M,)
    weights: np.ndarray  # (M, Y, C)
    bias: np.ndarray  # (Y, C)


class ProbeScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    accuracy: float = Field(description="share of (step, card) samples whose colour the probe names")
    se: float = Field(description="standard error of the mean over episodes")
    episodes: int


class ProbeReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    chance: float = Field(description="the most frequent colour's share of the fitting samples")
    fit: ProbeScore
    sp_test: ProbeScore
    xp: ProbeScore


def probe_samples(
    env: RLEnv, network: Network, params0: Any, params1: Any, key: jax.Array, episodes: int
) -> ProbeSamples:
    """``episodes`` games of ``params0`` (seat 0, probed) with ``params1`` (seat 1)."""
    states, memory = jax.jit(lambda k: pair_traces(env, network, params0, params1, k, episodes))(key)
    game = states.game  # the world's state: (T, E, ...)
    swap = lambda x: np.swapaxes(np.asarray(x), 0, 1)
    return ProbeSamples(swap(memory).astype(np.float32), swap(game.card_colour), ~swap(game.done))


def _flat(samples: ProbeSamples) -> tuple[np.ndarray, np.ndarray]:
    live = samples.live
    return samples.hidden[live], samples.colours[live]


def fit_probe(x: np.ndarray, y: np.ndarray, num_colours: int, steps: int = 100, l2: float = 1e-3) -> LinearProbe:
    """Softmax regression of each card's colour ``y`` (n, Y) on features ``x`` (n, M): optax's
    softmax cross-entropy plus an L2 penalty on the weights, minimised by optax's L-BFGS (the
    solver of scikit-learn's ``LogisticRegression``), on standardised features."""
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = jnp.asarray((x - mean) / scale, jnp.float32)
    weights, bias = _minimise(z, jnp.asarray(y, jnp.int32), jnp.float32(l2), num_colours, steps)
    return LinearProbe(mean, scale, np.asarray(weights), np.asarray(bias))


@partial(jax.jit, static_argnames=("num_colours", "steps"))
def _minimise(
    z: jax.Array, labels: jax.Array, l2: jax.Array, num_colours: int, steps: int
) -> tuple[jax.Array, jax.Array]:
    """(weights (M, Y, C), bias (Y, C)) after ``steps`` L-BFGS steps from zero; compiled once per
    sample count, so a script's repeated fits of one size reuse it."""
    cards = labels.shape[1]
    start = {"weights": jnp.zeros((z.shape[1], cards, num_colours)), "bias": jnp.zeros((cards, num_colours))}

    def loss(p: dict) -> jax.Array:
        logits = jnp.einsum("nm,myc->nyc", z, p["weights"]) + p["bias"]
        fit = optax.losses.softmax_cross_entropy_with_integer_labels(logits, labels).sum(-1).mean()
        return fit + 0.5 * l2 * jnp.sum(p["weights"] ** 2)

    solver = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(loss)

    def step(carry: tuple, _: None) -> tuple[tuple, None]:
        p, state = carry
        value, grad = value_and_grad(p, state=state)
        updates, state = solver.update(grad, state, p, value=value, grad=grad, value_fn=loss)
        return (optax.apply_updates(p, updates), state), None

    (fitted, _), _ = jax.lax.scan(step, (start, solver.init(start)), length=steps)
    return fitted["weights"], fitted["bias"]


def predict(probe: LinearProbe, x: np.ndarray) -> np.ndarray:
    """(n, Y) the colour the probe names for each card."""
    z = (x - probe.mean) / probe.scale
    return np.argmax(np.einsum("nm,myc->nyc", z, probe.weights) + probe.bias, -1)


def score(probe: LinearProbe, samples: ProbeSamples) -> ProbeScore:
    """Accuracy over every live (step, card) sample; its se over the episodes' own accuracies."""
    per_episode = []
    for hidden, colours, live in zip(samples.hidden, samples.colours, samples.live, strict=True):
        if live.any():
            per_episode.append(float((predict(probe, hidden[live]) == colours[live]).mean()))
    acc = np.asarray(per_episode)
    se = float(acc.std(ddof=1) / np.sqrt(len(acc))) if len(acc) > 1 else 0.0
    x, y = _flat(samples)
    return ProbeScore(accuracy=float((predict(probe, x) == y).mean()), se=se, episodes=len(acc))


def probe_report(sp: ProbeSamples, xp: ProbeSamples, num_colours: int, test_fraction: float = 0.2) -> ProbeReport:
    """Fit on the first episodes of ``sp``, score on its held-out last ``test_fraction`` and on ``xp``."""
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    cut = round(len(sp.hidden) * (1.0 - test_fraction))
    if cut < 1 or cut >= len(sp.hidden):
        raise ValueError(
            f"{len(sp.hidden)} self-play episodes cannot be split {1 - test_fraction:.0%} / {test_fraction:.0%}"
        )
    fit_part = ProbeSamples(*(a[:cut] for a in sp))
    test_part = ProbeSamples(*(a[cut:] for a in sp))
    x, y = _flat(fit_part)
    probe = fit_probe(x, y, num_colours)
    chance = float(np.bincount(y.ravel(), minlength=num_colours).max() / y.size)
    return ProbeReport(chance=chance, fit=score(probe, fit_part), sp_test=score(probe, test_part), xp=score(probe, xp))
