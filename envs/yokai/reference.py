"""Yōkai's rules in plain NumPy and Python: one env, one step at a time, no JAX.

Written from the rules (``env.py``'s docstring), not from the JAX code: connectivity is a
breadth-first search over occupied cells, legal moves try every empty cell next to the other
cards, and the adjacency matrix is rebuilt from positions. A test plays random legal games in both
and holds states (masks included), rewards and shaped rewards equal; the speed benchmark times
this against the vmapped JAX env.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import NamedTuple

import numpy as np

from envs.yokai.rules import NO_CARD, TURN_STEPS, ActionKind, HintStatus, Phase
from envs.yokai.scenario import YokaiConfig
from envs.yokai.state import YokaiParams, YokaiState

Cell = tuple[int, int]


class ReferenceStep(NamedTuple):
    state: YokaiState
    reward: np.float32
    shaped_reward: np.ndarray  # (P,) float32
    done: bool


def connected(cells: Iterable[Cell]) -> bool:
    """All cells form one side-connected group (breadth-first search)."""
    todo = set(cells)
    if not todo:
        return True
    start = todo.pop()
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt in todo:
                todo.remove(nxt)
                queue.append(nxt)
    return not todo


def adjacency(pos: np.ndarray) -> np.ndarray:
    n = len(pos)
    out = np.zeros((n, n), bool)
    for i, j in combinations(range(n), 2):
        if abs(int(pos[i, 0]) - int(pos[j, 0])) + abs(int(pos[i, 1]) - int(pos[j, 1])) == 1:
            out[i, j] = out[j, i] = True
    return out


def legal_moves(pos: np.ndarray, hinted: np.ndarray, grid_size: int) -> np.ndarray:
    """(Y, g*g) bool: unhinted card to an empty cell, all cards connected afterwards."""
    cells = [(int(r), int(c)) for r, c in pos]
    out = np.zeros((len(cells), grid_size * grid_size), bool)
    occupied = set(cells)
    for card, own in enumerate(cells):
        if hinted[card]:
            continue
        others = occupied - {own}
        for r, c in others:
            for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                inside = 0 <= q[0] < grid_size and 0 <= q[1] < grid_size
                if inside and q not in occupied and connected(others | {q}):
                    out[card, q[0] * grid_size + q[1]] = True
    return out


def outcome(state: YokaiState, num_colours: int) -> tuple[int, bool, float]:
    """(score eq. 1, won, reward eq. 4) of a finished board."""
    cells = [(int(r), int(c)) for r, c in state.card_pos]
    clusters = sum(
        connected(x for x, col in zip(cells, state.card_colour, strict=True) if col == k) for k in range(num_colours)
    )
    correct = wrong = 0
    for h, card in enumerate(state.hint_card):
        if card != NO_CARD:
            ok = bool(state.hint_colours[h, state.card_colour[card]])
            correct, wrong = correct + ok, wrong + (not ok)
    status = list(state.hint_status)
    score = 5 * status.count(HintStatus.FACE_DOWN) + 2 * status.count(HintStatus.REVEALED) + correct - wrong
    won = clusters == num_colours
    reward = score if won else -int(state.ended_early) - (num_colours - clusters) - wrong
    return score, won, float(reward)


class ReferenceYokai:
    """The reference env for one configuration: ``start``/``deal`` and ``step(state, actions)``."""

    def __init__(self, config: YokaiConfig, params: YokaiParams | None = None) -> None:
        self.config = config
        self.params = YokaiParams() if params is None else params
        self.layout = config.actions

    def deal(self, rng: np.random.Generator) -> YokaiState:
        """A fresh game from NumPy's generator (the JAX env deals from its key instead)."""
        c = self.config
        colours = rng.permutation(np.repeat(np.arange(c.num_colours), c.cards_per_colour))
        drawn = [
            t[rng.choice(len(t), n, replace=False)] for t, n in zip(c.hint_candidates(), c.hint_counts, strict=True)
        ]
        hints = np.concatenate(drawn)[rng.permutation(c.num_hints)]
        return self.start(colours, hints)

    def start(self, card_colour: np.ndarray, hint_colours: np.ndarray) -> YokaiState:
        """The opening state for a given deal: cards in the centre square, player 0 to observe."""
        c = self.config
        pos = c.start_cells()
        state = YokaiState(
            card_pos=pos,
            card_colour=np.asarray(card_colour, np.int32),
            adjacency=adjacency(pos),
            hint_colours=np.asarray(hint_colours, bool),
            hint_status=np.zeros(c.num_hints, np.int32),
            hint_card=np.full(c.num_hints, NO_CARD, np.int32),
            seen=np.zeros((c.num_players, c.num_cards), bool),
            known=np.zeros((c.num_players, c.num_cards), bool),
            turn_cards=np.full(2, NO_CARD, np.int32),
            player=np.int32(0),
            phase=np.int32(Phase.OBSERVE_FIRST),
            step=np.int32(0),
            done=np.bool_(False),
            ended_early=np.bool_(False),
            score=np.int32(0),
            won=np.bool_(False),
            last_action=np.int32(self.layout.noop),
            last_player=np.int32(NO_CARD),
            legal=np.zeros(self.layout.size, bool),
        )
        return state._replace(legal=self.legal_actions(state))

    def legal_actions(self, state: YokaiState) -> np.ndarray:
        """(N,) bool: the acting player's legal actions (only NOOP once the game is over)."""
        c, lay = self.config, self.layout
        mask = np.zeros(lay.size, bool)
        if state.done:
            mask[lay.noop] = True
            return mask
        hinted = np.zeros(c.num_cards, bool)
        hinted[[int(x) for x in state.hint_card if x != NO_CARD]] = True
        phase = Phase(int(state.phase))
        if phase in (Phase.OBSERVE_FIRST, Phase.OBSERVE_SECOND):
            mask[0] = phase == Phase.OBSERVE_FIRST and int(state.step) >= TURN_STEPS * int(self.params.end_from_turn)
            for card in range(c.num_cards):
                mask[lay.observe(card)] = not hinted[card] and card != int(state.turn_cards[0])
        elif phase == Phase.MOVE:
            moves = legal_moves(state.card_pos, hinted, c.grid_size)
            mask[lay.move_start : lay.reveal_start] = moves.ravel()
            mask[lay.noop] = not moves.any()
        else:
            for h in range(c.num_hints):
                mask[lay.reveal(h)] = state.hint_status[h] == HintStatus.FACE_DOWN
                if state.hint_status[h] == HintStatus.REVEALED:
                    for card, (r, col) in enumerate(state.card_pos):
                        mask[lay.place(h, int(r) * c.grid_size + int(col))] = not hinted[card]
        return mask

    def step(self, state: YokaiState, actions: Sequence[int]) -> ReferenceStep:
        n_players = self.config.num_players
        player, action = int(state.player), int(actions[int(state.player)])
        if state.done or not 0 <= action < self.layout.size or not state.legal[action]:
            return ReferenceStep(state, np.float32(0), np.zeros(n_players, np.float32), bool(state.done))
        out = {f: np.array(getattr(state, f)) for f in YokaiState._fields}
        bonus = self._apply(out, player, action)
        out["step"] = np.int32(state.step + 1)
        out["last_action"], out["last_player"] = np.int32(action), np.int32(player)
        reward = 0.0
        if out["done"]:
            score, won, reward = outcome(YokaiState(**out), self.config.num_colours)
            out["score"], out["won"] = np.int32(score), np.bool_(won)
        new = YokaiState(**out)
        new = new._replace(legal=self.legal_actions(new))
        shaped = np.full(n_players, bonus * float(self.params.shaping_scale), np.float32)
        return ReferenceStep(new, np.float32(reward), shaped, bool(new.done))

    def _apply(self, out: dict, player: int, action: int) -> float:
        """Apply one legal action to the field dict in place; return its shaping bonus."""
        c, d = self.config, self.layout.decode(action)
        g, bonus = c.grid_size, 0.0
        if d.kind == ActionKind.END:
            out["done"], out["ended_early"] = np.bool_(True), np.bool_(True)
        elif d.kind == ActionKind.OBSERVE:
            bonus += not out["seen"][player, d.card]
            out["seen"][player, d.card] = out["known"][player, d.card] = True
            out["turn_cards"][int(out["phase"])] = d.card
            out["phase"] = np.int32(out["phase"] + 1)
        elif d.kind in (ActionKind.MOVE, ActionKind.NOOP):  # NOOP is legal here only as a skipped move
            if d.kind == ActionKind.MOVE:
                out["card_pos"][d.card] = (d.cell // g, d.cell % g)
                out["adjacency"] = adjacency(out["card_pos"])
                if not bool(self.params.perfect_memory):
                    out["known"][:, d.card] = False
            out["phase"] = np.int32(Phase.HINT)
        else:
            if d.kind == ActionKind.REVEAL:
                out["hint_status"][d.hint] = HintStatus.REVEALED
            else:
                cells = [(int(r), int(col)) for r, col in out["card_pos"]]
                card = cells.index((d.cell // g, d.cell % g))
                out["hint_status"][d.hint], out["hint_card"][d.hint] = HintStatus.PLACED, card
                bonus += bool(out["hint_colours"][d.hint, out["card_colour"][card]])
                out["done"] = np.bool_(all(s == HintStatus.PLACED for s in out["hint_status"]))
            out["phase"], out["player"] = np.int32(Phase.OBSERVE_FIRST), np.int32((player + 1) % c.num_players)
            out["turn_cards"][:] = NO_CARD
        return bonus
