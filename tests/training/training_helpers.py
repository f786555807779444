"""Tiny configs for the training tests (imported by name: tests/ is not a package)."""

from __future__ import annotations

from proagent.training.config import PPOConfig
from proagent.training.networks import NetworkConfig
from proagent.world.capabilities import Capabilities

TINY = {"num_envs": 4, "num_steps": 32, "update_epochs": 1, "num_minibatches": 2, "shaping_horizon": 256}


def tiny_config(seed: int = 0, layout: str = "cramped_room") -> PPOConfig:
    """2 updates of 4 envs x 32 steps = 256 env steps, fast encoder."""
    return PPOConfig(layout=layout, seed=seed, total_steps=256, network=NetworkConfig(encoder="fast"), **TINY)


def overcooked_partner(directory, layout, name=None, stochastic=True):
    """The one RL partner class, observing an Overcooked ``layout`` (a KitchenLayout) with the rules
    its checkpoint trained under."""
    from proagent.domains.overcooked.rl_spec import partner_env
    from proagent.training.partner import RLPartner

    return RLPartner(directory, lambda m: partner_env(layout, m.dynamics), layout.name, name, stochastic)


class NoRLWorld:
    """A plugged-in world without an RL spec (``--domain training_helpers:NO_RL_WORLD``)."""

    name = "no_rl"
    capabilities = Capabilities()  # rl None


NO_RL_WORLD = NoRLWorld()


def check_saved_partner(algo: str, out, manifest, eval_episodes: int) -> None:
    """What every population algorithm's finished run promises: its manifest (what a pool held,
    with the shipped partners' hashes) and a checkpoint the one RL partner class loads and plays,
    reproducibly, from either seat."""
    import jax

    import envs
    from proagent.paths import partner_dir
    from proagent.training import checkpoint

    assert manifest.algorithm == algo and manifest.self_play.episodes == eval_episodes and manifest.details
    if algo == "fcp":  # the pool held the layout's shipped sp, and the manifest says which one
        shipped = checkpoint.load_manifest(partner_dir("overcooked", "cramped_room", "sp"))
        assert manifest.details["pool"][-1] == "shipped sp"
        assert manifest.details["shipped_sp_sha256"] == shipped.params_sha256
    if algo == "hsp":  # the best response met every shipped biased partner of the layout, and sp
        pool = manifest.details["pool"]
        assert pool[-1] == "sp" and len(pool) >= 5 and all(n.startswith("human_proxy_") for n in pool[:-1])
        assert not any(n.endswith("_scratch") for n in pool)  # the held-out proxies stay out
        for name in pool:
            shipped = checkpoint.load_manifest(partner_dir("overcooked", "cramped_room", name))
            assert manifest.details["pool_sha256"][name] == shipped.params_sha256
    assert checkpoint.load_manifest(out).params_sha256 == manifest.params_sha256
    env = envs.make("cramped_room")
    partner = overcooked_partner(out, env.layout)
    for seat in (0, 1):
        partner.reset(seat, seed=3)
        state = env.reset(jax.random.PRNGKey(0))
        first = [partner.policy(env.symbolic(state), state) for _ in range(3)]
        partner.reset(seat, seed=3)
        assert [partner.policy(env.symbolic(state), state) for _ in range(3)] == first
