"""Yōkai in JAX: the cooperative card-sorting game of the Yōkai Learning Environment, pure and
jit/vmap-able, never auto-resetting.

Rules (``docs/yokai.md`` has the long version; ``envs/yokai/reference.py`` is the same rules in
plain NumPy, and a test holds the two to identical states, rewards and masks):

* Y face-down cards of C colours (Y / C each) start as a square in the centre of a g x g grid;
  colours are dealt at random. H hint cards, each printing a set of colours, are drawn per episode:
  for each colour count k, Table 7's number of k-colour sets, chosen at random without repeats.
* Players act in turn order, one action per env step; only the acting player's entry of
  ``actions`` is read, the others send NOOP. A turn has four phases:
  1. observe a first card privately -- or END the game instead;
  2. observe a second, different card;
  3. move one card to an empty cell so that all cards stay one side-connected group (if no move
     is legal, NOOP skips the move);
  4. reveal a face-down hint, or place a revealed hint on a card.
  A card carrying a hint can be neither observed nor moved, nor receive a second hint.
* The game ends with END, or after the turn that places the last hint (at most 8|H| steps).
  Score (eq. 1): 5 per face-down hint + 2 per revealed unplaced hint + 1 per correct placed hint
  - 1 per wrong one (correct: the card's colour is on the hint). The game is won when each
  colour's cards form one side-connected cluster.
* Reward (eq. 4), only at the final step: the score if won, else
  ``-ended_early - (C - correct clusters) - wrong hints``. The shaped reward (never in the score)
  is ``shaping_scale`` x (+1 per card the actor observes for the first time, +1 per correct
  placement), the same for every seat.
* An illegal action (``state.legal`` is the actor's mask) changes nothing; a done state stays
  frozen until the caller resets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from envs.jitted import JittedEntryPoints, value_key
from envs.yokai import board
from envs.yokai.events import YokaiEvent, extract_events
from envs.yokai.observation import YokaiObservation, observe
from envs.yokai.render import render_ascii, render_rgb
from envs.yokai.rules import NO_CARD, TURN_STEPS, HintStatus, Phase
from envs.yokai.scenario import YokaiConfig, load_config
from envs.yokai.state import YokaiParams, YokaiState
from envs.yokai.symbolic import PlayerView, YokaiView, decode, decode_player


class Transition(NamedTuple):
    """One step's outcome: ``reward`` is eq. 4 on the final step (0 before); ``shaped_reward`` one
    value per seat, already scaled by ``shaping_scale``; ``done`` the game is over."""

    state: YokaiState
    reward: jax.Array  # () float32
    shaped_reward: jax.Array  # (P,) float32
    done: jax.Array  # () bool


class _Decoded(NamedTuple):
    """The parts of one traced action id (indices clipped into range; the ``is_*`` flags decide)."""

    is_end: jax.Array
    is_obs: jax.Array
    is_move: jax.Array
    is_reveal: jax.Array
    is_place: jax.Array
    card: jax.Array  # observed or moved card
    cell: jax.Array  # move target or placement cell
    hint: jax.Array


def final_outcome(state: YokaiState, num_colours: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(score eq. 1, won, reward eq. 4) of a finished board."""
    clusters = board.colour_clusters(state.adjacency, state.card_colour, num_colours)
    won = jnp.all(clusters)
    correct = board.hint_correct(state.hint_colours, state.hint_card, state.card_colour)
    placed = state.hint_status == HintStatus.PLACED
    wrong = jnp.sum(placed & ~correct, dtype=jnp.int32)
    face_down = jnp.sum(state.hint_status == HintStatus.FACE_DOWN, dtype=jnp.int32)
    revealed = jnp.sum(state.hint_status == HintStatus.REVEALED, dtype=jnp.int32)
    score = 5 * face_down + 2 * revealed + jnp.sum(correct, dtype=jnp.int32) - wrong
    lost = -state.ended_early.astype(jnp.int32) - (num_colours - jnp.sum(clusters, dtype=jnp.int32)) - wrong
    return score, won, jnp.where(won, score, lost).astype(jnp.float32)


class YokaiEnv(JittedEntryPoints):
    """One configuration. Methods are pure; jitted and batched versions are cached per instance.
    ``params`` (memory rule, shaping weight) may also be passed per call to ``step``."""

    def __init__(self, config: YokaiConfig, params: YokaiParams | None = None) -> None:
        self.config = config
        self.params = YokaiParams() if params is None else params
        self.layout = config.actions
        self.num_agents = config.num_players
        self._start_pos = config.start_cells()
        self._candidates = config.hint_candidates()
        self._base_colours = np.repeat(np.arange(config.num_colours), config.cards_per_colour).astype(np.int32)

    @property
    def name(self) -> str:
        return self.config.name

    def program_key(self) -> str:
        """The configuration and the rule flags (flags given as JAX arrays: this instance only)."""
        return value_key(self.config, list(self.params))

    @property
    def num_actions(self) -> int:
        return self.layout.size

    # ---- pure functions (jit/vmap them freely) ----

    def reset(self, key: jax.Array) -> YokaiState:
        """Deal colours and draw the hints from ``key``; player 0 starts observing (`start`)."""
        c = self.config
        k_col, k_perm, *k_sets = jax.random.split(key, 2 + len(c.hint_counts))
        colours = jax.random.permutation(k_col, jnp.asarray(self._base_colours))
        drawn = [
            jnp.asarray(table)[jax.random.choice(k, table.shape[0], (n,), replace=False)]
            for k, n, table in zip(k_sets, c.hint_counts, self._candidates, strict=True)
            if n > 0
        ]
        hints = jnp.concatenate(drawn)[jax.random.permutation(k_perm, c.num_hints)]
        return self.start(colours, hints)

    def start(self, card_colour: ArrayLike, hint_colours: ArrayLike) -> YokaiState:
        """The opening state of a given deal, as the NumPy reference's ``start``: ``card_colour``
        (cards,) colour ids, ``hint_colours`` (hints, colours) bool, the colours printed on each
        hint card. Replays a recorded human game or a paper's example; pure, so it jits. Wrong
        shapes are a ValueError; a concrete deal is also checked to be one the rules can deal."""
        c = self.config
        colours, hints = jnp.asarray(card_colour, jnp.int32), jnp.asarray(hint_colours, bool)
        if colours.shape != (c.num_cards,) or hints.shape != (c.num_hints, c.num_colours):
            raise ValueError(
                f"{c.name}: a deal is {c.num_cards} card colours and {c.num_hints}x{c.num_colours} hint colours, "
                f"got {colours.shape} and {hints.shape}"
            )
        if isinstance(card_colour, np.ndarray | list | tuple):
            check_deal(c, np.asarray(card_colour), np.asarray(hint_colours, bool))
        pos = jnp.asarray(self._start_pos)
        state = YokaiState(
            card_pos=pos,
            card_colour=colours,
            adjacency=board.adjacency_from_positions(pos),
            hint_colours=hints,
            hint_status=jnp.zeros(c.num_hints, jnp.int32),
            hint_card=jnp.full(c.num_hints, NO_CARD, jnp.int32),
            seen=jnp.zeros((c.num_players, c.num_cards), bool),
            known=jnp.zeros((c.num_players, c.num_cards), bool),
            turn_cards=jnp.full(2, NO_CARD, jnp.int32),
            player=jnp.int32(0),
            phase=jnp.int32(Phase.OBSERVE_FIRST),
            step=jnp.int32(0),
            done=jnp.bool_(False),
            ended_early=jnp.bool_(False),
            score=jnp.int32(0),
            won=jnp.bool_(False),
            last_action=jnp.int32(self.layout.noop),
            last_player=jnp.int32(NO_CARD),
            legal=jnp.zeros(self.layout.size, bool),
        )
        return state._replace(legal=self.actor_mask(state, self.params))

    def step(
        self, key: jax.Array, state: YokaiState, actions: jax.Array, params: YokaiParams | None = None
    ) -> Transition:
        """Apply the acting player's entry of ``actions`` ((P,) ints); the key is unused."""
        del key
        params = self.params if params is None else params
        action = jnp.asarray(actions, jnp.int32)[state.player]
        legal = state.legal[jnp.clip(action, 0, self.layout.size - 1)] & (action >= 0) & (action < self.layout.size)
        d = self._decode(action)
        moved, bonus = self._apply(state, d, params)
        ends = d.is_end | (d.is_place & jnp.all(moved.hint_status == HintStatus.PLACED))
        score, won, final = final_outcome(moved, self.config.num_colours)
        moved = moved._replace(
            done=ends,
            score=jnp.where(ends, score, moved.score),
            won=ends & won,
            step=state.step + 1,
            last_action=action,
            last_player=state.player,
        )
        moved = moved._replace(legal=self.actor_mask(moved, params))
        apply = legal & ~state.done
        next_state = jax.tree.map(lambda old, new: jnp.where(apply, new, old), state, moved)
        shaped = jnp.full((self.config.num_players,), 1.0, jnp.float32) * bonus * params.shaping_scale
        return Transition(
            state=next_state,
            reward=jnp.where(apply & ends, final, jnp.float32(0)),
            shaped_reward=jnp.where(apply, shaped, jnp.float32(0)).astype(jnp.float32),
            done=next_state.done,
        )

    def _decode(self, a: jax.Array) -> _Decoded:
        lay, q = self.layout, self.layout.cells
        mv, pl = a - lay.move_start, a - lay.place_start
        is_move = (a >= lay.move_start) & (a < lay.reveal_start)
        return _Decoded(
            is_end=a == 0,
            is_obs=(a >= lay.observe_start) & (a < lay.move_start),
            is_move=is_move,
            is_reveal=(a >= lay.reveal_start) & (a < lay.place_start),
            is_place=(a >= lay.place_start) & (a < lay.noop),
            card=jnp.clip(jnp.where(is_move, mv // q, a - lay.observe_start), 0, self.config.num_cards - 1),
            cell=jnp.clip(jnp.where(is_move, mv % q, pl % q), 0, q - 1),
            hint=jnp.clip(jnp.where(a >= lay.place_start, pl // q, a - lay.reveal_start), 0, self.config.num_hints - 1),
        )

    def _apply(self, s: YokaiState, d: _Decoded, params: YokaiParams) -> tuple[YokaiState, jax.Array]:
        """The state after a legal action (phase bookkeeping included) and its shaping bonus."""
        g, p = self.config.grid_size, s.player
        ids = jnp.arange(self.config.num_cards)
        # observe
        fresh = d.is_obs & ~s.seen[p, d.card]
        seen = s.seen.at[p, d.card].set(s.seen[p, d.card] | d.is_obs)
        known = s.known.at[p, d.card].set(s.known[p, d.card] | d.is_obs)
        slot = jnp.clip(s.phase, 0, 1)
        turn_cards = s.turn_cards.at[slot].set(jnp.where(d.is_obs, d.card, s.turn_cards[slot]))
        # move (eq. 7-8: the moved card's row and column of A become its new neighbours)
        row, col = d.cell // g, d.cell % g
        target = jnp.stack([row, col]).astype(jnp.int32)
        pos = s.card_pos.at[d.card].set(jnp.where(d.is_move, target, s.card_pos[d.card]))
        v = board.neighbours_of(pos, row, col) & (ids != d.card)
        adj = s.adjacency.at[d.card, :].set(v).at[:, d.card].set(v)
        adj = jnp.where(d.is_move, adj, s.adjacency)
        forget = d.is_move & ~jnp.asarray(params.perfect_memory, bool)
        known = known.at[:, d.card].set(known[:, d.card] & ~forget)
        # reveal / place (the receiving card is the one on the placement cell)
        under = board.occupancy(s.card_pos, g)[d.cell]
        status = s.hint_status.at[d.hint].set(
            jnp.where(
                d.is_reveal,
                int(HintStatus.REVEALED),
                jnp.where(d.is_place, int(HintStatus.PLACED), s.hint_status[d.hint]),
            )
        )
        hint_card = s.hint_card.at[d.hint].set(jnp.where(d.is_place, under, s.hint_card[d.hint]))
        correct = d.is_place & s.hint_colours[d.hint, s.card_colour[jnp.maximum(under, 0)]]
        # phase bookkeeping: observe -> next phase; move or skipped move -> hint; hint -> next turn
        turn_over = d.is_reveal | d.is_place
        phase = jnp.where(turn_over, int(Phase.OBSERVE_FIRST), jnp.minimum(s.phase + 1, int(Phase.HINT)))
        phase = jnp.where(d.is_end, s.phase, phase)  # the game stops where it was
        moved = s._replace(
            card_pos=pos,
            adjacency=adj,
            hint_status=status,
            hint_card=hint_card,
            seen=seen,
            known=known,
            turn_cards=jnp.where(turn_over, jnp.full(2, NO_CARD, jnp.int32), turn_cards),
            player=jnp.where(turn_over, (p + 1) % self.config.num_players, p).astype(jnp.int32),
            phase=phase.astype(jnp.int32),
            ended_early=d.is_end,
        )
        return moved, (fresh.astype(jnp.float32) + correct.astype(jnp.float32))

    def actor_mask(self, s: YokaiState, params: YokaiParams | None = None) -> jax.Array:
        """(N,) bool: the acting player's legal actions (only NOOP once the game is over)."""
        c, g = self.config, self.config.grid_size
        params = self.params if params is None else params
        hinted = board.hinted_cards(s.hint_card, c.num_cards)
        first, second, move_phase, hint_phase = (s.phase == ph for ph in Phase)
        may_end = first & (s.step >= TURN_STEPS * jnp.asarray(params.end_from_turn, jnp.int32))
        ids = jnp.arange(c.num_cards)
        obs = ~hinted & (first | (second & (ids != s.turn_cards[0])))
        moves = board.move_mask(s.card_pos, s.adjacency, hinted, g) & move_phase
        occ = board.occupancy(s.card_pos, g)
        receivable = (occ >= 0) & ~hinted[jnp.maximum(occ, 0)]
        reveal = hint_phase & (s.hint_status == HintStatus.FACE_DOWN)
        place = hint_phase & (s.hint_status == HintStatus.REVEALED)[:, None] & receivable[None, :]
        noop = move_phase & ~jnp.any(moves)
        live = jnp.concatenate([may_end[None], obs, moves.ravel(), reveal, place.ravel(), noop[None]]) & ~s.done
        return live.at[-1].set(live[-1] | s.done)

    def legal_mask(self, s: YokaiState) -> jax.Array:
        """(P, N) bool: the actor's mask in its row; every other seat may only NOOP."""
        others = jnp.zeros(self.layout.size, bool).at[-1].set(True)
        seats = jnp.arange(self.config.num_players)[:, None]
        return jnp.where(seats == s.player, s.legal[None, :], others[None, :])

    def observations(self, s: YokaiState, params: YokaiParams | None = None) -> YokaiObservation:
        """Every player's observation, stacked on a leading (P,) axis."""
        del params  # the memory rule acts on ``known`` when cards move; nothing more to apply here
        return jax.vmap(lambda p: observe(s, p))(jnp.arange(self.config.num_players))

    # ---- host-side views ----

    def symbolic(self, state: YokaiState) -> YokaiView:
        """The full typed view of one (unbatched) state: every colour, for judges and logs."""
        return decode(state, self.config)

    def player_view(self, state: YokaiState, player: int) -> PlayerView:
        """What one player may know: public board and hints, and only the colours it holds."""
        return decode_player(state, self.config, player)

    def events(self, before: YokaiView, actions: Sequence[int], after: YokaiView) -> list[YokaiEvent]:
        return extract_events(before, actions, after, self.config)

    def render(self, state: YokaiState, player: int | None = None) -> str:
        """ASCII board: the full view, or one player's (unknown colours as '?')."""
        view = self.symbolic(state) if player is None else self.player_view(state, player)
        return render_ascii(view, self.config)

    def render_rgb(self, state: YokaiState, player: int | None = None, cell_px: int = 16) -> np.ndarray:
        view = self.symbolic(state) if player is None else self.player_view(state, player)
        return render_rgb(view, self.config, cell_px)


def check_deal(config: YokaiConfig, card_colour: np.ndarray, hint_colours: np.ndarray) -> None:
    """A ValueError in one line unless the deal is one the rules deal: each colour on
    ``cards_per_colour`` cards, every hint naming at least one colour."""
    counts = np.bincount(card_colour, minlength=config.num_colours) if card_colour.min(initial=0) >= 0 else None
    if counts is None or len(counts) != config.num_colours or (counts != config.cards_per_colour).any():
        raise ValueError(
            f"{config.name}: a deal has {config.cards_per_colour} cards of each of {config.num_colours} colours"
        )
    if not hint_colours.any(axis=1).all():
        raise ValueError(f"{config.name}: every hint card names at least one colour")


def make(
    layout: str | YokaiConfig = "9c_2p",
    *,
    perfect_memory: bool = True,
    shaping_scale: float = 0.0,
    end_from_turn: int = 0,
) -> YokaiEnv:
    """Build an env by layout name (``9c_2p`` ... ``16c_4p``) or config; YokaiConfigError (a
    ValueError, one line) for an unknown name or an invalid config."""
    params = YokaiParams(perfect_memory=perfect_memory, shaping_scale=shaping_scale, end_from_turn=end_from_turn)
    return YokaiEnv(load_config(layout), params)
