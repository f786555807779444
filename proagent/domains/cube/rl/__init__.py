"""IPPO teammates for CUBE, trained in JAX (``train.py``) and shipped as checkpoints under
``partners/cube/<scenario>/ippo_shared|ippo_independent/`` (``checkpoint.py``), played by
``IppoPartner`` (``partner.py``). Loading a partner needs flax/jax/numpy only (no optax)."""

from __future__ import annotations

from proagent.domains.cube.rl.observation import obs_dim, observe, observe_all

__all__ = ["obs_dim", "observe", "observe_all"]
