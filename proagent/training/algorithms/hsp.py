"""HSP (Yu et al., 2023, "Learning Zero-Shot Cooperation with Humans, Assuming Humans Are Biased"),
its second stage: an adaptive agent trained as a best response to a pool of biased partners.

Stage one is the event-rewarded pool this zoo already ships (`human_proxy`: one agent per play
style, ``partners/<world>/<layout>/human_proxy_<style>/``). Stage two, here, loads every shipped
proxy of the layout (and the layout's ``sp``, which stands in for the paper's skilled MEP
members) and trains one learner against them, uniform over members, half of the envs in each
seat. The ``_scratch`` proxies stay out of the pool, so they remain held-out partners for a
zero-shot test of the result. As in FCP here, the learner starts from the shipped ``sp`` and
plays itself in a share of its envs, so it keeps cooking instead of leaving it to the pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from proagent.paths import partner_dir
from proagent.training import checkpoint
from proagent.training.algorithms.best_response import train_best_response
from proagent.training.algorithms.common import AlgoConfig, Log, open_saves, save_agent, shipped_partner
from proagent.training.resume import ResumePolicy

ALGORITHM = "hsp"
PROXY_PREFIX = "human_proxy_"


class HSPSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    held_out_suffix: str = Field(
        "_scratch", description="proxies whose name ends so stay out of the pool (the zoo's zero-shot test partners)"
    )
    include_sp: bool = Field(True, description="the layout's shipped sp joins the pool (the paper's skilled members)")
    init_from_sp: bool = Field(True, description="the learner starts from the shipped sp (else random weights)")
    self_play_share: float = Field(0.25, ge=0.0, lt=1.0, description="share of envs where the learner plays itself")


def proxy_names(algo: AlgoConfig, held_out_suffix: str = "") -> list[str]:
    """The layout's shipped biased partners (every ``human_proxy_*`` folder with a manifest), but
    those whose name ends with ``held_out_suffix`` (kept for zero-shot tests)."""
    home = partner_dir(algo.world, algo.layout, "sp").parent
    if not home.is_dir():
        return []
    return sorted(
        d.name
        for d in home.iterdir()
        if d.name.startswith(PROXY_PREFIX)
        and not (held_out_suffix and d.name.endswith(held_out_suffix))
        and (d / checkpoint.MANIFEST_FILE).is_file()
    )


def biased_pool(algo: AlgoConfig, settings: HSPSettings) -> tuple[list[Any], list[str], dict[str, str]]:
    """-> (params of each member, their names, each one's params sha256); a ValueError in one line
    when the layout ships no proxy."""
    names = proxy_names(algo, settings.held_out_suffix)
    if not names:
        raise ValueError(
            f"hsp needs the biased partners of {algo.layout} (partners/{algo.world}/{algo.layout}/{PROXY_PREFIX}*); "
            f"train them first: proagent train --domain {algo.world} --layout {algo.layout} --algo human_proxy "
            f"--ship human_proxy"
        )
    names = names + (["sp"] if settings.include_sp else [])
    loaded = [shipped_partner(algo, name, "hsp's pool") for name in names]
    return [p for p, _ in loaded], names, {n: m.params_sha256 for n, (_, m) in zip(names, loaded, strict=True)}


def train_hsp(
    algo: AlgoConfig,
    out_dir: Path | None,
    log: Log = print,
    settings: HSPSettings | None = None,
    policy: ResumePolicy | None = None,
) -> checkpoint.Manifest:
    settings = settings or HSPSettings()
    pool, names, hashes = biased_pool(algo, settings)
    saves = open_saves(out_dir, ALGORITHM, algo, settings, policy)
    env = algo.make_env()
    init = shipped_partner(algo, "sp", "--algo-set init_from_sp=true")[0] if settings.init_from_sp else None
    log(f"hsp: best response to {len(pool)} partners ({', '.join(names)})")
    params, history, details = train_best_response(
        algo, env, pool, algo.total_steps, log, ALGORITHM,
        self_play_share=settings.self_play_share, init=init, saves=saves,
    )  # fmt: skip
    details = {"pool": names, "pool_sha256": hashes, "settings": settings.model_dump(mode="json"), **details}
    manifest = save_agent(
        out_dir, algo, ALGORITHM, params, env, saves.trained(history[-1]["env_steps"]), details, history, log
    )
    saves.clear()
    return manifest
