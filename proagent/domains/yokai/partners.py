"""Yōkai partners: ``random`` (uniform over the legal actions, seeded) and ``careful`` (the default).

``careful`` plays from its own seat's senses (`SeatMemory`: its view and what it remembers), like
ProAgent: it looks at cards it has not seen first; moves a card it knows next to a known card of
the same colour (the legal mask keeps the board connected); places a revealed hint on a known
matching card (-1 against leaving it revealed, the cheapest hint action), else reveals one; and
ends the game once it knows every card's colour and each colour is one cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.yokai.rules import HintStatus, Phase
from proagent.contract import Agent, ImmediateAgent, Observation, UnknownAgentError
from proagent.domains.yokai.memory import SeatBelief, SeatMemory
from proagent.domains.yokai.skills import action_of, first_legal, place_arg
from proagent.domains.yokai.table import TableEvent, WorldState, YokaiTable, YokaiWorldEnv, connected
from proagent.world.types import Skill

DEFAULT_PARTNER = "careful"


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


def careful_action(b: SeatBelief) -> int:
    """The careful choice as one legal action (NOOP off turn)."""
    if not b.my_turn:
        return b.layout.noop
    skill = careful_skill(b)
    action = None if skill is None else action_of(b, skill)
    return action if action is not None and action in b.legal else first_legal(b)


def careful_skill(b: SeatBelief) -> Skill | None:
    """The careful convention's skill for the phase; None where any legal action will do."""
    if b.phase == Phase.OBSERVE_FIRST and sorted_out(b):
        return Skill("end_game")
    if b.phase in (Phase.OBSERVE_FIRST, Phase.OBSERVE_SECOND):
        free = [c.index for c in b.view.cards if c.hint is None and c.index not in b.view.turn_cards]
        unseen = [i for i in free if b.colour_of(i) is None]
        return Skill("observe", (unseen or free)[0]) if free else None
    if b.phase == Phase.MOVE:
        return best_move(b)
    return hint_skill(b)


def sorted_out(b: SeatBelief) -> bool:
    """Every card's colour is known (or remembered, or the one left by the counts) and each colour's
    cards form one cluster."""
    colours = [b.colour_of(c.index) for c in b.view.cards]
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


def _same_neighbours(b: SeatBelief, card: int, cell: tuple[int, int], colour: str) -> int:
    """How many side neighbours of ``cell`` (``card`` aside) this seat believes are ``colour``."""
    r, c = cell
    count = 0
    for other in b.view.cards:
        if other.index != card and abs(other.position[0] - r) + abs(other.position[1] - c) == 1:
            count += int(b.colour_of(other.index) == colour)
    return count


def best_move(b: SeatBelief) -> Skill | None:
    """The legal move that most raises a known card's same-colour neighbours; ``pass`` when no move
    is legal; None (any legal move) when no card's colour is known."""
    lay = b.layout
    moves = sorted(a for a in b.legal if lay.move_start <= a < lay.reveal_start)
    if not moves:
        return Skill("pass")
    best, best_gain = None, None
    for action in moves:
        card, cell = divmod(action - lay.move_start, lay.cells)
        colour = b.colour_of(card)
        if colour is None:
            continue
        target = (cell // lay.grid_size, cell % lay.grid_size)
        gain = _same_neighbours(b, card, target, colour) - _same_neighbours(b, card, b.view.cards[card].position, colour)
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


PARTNERS = {"careful": CarefulPartner, "random": RandomPartner}


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
