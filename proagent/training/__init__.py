"""RL partner training in JAX: self-play PPO today; the population methods build on it.

Modules are split so that *playing* a trained partner needs only flax/jax/numpy:

- ``networks``   the actor-critic (paper CNN or the CPU-fast encoder)          (flax)
- ``checkpoint`` params + manifest.json on disk                               (flax, no optax)
- ``config``     pydantic configs for a training run                          (pydantic)
- ``rollout``    vmapped environment stepping with per-env resets             (jax)
- ``ppo``        purejaxrl-style ``make_train(config) -> init, jitted update`` (optax)
- ``evaluate``   vmapped self-play episodes at the horizon                    (jax)
- ``trainer``    the Python outer loop: progress, checkpoints, manifest
- ``cli``        ``proagent train``

Nothing is imported here on purpose: ``import proagent.training.checkpoint`` must not pull optax.
"""
