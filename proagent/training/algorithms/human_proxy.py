"""Human proxies: a pool of PPO agents with different play styles (in the spirit of ZSC-Eval).

Each style of the world's RL spec (``styles``; Overcooked: ``knowledge/overcooked/human_proxy_styles.toml``)
weighs per-agent events (fetch onions, plate soup, put things on counters, ...). The styles train side by side in one
population program, each member in self-play in its own envs, on the team score + the usual annealed shaped
reward + its style reward, which is never annealed: the bias must survive to the end of training.
Each member ships as its own partner, ``<out>_<style>/`` beside ``--out``.

With self-play alone, styles that leave the cooking to others (deliverer, pot avoider) often never
learn to cook at all: both copies wait. ``partner`` names a shipped partner of the layout (a skilled
cook, e.g. ``pbt_scratch``) that each style also plays with, frozen, in ``partner_share`` of its
envs, so a style learns its part of the kitchen next to someone who does the rest.

Only one human trial per layout exists here (``data/human``), so these proxies are diverse
plausible styles, not fitted human models.
"""

from __future__ import annotations

from pathlib import Path

import jax
from pydantic import BaseModel, ConfigDict, Field

from proagent.training import checkpoint
from proagent.training.algorithms.common import (
    AlgoConfig,
    Log,
    Stage,
    open_saves,
    record_history,
    run_stage,
    save_agent,
    shipped_partner,
    warm_started,
)
from proagent.training.algorithms.pairings import self_play, self_play_and_pool
from proagent.training.population import Pairing, learner_params, stack_pool
from proagent.training.resume import ResumePolicy

ALGORITHM = "human_proxy"


class ProxySettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    styles: tuple[str, ...] = Field(("deliverer", "onion_fetcher", "pot_avoider", "counter_passer"), min_length=1)
    partner: str | None = Field(None, description="a shipped partner of the layout each style also plays with, frozen")
    partner_share: float = Field(0.5, gt=0.0, lt=1.0, description="share of each style's envs played with `partner`")


def proxy_dir(out_dir: Path, style: str) -> Path:
    """``.../human_proxy`` -> ``.../human_proxy_<style>``."""
    return out_dir.parent / f"{out_dir.name}_{style}"


def proxy_pairing(
    algo: AlgoConfig, settings: ProxySettings, weights: tuple[tuple[float, ...], ...], num_envs: int
) -> tuple[Pairing, tuple, dict | None]:
    """-> (pairing, ``stage.init``'s extra pool arguments, the partner's facts for the manifests)."""
    k = len(settings.styles)
    if settings.partner is None:
        return Pairing(num_learners=k, slots=self_play(k, num_envs), style_weights=weights), (), None
    params, manifest = shipped_partner(algo, settings.partner, f"--algo-set partner={settings.partner}")
    slots = self_play_and_pool(k, num_envs, settings.partner_share)
    pairing = Pairing(num_learners=k, slots=slots, pool_size=1, style_weights=weights)
    facts = {"name": settings.partner, "params_sha256": manifest.params_sha256, "share": settings.partner_share}
    return pairing, stack_pool([params], 1), facts


def train_human_proxy(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: ProxySettings | None = None,
    policy: ResumePolicy | None = None,
) -> list[checkpoint.Manifest]:
    settings = settings or ProxySettings()
    hook = algo.spec.styles
    if hook is None:
        raise ValueError(f"human_proxy: {algo.world} has no style events (its RL spec's styles)")
    known = hook.styles()
    missing = [s for s in settings.styles if s not in known]
    if missing:
        raise ValueError(f"unknown styles {missing}; defined: {sorted(known)}")
    env = algo.make_env()
    config = algo.stage_config(algo.total_steps)
    k = len(settings.styles)
    weights = tuple(known[s].weights for s in settings.styles)
    pairing, pool, partner_facts = proxy_pairing(algo, settings, weights, config.num_envs)
    stage = Stage(ALGORITHM, config, pairing, env, algo.updates_per_call, hook.indicators(env))
    saves = open_saves(out_dir, ALGORITHM, algo, settings, policy)
    runner = warm_started(stage.init(jax.random.PRNGKey(algo.seed), *pool), algo, list(range(k)))
    runner, state = run_stage(stage, runner, {"history": []}, record_history, saves, log)
    history = state["history"]
    steps = int(runner.update) * config.steps_per_update
    trained = saves.trained(steps)
    manifests = []
    for i, style in enumerate(settings.styles):
        details = {
            "style": dict(known[style].record),
            "population": list(settings.styles),
            "trained_with_partner": partner_facts,
        }
        target = proxy_dir(out_dir, style) if out_dir is not None else None
        name = f"{ALGORITHM}_{style}"
        manifests.append(
            save_agent(target, algo, name, learner_params(runner, i), env, trained, details, history, log)
        )
    saves.clear()
    return manifests
