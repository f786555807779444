"""CUBE partners: scripted ``pusher`` (greedy, heaviest block first) and ``lazy`` (joins others),
and the trained teammates (``ippo_shared``, ``ippo_independent``, or any other algorithm trained
with ``proagent train --domain cube``), wherever a checkpoint ships for the env's scenario
(``partners/cube/<scenario>/<algo>/``, loaded by the one RL partner loader,
``proagent.training.partner``).

Both ground their choice with the same controller as ProAgent, so they differ from it only in
which skill they pick. Heaviest-first is a convention every pusher shares without talking: heavy
blocks need the whole team on one face, so everyone converging on the same block is what works.
"""

from __future__ import annotations

from envs.cube import CubeBlock, CubeEnv, CubeEnvState, CubeView
from proagent.contract import Agent, ImmediateAgent, Observation, UnknownAgentError
from proagent.domains.cube.skills import (
    CubeController,
    block_ahead,
    face_distance,
    left_face,
    on_face,
    skill_book_for,
)
from proagent.world.types import Skill


def push_order(state: CubeView) -> list[CubeBlock]:
    """Undelivered blocks in the order the convention pushes them: clear lanes first, then heaviest."""
    return sorted(state.remaining, key=lambda b: (block_ahead(state, b) is not None, -b.weight, b.index))


def greedy_target(state: CubeView, seat: int) -> int | None:
    """The first block in `push_order` whose left face this agent stands on or can still reach;
    None when no block is left or none is reachable."""
    for block in push_order(state):
        if state.agents[seat] in left_face(block) or face_distance(state, seat, block) >= 0:
            return block.index
    return None


class _SkillPartner(ImmediateAgent):
    """A scripted agent that picks a skill every step and lets the controller ground it."""

    name = "scripted"

    def __init__(self) -> None:
        self.seat = 0
        self.controller: CubeController | None = None

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self.controller = None

    def policy(self, state: CubeView, engine: CubeEnvState) -> int:
        if self.controller is None:
            self.controller = CubeController(skill_book_for(state), self.seat)
        return self.controller.act(state, self.choose(state))

    def choose(self, state: CubeView) -> Skill:
        raise NotImplementedError


class PusherPartner(_SkillPartner):
    """Goes to the heaviest reachable undelivered block's left face and pushes it right."""

    name = "pusher"

    def choose(self, state: CubeView) -> Skill:
        target = greedy_target(state, self.seat)
        return Skill("wait", 1) if target is None else Skill("push", target)


class LazyPartner(_SkillPartner):
    """Waits until another agent stands on a block's left face, then joins that block."""

    name = "lazy"

    def choose(self, state: CubeView) -> Skill:
        others = [p for i, p in enumerate(state.agents) if i != self.seat]
        for block in push_order(state):
            face = set(left_face(block))
            if any(p in face for p in others) and (
                on_face(state, block) < block.weight or state.agents[self.seat] in face
            ):
                return Skill("push", block.index)
        return Skill("wait", 1)


PARTNERS = {"lazy": LazyPartner, "pusher": PusherPartner}
DEFAULT_PARTNER = "pusher"  # `play`'s teammate when none is named


def partner_names(env: CubeEnv | None = None) -> list[str]:
    """The scripted partners, plus the trained ones that have a checkpoint for ``env``'s scenario
    (every trained one the world ships when ``env`` is None: a listing of what the world ships)."""
    from proagent.training.partner import available_rl_partners, trained_names

    trained = trained_names("cube") if env is None else available_rl_partners("cube", env.name)
    return sorted({*PARTNERS, *trained})


def make_partner(name: str, env: CubeEnv | None = None) -> Agent:
    """A partner by name; a trained one loads the checkpoint of ``env``'s scenario (UnknownAgentError,
    naming the scenarios that have one, when there is none); a name with a ``/`` is a checkpoint
    folder's path (any checkpoint trained with ``proagent train --domain cube``)."""
    if name in PARTNERS:
        return PARTNERS[name]()
    from proagent.domains.cube.rl_spec import partner_env
    from proagent.training.partner import checkpoint_named, load_checkpoint_partner, load_rl_partner, trained_names

    directory = checkpoint_named(name)  # any checkpoint folder, by its path
    if directory is not None:
        if env is None:
            raise ValueError(f"partner {name!r} is a checkpoint: it plays on a given scenario")
        return load_checkpoint_partner(directory, "cube", env.name, lambda manifest: partner_env(env))

    if name in trained_names("cube"):
        if env is None:
            raise UnknownAgentError(f"cube partner {name!r} needs the env: its scenario picks the checkpoint")
        return load_rl_partner("cube", env.name, name, lambda manifest: partner_env(env))
    raise UnknownAgentError(f"unknown partner {name!r}; cube partners: {', '.join(partner_names(env))}")
