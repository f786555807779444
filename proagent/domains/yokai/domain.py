"""Yōkai (`envs.yokai`) behind the world interface (`proagent.world`): ``--domain yokai``.

Everything the core needs to play Yōkai is reached from here: the env bounded by a runner clock
(`table.py`), each seat's senses (`memory.py`, the world's perception: a seat's prompt, checks and
controller read only what it may know), the phase skills and controller (`skills.py`), the prompt
facts (`grounding.py`), the knowledge folder (`knowledge/yokai/`), the prompt sets
(`prompts/yokai/`), the scripted partners and the paper's per-game metrics (`metrics.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from envs.yokai import YokaiConfig, YokaiConfigError, available_layouts, load_config
from envs.yokai.render import RGB
from envs.yokai.rules import COLOUR_NAMES, TURN_STEPS
from proagent.bounded import NumberError, read_int
from proagent.contract import Agent
from proagent.domains.yokai.grounding import ground_facts, memory_line, table_text
from proagent.domains.yokai.memory import SeatBelief, SeatMemory
from proagent.domains.yokai.metrics import METRIC_NAMES, game_metrics
from proagent.domains.yokai.partners import DEFAULT_PARTNER, make_partner, partner_names
from proagent.domains.yokai.probes import BELIEF_PROBES
from proagent.domains.yokai.rl_spec import YOKAI_RL
from proagent.domains.yokai.scripted import SCRIPTED
from proagent.domains.yokai.skills import YokaiController, as_belief, skill_book_for
from proagent.domains.yokai.table import EVENT_KINDS, TableEvent, YokaiTable, YokaiWorldEnv, make_world_env
from proagent.paths import KNOWLEDGE_DIR, PROMPTS_DIR
from proagent.world.capabilities import Capabilities, EnvSettings, Perception
from proagent.world.kit.base import WorldBase
from proagent.world.kit.pictures import GridCanvas, grid_rendering
from proagent.world.kit.skills import TableSkillBook
from proagent.world.types import DomainInputError, TeammateView

_CELL = 10  # pixels per cell in the GIF
MEMORY_RULES = {"perfect": True, "real": False}  # --env memory=...
SETTINGS = ("memory", "end_from_turn")  # what --env may set
HORIZON_FACTOR = 4  # runner steps per longest game (8|H|): room for the odd refused action


# The acting seat sends an eq. 9 id of its layout; the idle action is one id past every layout's
# space: the env refuses it as illegal and changes nothing, whoever sends it (action 0 is END).
IDLE = max(load_config(name).actions.size for name in available_layouts())
ACTION_NAMES: tuple[str, ...] = (*(f"a{i}" for i in range(IDLE)), "idle")


def _config(spec: str) -> YokaiConfig:
    """The layout's configuration; a bad name is a DomainInputError that lists the layouts."""
    try:
        return load_config(spec)
    except YokaiConfigError as exc:
        raise DomainInputError(f"yokai: {exc}") from exc


def page_facts(env: YokaiWorldEnv, first: YokaiTable) -> dict:
    c = env.config
    return {"grid_size": c.grid_size, "cards": c.num_cards, "colours": c.num_colours, "hints": c.num_hints}


def frame(state: YokaiTable) -> np.ndarray:
    """One picture of the full table: cards in their colours, a white corner for a hint."""
    canvas = GridCanvas(state.grid_size, state.grid_size, _CELL)
    for card in state.game.cards:
        row, col = card.position
        canvas.fill(col, row, RGB[card.colour])
    return canvas.image


def make_env_with(spec: str, horizon: int, settings: Mapping[str, str]) -> YokaiWorldEnv:
    """``--env memory=real`` plays the real game (a moved card's colour leaves every seat's
    observation); ``memory=perfect`` (the paper's experiments, the default) keeps it.
    ``--env end_from_turn=N``: nobody may end the game before N turns have been played (0, the
    paper's rule, by default): a controlled variant that keeps games going, for instance to
    follow a player's beliefs over turns when it would end at once."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise DomainInputError(f"unknown --env setting {unknown[0]!r}; yokai settings: {', '.join(SETTINGS)}")
    memory = str(settings.get("memory", "perfect")).lower()
    if memory not in MEMORY_RULES:
        raise DomainInputError(f"--env memory={memory}: one of {', '.join(MEMORY_RULES)}")
    config = _config(spec)
    last_turn = config.max_steps // TURN_STEPS
    raw = str(settings.get("end_from_turn", 0))
    try:  # ASCII digits only, never int() of thousands of digits
        end_from = read_int(raw, "--env end_from_turn", 0, last_turn)
    except NumberError:
        shown = raw if len(raw) <= 24 else f"{raw[:24]}… ({len(raw):,} characters)"
        raise DomainInputError(
            f"--env end_from_turn={shown}: a whole number of turns from 0 to {last_turn} for {config.name}"
        ) from None
    return make_world_env(config, horizon, perfect_memory=MEMORY_RULES[memory], end_from_turn=end_from)


def describe(env: YokaiWorldEnv) -> dict:
    """What a run's config records of the env's rules (the ending rule only where it is not the paper's)."""
    rules: dict = {"memory": "perfect" if env.perfect_memory else "real"}
    return rules | ({"end_from_turn": env.end_from_turn} if env.end_from_turn else {})


def _perceiver(env: YokaiWorldEnv, seat: int) -> SeatMemory:
    """A seat's senses: its own colours and memory, never the full table."""
    return SeatMemory(seat)


RENDERING = grid_rendering("yokai", table_text, YokaiTable.to_record, page_facts, frame, 300)


class YokaiDomain(WorldBase):
    """The Yōkai world. Stateless: one instance serves every run."""

    name = "yokai"
    prompts_root = PROMPTS_DIR / "yokai"
    knowledge_root = KNOWLEDGE_DIR / "yokai"
    idle_action = IDLE
    turn_based = True  # a card game: players move in turn, so no --clock but turns
    event_kinds = EVENT_KINDS
    useful_events = ("move", "reveal", "place")
    metric_names = METRIC_NAMES
    layouts = MappingProxyType({name: name for name in available_layouts()})
    capabilities = Capabilities(
        rendering=RENDERING,
        perception=Perception(_perceiver),
        settings=EnvSettings(make_env_with, describe),
        belief_probes=BELIEF_PROBES,
        rl=YOKAI_RL,
        scripted=SCRIPTED,
    )

    def layout_names(self) -> list[str]:
        """Smallest game first (9C before 16C, then by players): the first is the paper's main
        setting, 9c_2p, the world's default layout (`default_layout`)."""
        return sorted(self.layouts, key=lambda name: tuple(int(part[:-1]) for part in name.split("_")))

    @property
    def action_names(self) -> tuple[str, ...]:
        """Primitive actions are eq. 9 ids (``a<id>``) of the largest layout, then ``idle``."""
        return ACTION_NAMES

    def make_env(self, spec: str, horizon: int) -> YokaiWorldEnv:
        return make_world_env(_config(spec), horizon)

    def default_horizon(self, spec: str) -> int:
        """Four times the longest game: room for refused actions, never reached by a finished game."""
        return HORIZON_FACTOR * _config(spec).max_steps

    def skill_book(self, first: YokaiTable) -> TableSkillBook:
        return skill_book_for(first)

    def controller(self, book: TableSkillBook, seat: int, seed: int) -> YokaiController:
        return YokaiController(book, seat, seed)

    def ground(
        self,
        state: SeatBelief | YokaiTable,
        seat: int,
        book: TableSkillBook,
        teammates: Sequence[TeammateView],
        score: float,
    ) -> dict:
        """The seat's belief (the perceiver's view); a full table, as the prompt check passes, is
        first cut down to the seat's own view."""
        return ground_facts(as_belief(state, seat), teammates, score)

    def knowledge_facts(self, env: YokaiWorldEnv) -> dict:
        c = env.config
        return {
            "num_cards": c.num_cards,
            "num_colours": c.num_colours,
            "colours": list(COLOUR_NAMES[: c.num_colours]),
            "cards_per_colour": c.cards_per_colour,
            "num_hints": c.num_hints,
            "hint_counts": list(c.hint_counts),
            "grid_size": c.grid_size,
            "num_agents": env.num_agents,
            "max_steps": c.max_steps,
            "max_score": c.max_score,
            "perfect_memory": env.perfect_memory,
            "end_from_turn": env.end_from_turn,
        }

    def memory_summary(self, facts: dict) -> str:
        return memory_line(facts)

    def episode_metrics(self, events: Sequence[TableEvent]) -> dict[str, float]:
        """The paper's per-game metrics (`metrics.py`); ``win_if_early`` only for a game ended early."""
        return game_metrics(events).as_metrics()

    def partner_names(self, env: YokaiWorldEnv | None = None) -> list[str]:
        return partner_names(env)  # the scripted ones, plus the trained ones that ship for the layout

    def make_partner(self, name: str, env: YokaiWorldEnv | None = None) -> Agent:
        return make_partner(name, env)

    def default_partner(self, env: YokaiWorldEnv) -> str:
        return DEFAULT_PARTNER


__all__ = ["YokaiDomain"]
