"""Overcooked as a domain: the classic kitchens (and the V2 engine's layouts) behind `Domain`.

Everything the core needs to play Overcooked is reached from here: the JAX env (`envs.overcooked`),
the skill book (`skills.py`, defined by `knowledge/overcooked/skills.toml`), the BFS controller,
the prompt facts (`grounding.py`), the partners (scripted and the trained zoo), the per-episode
metrics (soups) and the renderers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envs import (
    Action,
    Dynamics,
    Event,
    EventKind,
    KitchenState,
    LayoutError,
    OvercookedEnv,
    available_layouts,
    make,
    render_ascii,
    render_rgb_batch,
    stack_states,
    terrain_rows,
)
from envs.overcooked.engine import INDICATOR_ACTIVATION_COST
from envs.overcooked.layouts import get_layout, ingredient_name
from envs.overcooked.presets import layout_dynamics
from proagent.contract import Agent
from proagent.domains.overcooked.controller import Controller
from proagent.domains.overcooked.grounding import ground
from proagent.domains.overcooked.interdependence import (
    interdependence_collector,
    interdependence_model,
)
from proagent.domains.overcooked.partners.registry import (
    CLASSIC_ROLES,
    PartnerRegistry,
    cooks_classic_soup_only,
    default_registry,
)
from proagent.domains.overcooked.perception import Perceiver
from proagent.domains.overcooked.rl_spec import OVERCOOKED_RL
from proagent.domains.overcooked.scripted import SCRIPTED
from proagent.domains.overcooked.skills import SkillBook
from proagent.paths import KNOWLEDGE_DIR, PROMPTS_DIR
from proagent.text_values import typed_values
from proagent.world.capabilities import Capabilities, EnvSettings, Interdependence, Perception, Rendering
from proagent.world.kit.base import WorldBase
from proagent.world.types import DomainInputError, EngineState, TeammateView

TRAINED_DEFAULT = "sp"  # the default teammate (its best seed) on a kitchen the heuristic chefs cannot cook in
PROGRESS_EVENTS = ("put_in_pot", "fill_dish", "deliver")  # an agent's own contribution to soups


def _number(value: float) -> str:
    """20.0 -> "20": knowledge texts read like the hand-written originals."""
    return f"{value:g}"


def env_settings(env: OvercookedEnv) -> dict:
    """What config.json records of the env's rules: every `Dynamics` field."""
    return env.dynamics.model_dump()


def page_facts(env: OvercookedEnv, first: KitchenState) -> dict:
    help_text = (
        "Interact picks up, puts down, fills the pot, takes the soup and serves. Serve soups: "
        f"3 ingredients in a pot, wait {env.dynamics.cook_time} steps for it to cook, take it with a dish, bring it to "
        "SERVE."
    )
    return {"terrain": terrain_rows(env.layout.tiles), "cook_time": env.dynamics.cook_time, "help": help_text}


def frame_extras(env: OvercookedEnv, state: KitchenState, after: KitchenState, done: bool) -> dict:
    """The structured kitchen (the ASCII drops pot timers and soup contents), the terrain once
    per episode, and after the last step the final kitchen."""
    extras: dict = {"kitchen": state.to_record()}
    if state.step == 0:
        extras["terrain"] = terrain_rows(env.layout.tiles)
        if env.dynamics.agent_view_size is not None:  # V2's partial view: the replay draws each player's window
            extras["view_radius"] = env.dynamics.agent_view_size
    if done:
        extras["final"] = {"state": render_ascii(after), "kitchen": after.to_record()}
    return extras


def episode_frames(env: OvercookedEnv, states: Sequence[EngineState]) -> Any:
    """RGB pictures of a run of states (rendered in jitted chunks: envs/overcooked/render.py)."""
    return render_rgb_batch(stack_states(list(states)), env.dynamics.agent_view_size)


def _checkpoint_partner(directory: Path, env: OvercookedEnv | None) -> Agent:
    """A checkpoint folder's partner on ``env``'s kitchen, observing with the rules it trained under."""
    from proagent.domains.overcooked.rl_spec import partner_env
    from proagent.training.partner import load_checkpoint_partner

    if env is None:
        raise ValueError(f"partner {str(directory)!r} is a checkpoint: it plays on a given layout")
    return load_checkpoint_partner(directory, "overcooked", env.name, lambda m: partner_env(env.layout, m.dynamics))


DEFAULT_LAYOUT = "counter_circuit"


class OvercookedDomain(WorldBase):
    """The Overcooked world. Holds only its partner registry (scripted + the shipped zoo, or one a
    caller extends), so one instance serves every run."""

    name = "overcooked"
    prompts_root: Path = PROMPTS_DIR / "overcooked"
    knowledge_root: Path = KNOWLEDGE_DIR / "overcooked"
    actions = Action
    idle_action = int(Action.STAY)
    event_kinds = tuple(kind.value for kind in EventKind)
    useful_events = PROGRESS_EVENTS
    metric_names = ("soups", "wrong_soups", "button_cost")

    def __init__(self, registry: PartnerRegistry | None = None) -> None:
        self._registry = registry
        self.capabilities = Capabilities(
            rendering=Rendering(render_ascii, KitchenState.to_record, page_facts, frame_extras, episode_frames, 125),
            perception=Perception(Perceiver.for_env),
            interdependence=Interdependence(interdependence_collector, interdependence_model),
            settings=EnvSettings(self.make_env_with, env_settings),
            rl=OVERCOOKED_RL,
            scripted=SCRIPTED,
        )

    @property
    def registry(self) -> PartnerRegistry:
        if self._registry is None:
            self._registry = default_registry()
        return self._registry

    def layout_names(self) -> list[str]:
        return available_layouts()

    def default_layout(self) -> str:
        """counter_circuit: the paper's hardest classic kitchen, where coordination matters (the
        alphabetical first is a variant nobody starts with)."""
        return DEFAULT_LAYOUT

    def owns(self, spec: str) -> bool:
        return spec in available_layouts() or spec.endswith((".txt", ".toml"))

    def make_env(self, spec: str, horizon: int, dynamics: Dynamics | None = None) -> OvercookedEnv:
        """The layout with ``dynamics`` (default: the classic rules, or the OvercookedV2 paper's
        settings for its coordination layouts, `envs.overcooked.presets`)."""
        if dynamics is None:
            return self.make_env_with(spec, horizon, {})
        try:
            return make(spec, Dynamics(**{**dynamics.model_dump(), "horizon": horizon}))
        except LayoutError as exc:
            raise DomainInputError(str(exc)) from exc

    def make_env_with(self, spec: str, horizon: int, settings: Mapping[str, str]) -> OvercookedEnv:
        """The layout with ``--env KEY=VALUE`` settings (`Dynamics` fields) over its defaults; one
        DomainInputError line naming the known settings for a bad key or value."""
        try:
            layout = get_layout(spec)
        except LayoutError as exc:
            raise DomainInputError(str(exc)) from exc
        known = [name for name in Dynamics.model_fields if name != "horizon"]
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise DomainInputError(f"unknown --env setting {unknown[0]!r}; overcooked settings: {', '.join(known)}")
        try:  # each number through the bounded reader, within its field's range: one line naming it
            values = typed_values(Dynamics, {key: str(value) for key, value in settings.items()}, "--env")
        except ValueError as exc:
            raise DomainInputError(str(exc)) from None
        try:
            dynamics = Dynamics(**{**layout_dynamics(layout.name), **values, "horizon": horizon})
        except ValidationError as exc:
            error = exc.errors()[0]
            raise DomainInputError(
                f"--env {error['loc'][0]}={settings.get(str(error['loc'][0]))}: {error['msg']}"
            ) from None
        return make(layout, dynamics)

    def skill_book(self, first: KitchenState) -> SkillBook:
        return SkillBook.for_kitchen(first)

    def controller(self, book: SkillBook, seat: int, seed: int) -> Controller:
        return Controller(book, seat, seed)

    def ground(
        self, state: KitchenState, seat: int, book: SkillBook, teammates: Sequence[TeammateView], score: float
    ) -> dict:
        (mate,) = teammates  # Overcooked kitchens are two-player
        return ground(state, seat, book, mate, score)

    def knowledge_facts(self, env: OvercookedEnv) -> dict:
        """The env's real settings the knowledge texts read: the rules (cook time, reward, V2
        options) and the kitchen (its ingredients, possible recipes, indicators). The recipe
        itself is never a fact: it may be hidden."""
        kmap = env.kitchen_map
        dynamics = env.dynamics
        return {
            "cook_time": dynamics.cook_time,
            "soup_reward": _number(dynamics.soup_reward),
            "ingredients": [ingredient_name(i) for i in sorted(kmap.ingredient_dispensers)],
            "recipes": [[ingredient_name(i) for i in recipe] for recipe in env.layout.recipes],
            "recipe_indicator": bool(kmap.recipe_indicators),
            "button_indicator": bool(kmap.button_indicators),
            "wrong_soup_penalty": dynamics.wrong_soup_penalty,
            "new_recipe_on_delivery": dynamics.new_recipe_on_delivery,
            "view_radius": dynamics.agent_view_size,
            "delivery_feedback": dynamics.indicate_successful_delivery,
        }

    def memory_summary(self, facts: dict) -> str:
        """One line of memory. With a partial view the teammate is where it was last seen, said so
        (facts of a full view carry no ``in_view``: the classic line, unchanged)."""
        me, mate = facts["me"], facts["teammate"]
        you = f"you at {me['position']} holding {me['held'] or 'nothing'}; "
        if mate.get("in_view", True):
            return you + f"teammate at {mate['position']} holding {mate['held'] or 'nothing'}"
        if mate.get("seen_step") is None:
            return you + "teammate not seen yet"
        return (
            you
            + f"teammate last seen at {mate['position']} holding {mate['held'] or 'nothing'} (step {mate['seen_step']})"
        )

    def episode_metrics(self, events: Sequence[Event]) -> dict[str, float]:
        """Soups, wrong soups and the points V2's button indicators cost (each press is taken off
        the score, so "score 40" with three soups says where the other 20 went)."""
        deliveries = [e for e in events if e.kind == EventKind.DELIVER]
        presses = sum(1 for e in events if e.kind == EventKind.ACTIVATE_INDICATOR)
        return {
            "soups": sum(1 for e in deliveries if e.correct),
            "wrong_soups": sum(1 for e in deliveries if not e.correct),
            "button_cost": -float(INDICATOR_ACTIVATION_COST * presses),
        }

    def partner_names(self, env: OvercookedEnv | None = None) -> list[str]:
        """Every registered name, less the three-onion heuristic chefs on a kitchen with other recipes."""
        names = self.registry.names()
        if env is None or cooks_classic_soup_only(env.layout):
            return names
        return [n for n in names if n not in CLASSIC_ROLES]

    def make_partner(self, name: str, env: OvercookedEnv | None = None) -> Agent:
        """Raises UnknownAgentError (unknown name) or ValueError (no checkpoint for this layout). The
        env's rules go along: a partner that perceives (``recipe_greedy``) sees what the env shows.
        A name with a ``/`` is a checkpoint folder's path: any trained checkpoint, shipped or not."""
        from proagent.training.partner import checkpoint_named

        directory = checkpoint_named(name)  # a checkpoint folder given by its path
        if directory is not None:
            return _checkpoint_partner(directory, env)
        if env is None:
            return self.registry.make(name)
        return self.registry.make(name, env.layout, env.dynamics)

    def default_partner(self, env: OvercookedEnv) -> str:
        """The teammate `play` picks when none is named: ``greedy`` in a classic kitchen; where other
        recipes are asked for (the V2 layouts) the heuristic chefs cannot play, so the self-play
        seed trained for the layout that scores best in self-play by its manifest (on
        test_time_wide ``sp`` scores 0 and ``sp_s2`` about 190), else ``stay`` (ProAgent cooks alone)."""
        from proagent.training.partner import best_seed

        if cooks_classic_soup_only(env.layout):
            return "greedy"
        name = best_seed("overcooked", env.layout.name, TRAINED_DEFAULT)
        if name is None:
            return "stay"
        try:
            self.registry.make(name, env.layout)
        except ValueError:  # UnknownPartnerError included: not in this registry, or not for this kitchen
            return "stay"
        return name
