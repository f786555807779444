"""Cross-play of every trained partner of a two-seat layout with every other, both seats, all in one
vmapped JAX program (``make_pair_scores``): 10 policies x 10 policies x 10 episodes of 400 steps
run in a couple of minutes on 2 cores, where stepping RL partners one action at a time through
the eval harness would take hours. Each ordered pair's key comes from its names, so adding a
partner to the zoo leaves the existing cells as they were. Partners whose network differs from the first one's are
skipped (and named), since the program stacks their parameters.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel

from proagent.paths import PARTNERS_DIR, partner_dir
from proagent.training import checkpoint
from proagent.training.evaluate import make_pair_scores
from proagent.training.worlds import rl_spec


class CrossPlay(BaseModel):
    """Scores of ``names[i]`` in seat 0 with ``names[j]`` in seat 1: ``scores[i][j]`` per episode."""

    layout: str
    names: list[str]
    episodes: int
    seed: int
    scores: list[list[list[float]]]
    skipped: list[str] = []
    parents: dict[str, str] = {}  # partner -> the partner it was warm-started from or trained with

    def related(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` share ancestry: one fine-tuned from the other, or both from one
        parent. Such a pair is no zero-shot test (a warm-started agent keeps its parent's conventions)."""
        lineage = lambda x: {x, self.parents.get(x, x)}
        return bool(lineage(a) & lineage(b))

    def both_seats(self, agent: str, partner: str) -> np.ndarray:
        """The agent's episodes in seat 0 and in seat 1 with ``partner``, concatenated."""
        i, j = self.names.index(agent), self.names.index(partner)
        return np.concatenate([self.scores[i][j], self.scores[j][i]])


def load_zoo(
    layout: str, root: Path = PARTNERS_DIR, world: str = "overcooked"
) -> tuple[list[str], list, list[str], dict[str, str]]:
    """(names, params, skipped, parents) of the trained partners of ``layout`` sharing the first
    one's network (and one network for every seat); ``parents`` maps a partner to the one it
    started from or trained with."""
    names, params, skipped, parents, network = [], [], [], {}, None
    folder = partner_dir(world, layout, "", root)
    found = folder.iterdir() if folder.is_dir() else ()
    for directory in sorted(p for p in found if (p / checkpoint.MANIFEST_FILE).is_file()):
        p, manifest = checkpoint.load(directory)
        network = network or manifest.network
        if manifest.network != network or manifest.seat_groups:
            skipped.append(directory.name)
            continue
        names.append(directory.name)
        params.append(p)
        parent = training_parent(manifest)
        if parent is not None:
            parents[directory.name] = parent
    return names, params, skipped, parents


def training_parent(manifest: checkpoint.Manifest) -> str | None:
    """The shipped partner a checkpoint was warm-started from or, failing that, trained beside
    (a human proxy's ``trained_with_partner``): either one shapes its conventions. A fine-tuned
    checkpoint (``--init-from``) names its parent's folder."""
    if manifest.init_from is not None:
        return Path(manifest.init_from.path).name
    warm_start = manifest.train_config.get("warm_start", "none")
    if warm_start != "none":
        return warm_start
    beside = ((manifest.model_extra or {}).get("details") or {}).get("trained_with_partner")
    return beside["name"] if beside else None


def pair_key(seed: int, agent: str, partner: str) -> jax.Array:
    """The random key of the ordered pair (agent in seat 0, partner in seat 1): a function of the
    names and the seed only, so a pair's cell is the same whatever else the zoo holds."""
    key = jax.random.PRNGKey(seed)
    for name in (agent, partner):
        key = jax.random.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)
    return key


def zoo_crossplay(
    layout: str, episodes: int = 10, seed: int = 0, root: Path = PARTNERS_DIR, world: str = "overcooked"
) -> CrossPlay:
    names, params, skipped, parents = load_zoo(layout, root, world)
    if not names:
        raise ValueError(f"no trained partners for {world} {layout!r} under {root}")
    manifest = checkpoint.load_manifest(partner_dir(world, layout, names[0], root))
    env = rl_spec(world).make_env(layout)
    stacked = jax.tree.map(lambda *x: np.stack(x), *params)
    scores = make_pair_scores(env, manifest.network, len(names), episodes)
    pair_keys = np.stack([np.stack([pair_key(seed, a, b) for b in names]) for a in names])
    table = np.asarray(scores(stacked, pair_keys))
    return CrossPlay(layout=layout, names=names, episodes=episodes, seed=seed, scores=table.tolist(), skipped=skipped, parents=parents)
