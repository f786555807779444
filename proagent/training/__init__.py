"""RL partner training in JAX: self-play PPO, the population methods (PBT, FCP, MEP, COLE, human
proxies) and behaviour cloning of the human trials.

Modules are split so that *playing* a trained partner needs only flax/jax/numpy:

- ``networks``   the actor-critic (paper CNN or the CPU-fast encoder)          (flax)
- ``checkpoint`` params + manifest.json on disk                               (flax, no optax)
- ``config``     pydantic configs for a training run                          (pydantic)
- ``rollout``    the vmapped environment step with per-env resets              (jax)
- ``ppo``        the PPO math: optimiser, schedules, GAE, loss, minibatch epochs (optax)
- ``population`` the one PPO program: K learners + a frozen pool, one jitted update
- ``evaluate``   vmapped self-play episodes at the horizon                    (jax)
- ``trainer``    self-play: ``population`` with one learner in both seats, checkpoints, manifest
- ``algorithms`` PBT, FCP, MEP, COLE, human-proxy outer loops around ``population``
- ``crossplay``  every trained partner of a layout with every other, vmapped
- ``bc``, ``human_data``, ``style_events``  behaviour cloning; per-agent event indicators
- ``cli``        ``proagent train``

Nothing is imported here on purpose: ``import proagent.training.checkpoint`` must not pull optax.
"""
