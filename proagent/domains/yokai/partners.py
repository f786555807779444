"""Yōkai partners: ``random`` (uniform over the legal actions, seeded), ``careful`` (the default)
and ``hint_reader`` (careful, and reads its teammates' hints).

``careful`` plays from its own seat's senses (`SeatMemory`: its view and what it remembers), like
ProAgent: it looks at cards it has not seen first; moves a card it knows next to a known card of
the same colour (the legal mask keeps the board connected); places a revealed hint on a known
matching card (-1 against leaving it revealed, the cheapest hint action), else reveals one; and
ends the game once it knows every card's colour and each colour is one cluster.

``hint_reader`` plays the same convention on more evidence: a hint a teammate placed is public (its
colours and the card under it), and it takes it as a claim about that card, a one-colour hint as
the colour, a two-colour hint as one of the two. It moves known cards next to hinted cards of their
colour (half the pull for a two-colour hint) and counts a one-colour hint's card as known when it
decides to end. It trusts hints (they need not be truthful): a convention a partner may not share,
which is what cross-play measures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from envs.yokai.rules import HintStatus, Phase
from proagent.contract import Agent, ImmediateAgent, Observation, UnknownAgentError
from proagent.domains.yokai.memory import SeatBelief, SeatMemory
from proagent.domains.yokai.skills import action_of, first_legal, place_arg
from proagent.domains.yokai.table import TableEvent, WorldState, YokaiTable, YokaiWorldEnv, connected
from proagent.world.types import Skill

DEFAULT_PARTNER = "careful"
Evidence = Mapping[int, frozenset[str]]  # card -> the colours it may have (one: known); absent: no evidence


class RandomPartner(ImmediateAgent):
    """Uniform over the acting seat's legal actions (NOOP off turn), from its own seeded stream."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat, self.rng = seat, np.random.default_rng(seed)

    def policy(self, state: YokaiTable, engine: WorldState) -> int:
        if state.game.player != self.seat or state.game.done:
            return state.layout.noop
        return int(self.rng.choice(sorted(state.legal)))


class CarefulPartner(ImmediateAgent):
    """The careful convention above, from this seat's memory only."""

    name = "careful"

    def __init__(self) -> None:
        self.memory = SeatMemory(0)

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat, self.memory = seat, SeatMemory(seat)

    async def act(self, obs: Observation, events: Sequence[TableEvent]) -> int:
        """The step through this seat's senses, then the careful choice."""
        return careful_action(self.memory.observe(obs.state, events))


class HintReaderPartner(CarefulPartner):
    """``careful`` on its own colours and on the hints its teammates placed (the module's docstring).
    It keeps who placed each hint from the public ``place`` events; ``read`` is what it last took
    from their hints (card -> the hint's colours), kept for tests and inspection."""

    name = "hint_reader"

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        super().reset(seat, seed, first)
        self.placed_by: dict[int, int] = {}
        self.read: dict[int, frozenset[str]] = {}

    async def act(self, obs: Observation, events: Sequence[TableEvent]) -> int:
        b = self.memory.observe(obs.state, events)
        self.placed_by.update({e.hint: e.agent for e in events if e.kind == "place" and e.hint is not None})
        own = known_colours(b)
        self.read = hinted_colours(b, self.placed_by, set(own))
        return careful_action(b, {**self.read, **own})


def hinted_colours(b: SeatBelief, placed_by: Mapping[int, int], known: set[int]) -> dict[int, frozenset[str]]:
    """The colours that teammates' placed hints claim for cards this seat does not know: the hint's
    colours (public once face up) on the card it lies on (public)."""
    out = {}
    for h in b.view.hints:
        if h.status != HintStatus.PLACED or h.card is None or not h.colours or h.card in known:
            continue
        if placed_by.get(h.index, b.seat) != b.seat:
            out[h.card] = frozenset(h.colours)
    return out


def known_colours(b: SeatBelief) -> dict[int, frozenset[str]]:
    """The careful seat's evidence: the colours it knows or remembers, nothing else."""
    out = {}
    for card in b.view.cards:
        colour = b.colour_of(card.index)
        if colour is not None:
            out[card.index] = frozenset({colour})
    return out


def _single(colours: frozenset[str] | None) -> str | None:
    return next(iter(colours)) if colours is not None and len(colours) == 1 else None


def careful_action(b: SeatBelief, evidence: Evidence | None = None) -> int:
    """The careful choice as one legal action (NOOP off turn), on ``evidence`` (default: its own colours)."""
    if not b.my_turn:
        return b.layout.noop
    skill = careful_skill(b, known_colours(b) if evidence is None else evidence)
    action = None if skill is None else action_of(b, skill)
    return action if action is not None and action in b.legal else first_legal(b)


def careful_skill(b: SeatBelief, evidence: Evidence) -> Skill | None:
    """The careful convention's skill for the phase; None where any legal action will do. It looks
    at and hints from what it has seen itself; it moves and ends on ``evidence``."""
    if b.phase == Phase.OBSERVE_FIRST and sorted_out(b, evidence):
        return Skill("end_game")
    if b.phase in (Phase.OBSERVE_FIRST, Phase.OBSERVE_SECOND):
        free = [c.index for c in b.view.cards if c.hint is None and c.index not in b.view.turn_cards]
        unseen = [i for i in free if b.colour_of(i) is None]
        return Skill("observe", (unseen or free)[0]) if free else None
    if b.phase == Phase.MOVE:
        return best_move(b, evidence)
    return hint_skill(b)


def sorted_out(b: SeatBelief, evidence: Evidence) -> bool:
    """Every card's colour is known (one colour in ``evidence``, or the one left by the counts) and
    each colour's cards form one cluster."""
    colours = [_single(evidence.get(c.index)) for c in b.view.cards]
    if colours.count(None) == 1:  # the last card's colour follows from the counts
        per_colour = len(colours) // len(set(colours) - {None})
        short = [c for c in set(colours) - {None} if colours.count(c) < per_colour]
        colours[colours.index(None)] = short[0] if len(short) == 1 else None
    if None in colours:
        return False
    groups: dict[str, set] = {}
    for card, colour in zip(b.view.cards, colours, strict=True):
        groups.setdefault(str(colour), set()).add(card.position)
    return all(connected(cells) for cells in groups.values())


def _same_neighbours(b: SeatBelief, evidence: Evidence, card: int, cell: tuple[int, int], colour: str) -> float:
    """The pull of ``colour`` at ``cell`` (``card`` aside): each side neighbour counts 1 / the number
    of colours it may have, if ``colour`` is one of them (1 for a known card)."""
    r, c = cell
    pull = 0.0
    for other in b.view.cards:
        maybe = evidence.get(other.index, frozenset())
        if other.index != card and abs(other.position[0] - r) + abs(other.position[1] - c) == 1 and colour in maybe:
            pull += 1 / len(maybe)
    return pull


def best_move(b: SeatBelief, evidence: Evidence) -> Skill | None:
    """The legal move that most raises a known card's pull to its colour; ``pass`` when no move is
    legal; None (any legal move) when no movable card's colour is known."""
    lay = b.layout
    moves = sorted(a for a in b.legal if lay.move_start <= a < lay.reveal_start)
    if not moves:
        return Skill("pass")
    best, best_gain = None, None
    for action in moves:
        card, cell = divmod(action - lay.move_start, lay.cells)
        colour = _single(evidence.get(card))
        if colour is None:
            continue
        target = (cell // lay.grid_size, cell % lay.grid_size)
        here = b.view.cards[card].position
        gain = _same_neighbours(b, evidence, card, target, colour) - _same_neighbours(b, evidence, card, here, colour)
        if best_gain is None or gain > best_gain:
            best, best_gain = Skill("move", f"{card}_to_{target[0]}_{target[1]}"), gain
    return best


def hint_skill(b: SeatBelief) -> Skill | None:
    """Place a revealed single-colour hint on a known matching card, else reveal one, else place a
    revealed hint where it matches best (a known matching card, else any free card)."""
    free = [c.index for c in b.view.cards if c.hint is None]
    revealed = [h for h in b.view.hints if h.status == HintStatus.REVEALED]
    for single in (True, False):
        for h in revealed:
            if single and len(h.colours or ()) != 1:
                continue
            match = [c for c in free if b.colour_of(c) in (h.colours or ())]
            if match:
                return Skill("place_hint", place_arg(h.index, match[0]))
        face_down = [h.index for h in b.view.hints if h.status == HintStatus.FACE_DOWN]
        if single and face_down:
            return Skill("reveal_hint", face_down[0])
    return Skill("place_hint", place_arg(revealed[0].index, free[0])) if revealed and free else None


PARTNERS = {"careful": CarefulPartner, "hint_reader": HintReaderPartner, "random": RandomPartner}


def partner_names(env: YokaiWorldEnv | None = None) -> list[str]:
    """The scripted partners, plus the trained ones with a checkpoint for ``env``'s layout (every
    trained one the world ships when ``env`` is None: a listing of what the world ships)."""
    from proagent.training.partner import available_rl_partners, trained_names

    trained = trained_names("yokai") if env is None else available_rl_partners("yokai", env.name)
    return sorted({*PARTNERS, *trained})


def make_partner(name: str, env: YokaiWorldEnv | None = None) -> Agent:
    """A partner by name; a trained one (``partners/yokai/<layout>/<name>/``, by the one RL partner
    loader) plays ``env``'s layout, observing through the memory rule it trained under; a name with
    a ``/`` is a checkpoint folder's path (any checkpoint trained with ``proagent train --domain yokai``)."""
    if name in PARTNERS:
        return PARTNERS[name]()
    from proagent.domains.yokai.rl_spec import partner_env
    from proagent.training.partner import checkpoint_named, load_checkpoint_partner, load_rl_partner, trained_names

    directory = checkpoint_named(name)
    if directory is not None:
        if env is None:
            raise ValueError(f"partner {name!r} is a checkpoint: it plays on a given layout")
        return load_checkpoint_partner(directory, "yokai", env.name, lambda m: partner_env(env, m.dynamics))
    if name in trained_names("yokai"):
        if env is None:
            raise UnknownAgentError(f"yokai partner {name!r} needs the env: its layout picks the checkpoint")
        return load_rl_partner("yokai", env.name, name, lambda m: partner_env(env, m.dynamics))
    raise UnknownAgentError(f"unknown partner {name!r}; yokai partners: {', '.join(partner_names(env))}")
