"""Yōkai's RL spec (``YokaiDomain.capabilities.rl``): what the one RL program needs of a layout.

- the env: ``YokaiRLEnv`` drives the world's own game (``YokaiWorldEnv``: the engine plus a clock
  bounding the episode at the game's longest length, 8|H| steps), so its state is the state the
  world hands a partner and a trained partner observes the live game directly;
- the turn structure: only the acting seat chooses; ``legal_actions`` is the engine's mask (the
  acting seat's legal moves, NOOP alone for every other seat), which the program applies to the
  logits everywhere, so none of the 1,068 (9C 2P) actions it draws is illegal;
- the rewards: the team reward and the reported score are the paper's RL reward (eq. 4: the score
  if won, else minus early ending, wrong clusters and wrong hints), paid at the end of the game;
  the shaped reward is the engine's (+1 per card the actor sees for the first time, +1 per hint
  placed on a matching card), which the program anneals to 0 over ``shaping_horizon`` env steps;
- the observation: the paper's image-like grid (``rl_obs``), one per seat from its own view;
- the network: the grid family. ``fast`` (a per-cell linear map, then the dense torso over the
  whole grid: an MLP over the board) is the CPU default; ``pointwise`` is the recurrent network
  (per-cell maps, Dense, GRU, heads); ``cnn`` the paper's convolutional encoder (3x3 convs, no GRU).
  With ``--encoder auto`` a GPU gets the recurrent network with the paper's 3x3 convolutions;
- Other-Play's symmetries: colour permutations x board rotations (``YokaiSymmetries``, the paper's
  full group Φ; ``--algo-set group=colour`` or ``group=rotation`` for its ablations, Table 4).

High-entropy IPPO (the paper's HE, Forkel et al.) is self-play or ``ippo`` with a larger entropy
bonus: ``--set ent_coef=0.07 --set gae_lambda=0.85`` (the paper's 2P values).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp

from envs.yokai import make
from envs.yokai.observation import observe
from envs.yokai.scenario import YokaiConfig, load_config
from proagent.domains.yokai import rl_obs
from proagent.domains.yokai.table import WorldState, YokaiWorldEnv
from proagent.world.rl_spec import RLEnv, StepOut

# The paper's CNN-GRU shape (App. D: 3x3 convolutions of 64 filters, a projection, a GRU, 256 wide),
# as the grid family builds it; and its CPU-sized sibling (no 3x3 convolutions, 64 wide: a shipped
# checkpoint stays under 1 MB, most of it the 1,068-action head)
PAPER_NETWORK_FIELDS: dict[str, Any] = {
    "pointwise": (64, 16),
    "spatial": (64, 64, 64, 64),
    "fc_dim": 256,
    "memory": 256,
}
CPU_RECURRENT_FIELDS: dict[str, Any] = {"pointwise": (32, 8), "spatial": (), "fc_dim": 64, "memory": 64}

SymmetryGroup = Literal["colour_rotation", "colour", "rotation"]
GROUPS: tuple[str, ...] = ("colour_rotation", "colour", "rotation")


@dataclass(frozen=True)
class YokaiRLEnv:
    """A layout as the RL program sees it (``proagent.world.rl_spec.RLEnv``); its state is the
    world's ``WorldState``."""

    world: YokaiWorldEnv

    def __post_init__(self) -> None:
        rl_obs.check_fits(self.config)

    @property
    def config(self) -> YokaiConfig:
        return self.world.config

    @property
    def num_agents(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return self.config.actions.size

    @property
    def horizon(self) -> int:
        return self.world.horizon

    def reset(self, key: jax.Array) -> WorldState:
        return self.world.reset(key)

    def step(self, key: jax.Array, state: WorldState, actions: jax.Array) -> StepOut:
        tr = self.world.step(key, state, actions)
        return StepOut(state=tr.state, reward=tr.reward, score=tr.reward, shaped=tr.shaped_reward, done=tr.done)

    def observe(self, state: WorldState) -> jax.Array:
        return jax.vmap(lambda seat: self.observe_seat(state, seat))(jnp.arange(self.num_agents))

    def observe_seat(self, state: WorldState, seat: jax.Array | int) -> jax.Array:
        return rl_obs.encode(observe(state.game, seat), self.config, *rl_obs.identity_symmetry(self.config))

    def legal_actions(self, state: WorldState) -> jax.Array:
        return self.world.game.legal_mask(state.game)

    def record(self) -> dict[str, Any]:
        return {"horizon": self.horizon, "perfect_memory": self.world.perfect_memory}


class SymmetricState(NamedTuple):
    """The game and each seat's symmetry, drawn at every reset."""

    world: WorldState
    colours: jax.Array  # (A, C) int32: the colour seat s sees for real colour c
    rotation: jax.Array  # (A,) int32 quarter turns of seat s's board


@dataclass(frozen=True)
class SymmetricYokaiEnv(YokaiRLEnv):
    """``YokaiRLEnv`` in which each seat sees the game through its own symmetry (Other-Play): its
    observation is recoloured and turned, its legal actions and chosen action turned with it."""

    group: SymmetryGroup = "colour_rotation"

    def reset(self, key: jax.Array) -> SymmetricState:  # type: ignore[override]  # the game plus the symmetries
        k_game, k_col, k_rot = jax.random.split(key, 3)
        a, c = self.num_agents, self.config.num_colours
        colours = jnp.tile(jnp.arange(c, dtype=jnp.int32), (a, 1))
        if self.group != "rotation":
            colours = jax.vmap(jax.random.permutation)(jax.random.split(k_col, a), colours)
        rotation = jnp.zeros(a, jnp.int32)
        if self.group != "colour":
            rotation = jax.random.randint(k_rot, (a,), 0, rl_obs.ROTATIONS, jnp.int32)
        return SymmetricState(super().reset(k_game), colours, rotation)

    def _to_real(self) -> jax.Array:
        return jnp.asarray(rl_obs.action_to_real(self.config))

    def step(self, key: jax.Array, state: SymmetricState, actions: jax.Array) -> StepOut:  # type: ignore[override]
        out = super().step(key, state.world, self._to_real()[state.rotation, actions])
        return out._replace(state=state._replace(world=out.state))

    def observe_seat(self, state: SymmetricState, seat: jax.Array | int) -> jax.Array:  # type: ignore[override]
        obs = observe(state.world.game, seat)
        return rl_obs.encode(obs, self.config, state.colours[seat], state.rotation[seat])

    def legal_actions(self, state: SymmetricState) -> jax.Array:  # type: ignore[override]
        real = super().legal_actions(state.world)  # (A, N)
        return jnp.take_along_axis(real, self._to_real()[state.rotation], axis=1)


class YokaiSymmetries:
    """Other-Play's symmetry group for Yōkai (the paper's §5.1 and App. D.3): each seat sees the
    colours permuted and the board turned by a multiple of 90 degrees, drawn per seat at every
    reset; ``group`` restricts it to colours or rotations alone (the paper's Table 4 ablations)."""

    def permuted(
        self, env: RLEnv, chosen: tuple[int, ...] | None, group: str | None = None
    ) -> tuple[RLEnv, tuple[int, ...]]:
        if not isinstance(env, YokaiRLEnv) or isinstance(env, SymmetricYokaiEnv):
            raise TypeError(f"Yōkai's symmetries permute its plain env, not a {type(env).__name__}")
        group = group or "colour_rotation"
        if group not in GROUPS:
            raise ValueError(f"other-play on yokai: no symmetry group {group!r}; choices: {', '.join(GROUPS)}")
        colours = tuple(range(env.config.num_colours))
        if chosen is not None and tuple(sorted(chosen)) != colours:
            raise ValueError(f"other-play on yokai permutes all colours {list(colours)}; got {list(chosen)}")
        permuted = SymmetricYokaiEnv(env.world, group)  # type: ignore[arg-type]  # a name of GROUPS
        return permuted, colours if group != "rotation" else ()


def _world(config: YokaiConfig, perfect_memory: bool, horizon: int | None) -> YokaiWorldEnv:
    """The game with its shaped reward at weight 1 (the program anneals it), bounded by ``horizon``
    steps (default: the longest game, so a game with legal actions only always ends by itself)."""
    game = make(config, perfect_memory=perfect_memory, shaping_scale=1.0)
    return YokaiWorldEnv(game, config.max_steps if horizon is None else horizon)


def partner_env(world: YokaiWorldEnv, record: Mapping[str, Any]) -> YokaiRLEnv:
    """The env a trained partner observes ``world``'s game through: the layout it plays, with the
    memory rule it trained under (its manifest's env record)."""
    return YokaiRLEnv(_world(world.config, bool(record.get("perfect_memory", True)), None))


@dataclass(frozen=True)
class YokaiRLSpec:
    """``proagent.world.rl_spec.RLSpec`` for Yōkai."""

    world: str = "yokai"
    encoders: tuple[str, ...] = ("fast", "pointwise", "cnn", "pointer")
    # the paper's Table 8 (lr 3e-4, entropy 0.01, 4 epochs x 4 minibatches of 128-step rollouts)
    # with 64 envs, which a CPU runs; the paper's 1,024 simulators are for GPUs (--num-envs)
    ppo_defaults: Mapping[str, int | float] = field(
        default_factory=lambda: {"num_envs": 64, "num_steps": 128, "ent_coef": 0.01, "lr": 3e-4}
    )
    symmetries: YokaiSymmetries | None = field(default_factory=YokaiSymmetries)
    start_states: None = None
    styles: None = None
    demonstrations: None = None

    def layout_name(self, layout: str) -> str:
        return load_config(layout).name

    def make_env(self, layout: str, horizon: int | None = None, record: Mapping[str, Any] | None = None) -> YokaiRLEnv:
        """The layout under the paper's perfect-memory rule, or the rule ``record`` names."""
        settings = record or {}
        length = horizon if horizon is not None else settings.get("horizon")
        return YokaiRLEnv(_world(load_config(layout), bool(settings.get("perfect_memory", True)), length))

    def network(self, encoder: str, layout: str, gpu: bool):
        """auto: the fast encoder on CPU, the paper's CNN-GRU shape on a GPU (pointwise maps, 3x3
        convolutions, GRU); ``pointwise`` alone: the recurrent network, CPU-sized off a GPU."""
        from proagent.training.networks import NetworkConfig

        if encoder not in ("auto", *self.encoders):
            raise ValueError(f"yokai has no encoder {encoder!r}; choices: auto, {', '.join(self.encoders)}")
        if encoder == "pointer":
            return pointer_network(load_config(layout))
        if encoder == "pointwise" or (encoder == "auto" and gpu):
            return NetworkConfig(encoder="pointwise", **(PAPER_NETWORK_FIELDS if gpu else CPU_RECURRENT_FIELDS))
        return NetworkConfig(encoder="fast" if encoder == "auto" else encoder, fast_features=16, fc_dim=64)


def pointer_network(config: YokaiConfig):
    """The pointer family (``proagent.training.pointer_network``) laid over Yōkai's action space
    (eq. 9): END, OBSERVE card, MOVE (card, cell), REVEAL hint, PLACE (hint, cell), NOOP; cards and
    hints found by the id channels ``rl_obs`` writes (a card's on its cell, a hint's in the hint column)."""
    from proagent.training.pointer_network import ActionBlock, ItemGroup, PointerConfig

    cards = ItemGroup(id_channel=rl_obs.card_id_channel(config), count=config.num_cards)
    hints = ItemGroup(id_channel=rl_obs.hint_id_channel(config), count=config.num_hints)
    blocks = (
        ActionBlock(kind="global"),
        ActionBlock(kind="item", group=0),
        ActionBlock(kind="item_cell", group=0),
        ActionBlock(kind="item", group=1),
        ActionBlock(kind="item_cell", group=1),
        ActionBlock(kind="global"),
    )
    return PointerConfig(groups=(cards, hints), blocks=blocks, board=(config.grid_size, config.grid_size))


YOKAI_RL = YokaiRLSpec()
