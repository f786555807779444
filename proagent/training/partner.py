"""The one RL partner of every world: a checkpoint playing one seat (``RLPartner``), found by name
in ``partners/<world>/<layout>/<algo>/`` (``load_rl_partner``).

A partner observes the engine state from its own seat through the world's ``RLEnv``
(``observe_seat``: the observation it was trained on), built by the caller's ``observer`` from the
partner's manifest (an Overcooked partner observes with the rules it trained under, its manifest's
``dynamics``). It samples its action from the policy, stochastically by default, as in training
(argmax play of a self-play policy tends to get stuck in loops); its random stream is seeded by
``reset(seat, seed)``, so an episode replays exactly. A recurrent partner carries its memory from
step to step, cleared by ``reset``; a per-seat checkpoint (``seat_groups``) plays each seat with
that seat's network.

Any checkpoint folder plays too, named by its path (``--partner runs/train/<run>/``:
``checkpoint_named``, ``load_checkpoint_partner``), without being shipped into ``partners/``.

``act_batch(obs, key)`` serves vmapped evaluation (cross-play tables): a batch of observations in,
a batch of actions out, one jitted call. Where the world has legal-action masks
(``RLEnv.legal_actions``) the partner samples among its seat's legal actions only (``act_batch``
takes the batch's masks). Loading needs only flax/jax/numpy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from proagent.contract import ImmediateAgent, Observation, UnknownAgentError
from proagent.paths import PARTNERS_DIR, method_of, partner_dir
from proagent.training import checkpoint
from proagent.training.networks import Hidden, Network, PolicyFns, mask_logits, pick_action, policy_fns
from proagent.world.rl_spec import RLEnv, State

Observer = Callable[[checkpoint.Manifest], RLEnv]  # the env a partner observes with, from its manifest


class RLPartner(ImmediateAgent):
    """A checkpointed policy playing one seat of ``layout``."""

    def __init__(
        self, directory: Path, observer: Observer, layout: str, name: str | None = None, stochastic: bool = True
    ) -> None:
        self.params, self.manifest = checkpoint.load(directory)
        self.name = name or self.manifest.algorithm
        self.directory = directory
        self.stochastic = stochastic
        self.env = observer(self.manifest)
        self._check_fits(layout)
        self.seat = 0
        self._key = jax.random.PRNGKey(0)
        self._hidden: Hidden = self._network.initial_hidden(1)

    def _check_fits(self, layout: str) -> None:
        """The env's observations must have the shape the network was trained on, and a per-seat
        checkpoint needs as many seats as it has networks."""
        state = jax.eval_shape(self.env.reset, jax.random.PRNGKey(0))
        shape = tuple(jax.eval_shape(self.env.observe_seat, state, 0).shape)
        groups = self.manifest.seat_groups
        if tuple(self.manifest.obs_shape) != shape or groups > 1 and groups != self.env.num_agents:
            m = self.manifest
            raise ValueError(
                f"partner {self.name!r} was trained on {m.layout} (observation {tuple(m.obs_shape)}, "
                f"{max(groups, 1)} seat network(s)), not on {layout} (observation {shape}, {self.env.num_agents} "
                f"agents); train one with `proagent train --domain {m.world} --layout {layout}`"
            )

    def provenance(self) -> dict[str, str]:
        """The sha256 of the params it plays (checked against the manifest on load; hashed here for
        a manifest too old to hold one), so a run names exactly which weights were its partner."""
        sha = self.manifest.params_sha256
        if not sha:
            sha = hashlib.sha256((self.directory / checkpoint.PARAMS_FILE).read_bytes()).hexdigest()
        return {"params_sha256": sha}

    # ---- Partner protocol ----

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self._key = jax.random.PRNGKey(seed)
        self._hidden = self._network.initial_hidden(1)

    def policy(self, state: Any, engine: State) -> int:
        self._key, key = jax.random.split(self._key)
        self._hidden, action = self._act_one(self._seat_params(self.seat), self._hidden, engine, self.seat, key)
        return int(action)

    # ---- batched use ----

    def logits(self, obs: jax.Array, seat: int = 0) -> jax.Array:
        """obs (B, ...) -> logits (B, actions) of a feedforward partner in ``seat``; pure, for other jitted code."""
        self._refuse_recurrent("logits")
        return self._network.step(self._seat_params(seat), None, obs)[1]

    def act_batch(self, obs: jax.Array, key: jax.Array, seat: int = 0, legal: jax.Array | None = None) -> jax.Array:
        """obs (B, ...) observations (each from the acting seat) -> actions (B,) int32 (feedforward
        partners; a recurrent one needs its memory: ``training.evaluate``). ``legal`` (B, actions):
        the acting seats' legal actions in a world with masks (None: every action may be drawn)."""
        self._refuse_recurrent("act_batch")
        return self._act_batch(self._seat_params(seat), obs, key, legal)

    def _refuse_recurrent(self, what: str) -> None:
        if self.manifest.network.recurrent:
            raise ValueError(
                f"partner {self.name!r} is recurrent: {what} has no memory; score it with training.evaluate"
            )

    # ---- jitted internals ----

    def _seat_params(self, seat: int) -> Any:
        groups = self.manifest.seat_groups
        return self.params if groups == 0 else self._groups[seat % groups]

    @cached_property
    def _groups(self) -> list[Any]:
        return [jax.tree.map(lambda x, g=g: x[g], self.params) for g in range(self.manifest.seat_groups)]

    @cached_property
    def _network(self) -> PolicyFns:
        return policy_fns(self.manifest.network, self.env.num_actions)

    def _act_one(self, params: Any, hidden: Hidden, state: State, seat: int, key: jax.Array):
        return _jitted_act_one(self.env, self.manifest.network, self.stochastic, params, hidden, state, seat, key)

    def _act_batch(self, params: Any, obs: jax.Array, key: jax.Array, legal: jax.Array | None) -> jax.Array:
        return _jitted_act_batch(self.env, self.manifest.network, self.stochastic, params, obs, key, legal)


# A partner's acting functions are jitted once per process with what they are built from as static
# arguments (the env, which equal envs share: `envs.jitted`; the frozen network config; sampling or
# argmax), not once per loaded partner: every run that loads a partner anew (an eval's runs, a
# table's grids, a web session) traces its policy once, and partners of one network share it.
@partial(jax.jit, static_argnums=(0, 1, 2))
def _jitted_act_one(
    env: RLEnv, network: Network, stochastic: bool, params: Any, hidden: Hidden, state: State, seat: Any, key: Any
):
    obs = env.observe_seat(state, seat)
    legal = env.legal_actions(state)
    hidden, logits, _ = policy_fns(network, env.num_actions).step(params, hidden, obs[None])
    return hidden, pick_action(mask_logits(logits[0], None if legal is None else legal[seat]), key, stochastic)


@partial(jax.jit, static_argnums=(0, 1, 2))
def _jitted_act_batch(
    env: RLEnv, network: Network, stochastic: bool, params: Any, obs: jax.Array, key: Any, legal: Any
) -> jax.Array:
    logits = mask_logits(policy_fns(network, env.num_actions).step(params, None, obs)[1], legal)
    return pick_action(logits, key, stochastic).astype(jnp.int32)


def available_rl_partners(world: str, layout: str, root: Path = PARTNERS_DIR) -> list[str]:
    """Names (algorithm folders with a manifest) trained for ``layout`` of ``world``, e.g. ['sp']."""
    folder = partner_dir(world, layout, "", root)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / checkpoint.MANIFEST_FILE).is_file())


def trained_names(world: str, root: Path = PARTNERS_DIR) -> dict[str, list[str]]:
    """Every partner name trained for some layout of ``world`` -> the layouts it is trained for."""
    found: dict[str, list[str]] = {}
    for manifest in sorted((root / world).glob(f"*/*/{checkpoint.MANIFEST_FILE}")):
        found.setdefault(manifest.parent.name, []).append(manifest.parent.parent.name)
    return found


def best_seed(world: str, layout: str, algo: str, root: Path = PARTNERS_DIR) -> str | None:
    """Of ``algo`` and its other seeds shipped for ``layout`` (``sp``, ``sp_s1``, ``sp_s2``...), the
    one whose manifest records the highest self-play mean (a tie goes to the first by name; one
    still training, with no score yet, comes last); None when none ships. Seeds of one recipe can
    differ from a working partner to one that scores nothing, so a default must not take seed 0
    on trust."""
    scored: list[tuple[float, str]] = []
    for name in available_rl_partners(world, layout, root):
        if method_of(name) == algo:
            sp = checkpoint.load_manifest(partner_dir(world, layout, name, root)).self_play
            scored.append((sp.mean if sp is not None else float("-inf"), name))
    return max(scored, key=lambda pair: pair[0])[1] if scored else None


def load_rl_partner(
    world: str, layout: str, name: str, observer: Observer, root: Path = PARTNERS_DIR, stochastic: bool = True
) -> RLPartner:
    """The partner ``name`` (e.g. 'sp') trained for ``layout`` of ``world``, observing through
    ``observer``; UnknownAgentError (one line) lists the ones present and where ``name`` is trained."""
    directory = partner_dir(world, layout, name, root)
    if not (directory / checkpoint.MANIFEST_FILE).is_file():
        have = available_rl_partners(world, layout, root)
        elsewhere = trained_names(world, root).get(name, [])
        raise UnknownAgentError(
            f"no RL partner {name!r} for {world} layout {layout!r}; available: {have or 'none'}; layouts with one: "
            f"{', '.join(elsewhere) or 'none'} (train one: proagent train --algo {name} --layout {layout} --domain "
            f"{world})"
        )
    return RLPartner(directory, observer, layout, name=name, stochastic=stochastic)


def checkpoint_named(name: str) -> Path | None:
    """The checkpoint folder a partner name gives as a path (one holding a ``/``, e.g.
    ``runs/train/<run>/`` or ``./ckpt``), or None for a plain partner name; a ValueError (one line)
    when that folder lacks the params or the manifest."""
    if "/" not in name:
        return None
    directory = Path(name).expanduser()
    missing = [f for f in (checkpoint.PARAMS_FILE, checkpoint.MANIFEST_FILE) if not (directory / f).is_file()]
    if missing:
        raise ValueError(f"partner {name!r} is a path, but no checkpoint folder: {' and '.join(missing)} missing there")
    return directory


def load_checkpoint_partner(
    directory: Path, world: str, layout: str, observer: Observer, stochastic: bool = True
) -> RLPartner:
    """The checkpoint in ``directory`` (any folder, shipped or not) playing a seat of ``world``'s
    ``layout``, named by the path it was given; a ValueError (one line) when it was trained in
    another world or does not fit the layout."""
    trained_in = checkpoint.load_manifest(directory).world
    if trained_in != world:
        raise ValueError(f"partner {str(directory)!r} was trained in {trained_in}; this game is {world} {layout}")
    return RLPartner(directory, observer, layout, name=str(directory), stochastic=stochastic)
