"""The Yōkai state layout, shared by the JAX env and the NumPy reference (no JAX needed here).

All arrays have static shapes fixed by the configuration (Y cards, H hints, P players, C colours),
so states of one configuration stack into a batch and share one compiled step.
"""

from __future__ import annotations

from typing import Any, NamedTuple

Array = Any  # jax.Array in the env, np.ndarray in the reference


class YokaiState(NamedTuple):
    card_pos: Array  # (Y, 2) int32 (row, col) on the g x g grid
    card_colour: Array  # (Y,) int32 colour index, hidden from players until observed
    adjacency: Array  # (Y, Y) bool, side-neighbours (eq. 7-8 keep it current after each move)
    hint_colours: Array  # (H, C) bool, the colour set printed on each hint card
    hint_status: Array  # (H,) int32 HintStatus
    hint_card: Array  # (H,) int32 card a placed hint lies on, NO_CARD otherwise
    seen: Array  # (P, Y) bool, player p has ever observed card y (public: everyone sees who looks)
    known: Array  # (P, Y) bool, colours in p's private observation (real memory drops moved cards)
    turn_cards: Array  # (2,) int32 cards observed this turn, NO_CARD while not yet observed
    player: Array  # () int32 whose turn it is
    phase: Array  # () int32 Phase
    step: Array  # () int32 legal actions taken so far
    done: Array  # () bool
    ended_early: Array  # () bool, the game was ended with END (d_a of eq. 4)
    score: Array  # () int32, eq. 1, set when the game ends
    won: Array  # () bool, set when the game ends: every colour forms one side-connected cluster
    last_action: Array  # () int32, the acting player's last legal action (NOOP before the first)
    last_player: Array  # () int32, who took it (NO_CARD before the first)
    legal: Array  # (N,) bool, the acting player's legal actions now (computed once per step)


class YokaiParams(NamedTuple):
    """Rule flags that may change without recompiling (pass arrays to anneal the shaping).

    ``perfect_memory``: a player's private observation keeps the colour of a card it has observed
    wherever the card moves (the paper's experimental setting); False is the real game, where a
    moved card shows no remembered colour and players must track it themselves.
    ``shaping_scale``: weight of the shaped reward (+1 per card the actor observes for the first
    time, +1 per hint placed on a card of one of its colours); anneal it to 0 during training.
    ``end_from_turn``: turns played (by all players together) before END becomes legal. 0, the
    paper's rule, allows it from the first turn; more is a controlled variant that keeps a game
    going, e.g. to watch a player's beliefs over turns when it would otherwise end at once.
    """

    perfect_memory: Any = True
    shaping_scale: Any = 0.0
    end_from_turn: Any = 0
