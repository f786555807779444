"""Cross-play of every trained partner of a two-seat layout with every other, both seats, in one
vmapped JAX program per pair of network families (``make_pair_scores``, ``make_grid_scores``): 10 policies x 10
policies x 10 episodes of 400 steps run in a couple of minutes on 2 cores, where stepping RL partners one action at a
time through the eval harness would take hours. Each ordered pair's key comes from its names, so adding a
partner to the zoo leaves the existing cells as they were. Partners are grouped by network: each
pair of groups is one program (its parameters stacked per group), so a zoo may mix network
families. Partners with a network per seat (IPPO's seat groups) are skipped and named.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import jax
import numpy as np
from pydantic import BaseModel

from proagent.paths import PARTNERS_DIR, partner_dir
from proagent.training import checkpoint
from proagent.training.evaluate import make_grid_scores, make_pair_scores
from proagent.training.networks import Network
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


class Zoo(BaseModel, arbitrary_types_allowed=True):
    """The trained partners of one layout: names, parameter trees and networks in one order."""

    names: list[str]
    params: list
    networks: list[Network]
    skipped: list[str]
    parents: dict[str, str]

    def groups(self) -> list[list[int]]:
        """Indices of the members sharing each distinct network, in order of first appearance."""
        groups: list[list[int]] = []
        for i, network in enumerate(self.networks):
            home = next((g for g in groups if self.networks[g[0]] == network), None)
            home.append(i) if home is not None else groups.append([i])
        return groups


def load_zoo(layout: str, root: Path = PARTNERS_DIR, world: str = "overcooked") -> Zoo:
    """The trained partners of ``layout`` with one network for every seat; ``parents`` maps a
    partner to the one it started from or trained with."""
    names, params, networks, skipped, parents = [], [], [], [], {}
    folder = partner_dir(world, layout, "", root)
    found = folder.iterdir() if folder.is_dir() else ()
    for directory in sorted(p for p in found if (p / checkpoint.MANIFEST_FILE).is_file()):
        p, manifest = checkpoint.load(directory)
        if manifest.seat_groups:
            skipped.append(directory.name)
            continue
        names.append(directory.name)
        params.append(p)
        networks.append(manifest.network)
        parent = training_parent(manifest)
        if parent is not None:
            parents[directory.name] = parent
    return Zoo(names=names, params=params, networks=networks, skipped=skipped, parents=parents)


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
    zoo = load_zoo(layout, root, world)
    if not zoo.names:
        raise ValueError(f"no trained partners for {world} {layout!r} under {root}")
    env = rl_spec(world).make_env(layout)
    table = np.zeros((len(zoo.names), len(zoo.names), episodes), np.float32)
    groups = zoo.groups()
    stacks = [jax.tree.map(lambda *x: np.stack(x), *[zoo.params[i] for i in g]) for g in groups]
    for g0, stack0 in zip(groups, stacks):
        for g1, stack1 in zip(groups, stacks):
            keys = np.stack([np.stack([pair_key(seed, zoo.names[i], zoo.names[j]) for j in g1]) for i in g0])
            if g0 is g1:  # one stack in both seats: the program COLE's payoff matrix runs too
                cells = make_pair_scores(env, zoo.networks[g0[0]], len(g0), episodes)(stack0, keys)
            else:
                grid = make_grid_scores(env, zoo.networks[g0[0]], zoo.networks[g1[0]], len(g0), len(g1), episodes)
                cells = grid(stack0, stack1, keys)
            table[np.ix_(g0, g1)] = np.asarray(cells)
    return CrossPlay(
        layout=layout, names=zoo.names, episodes=episodes, seed=seed, scores=table.tolist(),
        skipped=zoo.skipped, parents=zoo.parents,
    )
