"""The ``hint_reader`` partner: it reads the hints its teammate placed (the claim it takes is the
hint's colours on the card under it), the hints change what it does, it plays only legal actions,
and it decides from what its seat may know (hidden colours scrambled, the same actions)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from envs.yokai import YokaiView
from envs.yokai.rules import HintStatus
from proagent.contract import Observation
from proagent.domains import get_domain
from proagent.domains.yokai.partners import HintReaderPartner, careful_action
from proagent.domains.yokai.table import TableEvent, YokaiTable
from proagent.runner.episode import run_episode

DOMAIN = get_domain("yokai")
SEEDS = range(6)


class Watched(HintReaderPartner):
    """A hint reader that notes, at each of its turns, what it read, what it did, what ``careful``
    would have done on the same belief, and whether the action was legal."""

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self.turns: list[dict] = []

    async def act(self, obs: Observation, events: Sequence[TableEvent]) -> int:
        action = await super().act(obs, events)
        b = self.memory.believed_state()
        if b.my_turn:
            self.turns.append(
                {"read": dict(self.read), "action": action, "careful": careful_action(b), "legal": action in obs.state.legal,
                 "table": obs.state}
            )  # fmt: skip
        return action


def _games() -> list[Watched]:
    env = DOMAIN.make_env("9c_2p", DOMAIN.default_horizon("9c_2p"))
    readers = []
    for seed in SEEDS:
        reader = Watched()
        asyncio.run(run_episode(env, DOMAIN, [DOMAIN.make_partner("careful", env), reader], 1, seed, 0))
        readers.append(reader)
    return readers


def test_it_reads_its_teammates_hints_and_they_change_its_moves() -> None:
    turns = [t for reader in _games() for t in reader.turns]
    assert turns and all(t["legal"] for t in turns)
    read = [t for t in turns if t["read"]]
    assert len(read) > 5
    for t in read:
        table: YokaiTable = t["table"]
        for card, colours in t["read"].items():
            (hint,) = [h for h in table.game.hints if h.status == HintStatus.PLACED and h.card == card]
            assert colours == frozenset(hint.colours) and table.seats[1].cards[card].colour is None
    changed = [t for t in turns if t["action"] != t["careful"]]
    assert changed and all(t["read"] for t in changed)  # only a hint makes it differ from careful


def _scrambled(table: YokaiTable, seat: int) -> YokaiTable:
    """``table`` with every colour ``seat`` may not know changed (the full view, the other seats)."""
    names = sorted({str(c.colour) for c in table.game.cards})

    def shift(view: YokaiView) -> YokaiView:
        cards = tuple(
            dataclasses.replace(c, colour=None if c.colour is None else names[(names.index(c.colour) + 1) % len(names)])
            for c in view.cards
        )
        return dataclasses.replace(view, cards=cards)

    seats = tuple(view if i == seat else shift(view) for i, view in enumerate(table.seats))
    return dataclasses.replace(table, game=shift(table.game), seats=seats)


class Twins(HintReaderPartner):
    """A hint reader and a twin fed the same events but a table whose hidden colours are scrambled."""

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self.twin = HintReaderPartner()
        self.twin.reset(seat, seed, first)
        self.differ: list[int] = []
        self.reads = 0

    async def act(self, obs: Observation, events: Sequence[TableEvent]) -> int:
        action = await super().act(obs, events)
        blind = await self.twin.act(dataclasses.replace(obs, state=_scrambled(obs.state, self.seat)), events)
        self.reads += bool(self.read)
        if blind != action or self.read != self.twin.read:
            self.differ.append(obs.step)
        return action


def test_it_decides_only_from_what_its_seat_may_know() -> None:
    env = DOMAIN.make_env("9c_2p", DOMAIN.default_horizon("9c_2p"))
    reads = 0
    for seed in SEEDS:
        twins = Twins()
        asyncio.run(run_episode(env, DOMAIN, [DOMAIN.make_partner("careful", env), twins], 1, seed, 0))
        assert twins.differ == [], f"seed {seed}"
        reads += twins.reads
    assert reads > 5  # the games did hold hints to read
