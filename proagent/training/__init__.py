"""The one RL program of every world, in JAX: self-play and independent PPO, the population
methods (PBT, FCP, MEP, COLE, human proxies), Other-Play, state augmentation and behaviour cloning,
for any world whose domain provides an RL spec (``proagent.world.rl_spec``, ``Domain.capabilities.rl``). No
module here imports a world's engine: the spec's ``RLEnv`` is all the program sees of a world.

Modules are split so that *playing* a trained partner needs only flax/jax/numpy:

- ``networks``   the actor-critic families: grid (paper CNN, fast, recurrent) and MLP   (flax)
- ``checkpoint`` params + manifest.json (+ the run's history.jsonl) on disk            (flax, no optax)
- ``partner``    the one RL partner of every world, found in partners/<world>/<layout>/<algo>/
- ``config``     pydantic configs for a training run                                 (pydantic)
- ``rollout``    the vmapped environment step with per-env resets                     (jax)
- ``ppo``        the PPO math: optimiser, schedules, GAE, loss, minibatch epochs      (optax)
- ``population`` the one PPO program: K learners + a frozen pool, one jitted update
- ``evaluate``   vmapped team episodes at the horizon                                 (jax)
- ``trainer``    self-play: ``population`` with one learner in every seat, checkpoints, manifest
- ``algorithms`` IPPO, PBT, FCP, MEP, COLE, human-proxy, OP, state-aug outer loops around ``population``
- ``crossplay``  every trained partner of a layout with every other, vmapped
- ``bc``         behaviour cloning of a world's recorded play
- ``worlds``     a world's RL spec by name
- ``cli``, ``run_config``, ``run_folder``, ``train_run``   ``proagent train``

Nothing is imported here on purpose: ``import proagent.training.checkpoint`` must not pull optax.
"""
