"""Per-player observations: a public part everyone shares and a private part of seen colours.

Public: the board (card cells and adjacency), every hint's status and card, the colours of
revealed hints, who has looked at which card, the cards observed this turn, whose turn and which
phase. Private: the colour of each card in the player's ``known`` set, else -1. A face-down
hint's colours and an unobserved card's colour are in no observation. ``flatten`` turns one
observation into a float vector for networks.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from envs.yokai.rules import HintStatus
from envs.yokai.state import YokaiState

UNKNOWN = -1  # colour of a card the player holds no colour for


class YokaiObservation(NamedTuple):
    me: jax.Array  # () int32, the observing seat
    card_pos: jax.Array  # (Y, 2) int32 (row, col)
    adjacency: jax.Array  # (Y, Y) bool
    hint_status: jax.Array  # (H,) int32 HintStatus
    hint_card: jax.Array  # (H,) int32 card under a placed hint, -1 otherwise
    hint_colours: jax.Array  # (H, C) bool, all False while the hint is face down
    seen: jax.Array  # (P, Y) bool, who has looked at which card (not what they saw)
    turn_cards: jax.Array  # (2,) int32 cards the actor observed this turn, -1 if not yet
    player: jax.Array  # () int32 acting seat
    phase: jax.Array  # () int32 Phase
    step: jax.Array  # () int32
    done: jax.Array  # () bool
    colours: jax.Array  # (Y,) int32 PRIVATE: the colour this player holds for each card, else -1


def observe(state: YokaiState, player: jax.Array | int) -> YokaiObservation:
    """One player's observation (jit/vmap-able over ``player``)."""
    face_up = state.hint_status != HintStatus.FACE_DOWN
    return YokaiObservation(
        me=jnp.asarray(player, jnp.int32),
        card_pos=state.card_pos,
        adjacency=state.adjacency,
        hint_status=state.hint_status,
        hint_card=state.hint_card,
        hint_colours=state.hint_colours & face_up[:, None],
        seen=state.seen,
        turn_cards=state.turn_cards,
        player=state.player,
        phase=state.phase,
        step=state.step,
        done=state.done,
        colours=jnp.where(state.known[player], state.card_colour, UNKNOWN).astype(jnp.int32),
    )


def flatten(obs: YokaiObservation, num_colours: int, grid_size: int) -> jax.Array:
    """(F,) float32: positions scaled to [0, 1], one-hot statuses/colours/phase, bools as 0/1."""
    n_players = obs.seen.shape[0]
    parts = [
        (obs.card_pos.astype(jnp.float32) / (grid_size - 1)).ravel(),
        obs.adjacency.astype(jnp.float32).ravel(),
        jax.nn.one_hot(obs.hint_status, len(HintStatus)).ravel(),
        jax.nn.one_hot(obs.hint_card, obs.card_pos.shape[0]).ravel(),  # -1 encodes as all zeros
        obs.hint_colours.astype(jnp.float32).ravel(),
        jnp.roll(obs.seen, -obs.me, axis=0).astype(jnp.float32).ravel(),  # own row first
        jax.nn.one_hot(obs.turn_cards, obs.card_pos.shape[0]).ravel(),
        jax.nn.one_hot((obs.player - obs.me) % n_players, n_players),
        jax.nn.one_hot(obs.phase, 4),
        jax.nn.one_hot(obs.colours, num_colours).ravel(),  # unknown encodes as all zeros
    ]
    return jnp.concatenate(parts)
