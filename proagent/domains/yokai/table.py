"""The Yōkai game as the core plays it: a runner clock around `envs.yokai`, the decoded table, events.

The core reads an env through ``reset``/``step``/``symbolic``/``events``; this wrapper adds the one
thing the game lacks for that: a horizon. An illegal action changes nothing in the game (not even
its step), so a clock counted in runner steps bounds every episode whatever the agents send; the
game's own end (END, or the last hint placed) normally comes long before it. The decoded
`YokaiTable` holds the full view (judges, logs, pictures) and each seat's own view (what that seat
may know), with the acting player's legal actions, which are public.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.jitted import JittedEntryPoints, RunParams, Transition, hold_when_done, value_key
from envs.yokai import YokaiConfig, YokaiEnv, YokaiState, YokaiView, extract_events, final_outcome, make
from envs.yokai.rules import ActionLayout, HintStatus
from envs.yokai.symbolic import Cell, decode, decode_player

EVENT_KINDS = ("observe", "move", "skip_move", "reveal", "place", "end", "game_over")


class WorldState(NamedTuple):
    """The game's state and the runner steps taken (the clock that bounds an episode)."""

    game: YokaiState
    clock: jax.Array  # () int32


@dataclass(frozen=True, slots=True)
class YokaiTable:
    """One decoded state: ``game`` every colour, ``seats[s]`` what seat s may know, ``legal`` the
    acting player's legal action ids. ``step`` is the runner clock the core reads."""

    step: int
    horizon: int
    game: YokaiView
    seats: tuple[YokaiView, ...]
    legal: frozenset[int]
    layout: ActionLayout
    perfect_memory: bool

    @property
    def grid_size(self) -> int:
        return self.layout.grid_size

    def to_record(self) -> dict:
        return {"step": self.step, "horizon": self.horizon, **self.game.to_record()}


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished board: eq. 1's score, whether each colour is one cluster, the placed hints, and
    how many colours are one cluster of how many (eq. 4's c_a and |C|, the lost game's penalty)."""

    score: int
    won: bool
    correct: int
    wrong: int
    revealed: int
    face_down: int
    clusters: int
    colours: int


@dataclass(frozen=True, slots=True)
class TableEvent:
    """A `envs.yokai.YokaiEvent` under the core's field names (``agent``, ``kind`` as text), and
    ``game_over`` (the outcome, once the game is over: then every card is turned face up)."""

    step: int
    agent: int
    kind: str
    card: int | None = None
    origin: Cell | None = None
    target: Cell | None = None
    hint: int | None = None
    hint_colours: tuple[str, ...] | None = None
    outcome: Outcome | None = None

    def to_record(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def describe(self) -> str:
        who = f"player {self.agent}"
        colours = "/".join(self.hint_colours or ())
        texts = {
            "observe": f"{who} looked at card {self.card} at {self.origin}",
            "move": f"{who} moved card {self.card} from {self.origin} to {self.target}",
            "skip_move": f"{who} could move no card",
            "reveal": f"{who} revealed hint {self.hint} ({colours})",
            "place": f"{who} placed hint {self.hint} ({colours}) on card {self.card}",
            "end": f"{who} ended the game",
        }
        return texts.get(self.kind, "the game is over")


def clusters(view: YokaiView) -> dict[str, bool]:
    """Per colour whose cards the view holds: whether they form one side-connected group."""
    by_colour: dict[str, set[Cell]] = {}
    for card in view.cards:
        if card.colour is not None:
            by_colour.setdefault(card.colour, set()).add(card.position)
    return {colour: connected(cells) for colour, cells in by_colour.items()}


def connected(cells: set[Cell]) -> bool:
    """Whether ``cells`` form one side-connected group (flood fill)."""
    if not cells:
        return True
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen) == len(cells)


def outcome_of(view: YokaiView) -> Outcome:
    """Eq. 1 and the win of a full view (every colour known), as the game scores it at its end."""
    colour_of = {c.index: c.colour for c in view.cards}
    placed = [h for h in view.hints if h.status == HintStatus.PLACED]
    correct = sum(1 for h in placed if colour_of[h.card] in (h.colours or ()))
    face_down = sum(1 for h in view.hints if h.status == HintStatus.FACE_DOWN)
    revealed = sum(1 for h in view.hints if h.status == HintStatus.REVEALED)
    wrong = len(placed) - correct
    score = 5 * face_down + 2 * revealed + correct - wrong
    joined = clusters(view)
    return Outcome(score, all(joined.values()), correct, wrong, revealed, face_down, sum(joined.values()), len(joined))


class YokaiWorldEnv(JittedEntryPoints):
    """One layout of the game bounded by ``horizon`` runner steps (pure and jit/vmap-able)."""

    def __init__(self, game: YokaiEnv, horizon: int) -> None:
        self.game, self.horizon = game, horizon
        self.name, self.num_agents, self.config = game.name, game.num_agents, game.config

    def program_key(self) -> str:
        return value_key(self.game.program_key(), self.horizon)

    @property
    def perfect_memory(self) -> bool:
        return bool(self.game.params.perfect_memory)

    @property
    def end_from_turn(self) -> int:
        return int(self.game.params.end_from_turn)

    def reset(self, key: jax.Array) -> WorldState:
        return WorldState(self.game.reset(key), jnp.int32(0))

    @property
    def run_params(self) -> RunParams:
        return RunParams.of(self.horizon)

    def step(self, key: jax.Array, state: WorldState, actions: jax.Array) -> Transition:
        """The game's step; at the horizon an unfinished game ends scored as it stands (eq. 4)."""
        return self.step_with(self.run_params, key, state, actions)

    def step_with(self, params: RunParams, key: jax.Array, state: WorldState, actions: jax.Array) -> Transition:
        """`step` under ``params`` (the horizon: the jitted steps take it as an input)."""
        over = state.game.done | (state.clock >= params.horizon)
        tr = self.game.step(key, state.game, actions)
        clock = state.clock + 1
        timeout = ~tr.done & (clock >= params.horizon)
        _, _, final = final_outcome(tr.state, self.config.num_colours)
        reward = jnp.where(timeout, final, tr.reward)
        after = WorldState(tr.state, clock.astype(jnp.int32))
        next_state = hold_when_done(over, state, after)
        zero = jnp.float32(0)
        return Transition(
            next_state,
            jnp.where(over, zero, reward).astype(jnp.float32),
            jnp.where(over, zero, tr.shaped_reward).astype(jnp.float32),
            over | tr.done | timeout,
        )

    def symbolic(self, state: WorldState) -> YokaiTable:
        """The full view, each seat's own view and the actor's legal actions, decoded once per step."""
        host = jax.device_get(state)
        seats = tuple(decode_player(host.game, self.config, s) for s in range(self.num_agents))
        legal = frozenset(int(a) for a in np.flatnonzero(np.asarray(host.game.legal)))
        return YokaiTable(int(host.clock), self.horizon, decode(host.game, self.config), seats, legal,
                          self.config.actions, self.perfect_memory)

    def events(self, before: YokaiTable, actions: Sequence[int], after: YokaiTable) -> list[TableEvent]:
        """The acting player's event, and ``game_over`` with the outcome on the step that ends it."""
        played = extract_events(before.game, actions, after.game, self.config)
        events = [
            TableEvent(e.step, e.player, str(e.kind), e.card, e.origin, e.target, e.hint, e.hint_colours)
            for e in played
        ]
        was_over = before.game.done or before.step >= before.horizon
        now_over = after.game.done or after.step >= after.horizon
        if now_over and not was_over:
            events.append(TableEvent(before.game.step, before.game.player, "game_over", outcome=outcome_of(after.game)))
        return events


def make_world_env(
    config: YokaiConfig, horizon: int, perfect_memory: bool = True, end_from_turn: int = 0
) -> YokaiWorldEnv:
    """``config``'s game bounded by ``horizon`` runner steps, with the paper's rules by default."""
    return YokaiWorldEnv(make(config, perfect_memory=perfect_memory, end_from_turn=end_from_turn), horizon)
