"""The published tables `proagent reproduce` regenerates, read from data/reproduce_targets.toml.

A target is data, not code: which paper and table, the exact setting, where the paper's own numbers
are, and the one implementation that makes ours (an evaluation grid, an ablation file or a table
module of proagent.tables, named, with its settings). Keeping it data means a researcher reads in one file what a table
runs, and a new table needs no new code path. This module also answers `--dry-run`: how many episodes a target plays
and, from per-episode figures measured on a loopback run, how many LLM calls and tokens and what they
would cost at a model's list price.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.eval.ablation import expand_ablation
from proagent.eval.config import EvalConfig, read_config_file, validate_config
from proagent.eval.manifest import AblationInfo
from proagent.paths import DATA_DIR, PROJECT_ROOT

TARGETS_FILE = DATA_DIR / "reproduce_targets.toml"
Implementation = Literal["eval", "ablate", "table"]


class Paper(BaseModel):
    """A paper a target reproduces; ``text`` is the number of its text among the project's papers."""

    model_config = ConfigDict(extra="forbid")
    title: str
    text: str


class Measured(BaseModel):
    """Per-episode LLM use of one target, measured from the records of a loopback run. ``source``
    says how (which double, how many episodes, which horizon) so that nobody reads it as a model's."""

    model_config = ConfigDict(extra="forbid")
    llm_calls: float = Field(ge=0)
    prompt_tokens: float = Field(ge=0)
    completion_tokens: float = Field(ge=0)
    episodes: int = Field(ge=1, description="episodes the figures average over")
    horizon: int | None = Field(
        None, ge=1, description="steps per episode of the measured runs; None: each game's own length (never scaled)"
    )
    source: str = Field(min_length=1)


class Target(BaseModel):
    """One published table or figure and how this project regenerates it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    paper: str
    table: str
    setting: str
    implementation: Implementation
    config: dict[str, Any] | None = Field(None, description="eval: the evaluation grid")
    config_file: str | None = Field(None, description="ablate: the ablation file, relative to the project root")
    module: str | None = Field(None, description="table: the table's name in proagent.tables.registry")
    settings: dict[str, Any] = Field(default_factory=dict, description="table: its settings, before the flags")
    paper_numbers: str | None = Field(None, description="the paper's numbers, relative to the project root")
    paper_note: str | None = Field(None, description="where the paper's numbers are when no file of ours holds them")
    measured: Measured | None = None

    @model_validator(mode="after")
    def _one_implementation(self) -> Target:
        needed = {"eval": self.config, "ablate": self.config_file, "table": self.module}[self.implementation]
        if needed is None:
            raise ValueError(
                f"target {self.name}: implementation {self.implementation!r} needs its config, config_file or module"
            )
        return self


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    papers: dict[str, Paper]
    targets: list[Target] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_papers_unique_names(self) -> Registry:
        names = [t.name for t in self.targets]
        if len(set(names)) != len(names):
            raise ValueError("two targets share a name")
        unknown = sorted({t.paper for t in self.targets} - set(self.papers))
        if unknown:
            raise ValueError(f"targets name unknown papers: {', '.join(unknown)}")
        return self

    def get(self, name: str) -> Target | None:
        return next((t for t in self.targets if t.name == name), None)


def load_registry(path: Path = TARGETS_FILE) -> Registry:
    """The registry file, validated (a malformed file fails here, before any run)."""
    return Registry.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))


def grid_data(target: Target) -> tuple[dict[str, Any], AblationInfo | None]:
    """The evaluation config data of an eval or ablate target (an ablation expanded to one agent a
    variant, with its info for the ablation table), before command-line flags are applied."""
    if target.implementation == "eval" and target.config is not None:
        return dict(target.config), None
    if target.implementation == "ablate" and target.config_file is not None:
        return expand_ablation(read_config_file(PROJECT_ROOT / target.config_file), target.config_file)
    raise ValueError(f"{target.name} runs a table module, not an evaluation grid")


def episode_count(config: EvalConfig, llm_only: bool = False) -> int:
    """Episodes the grid plays: agents x partners x layouts x seats (x topologies) x episodes; with
    ``llm_only``, those whose evaluated agent is ProAgent (the ones that call a model)."""
    agents = [a for a in config.agents if a.kind == "proagent"] if llm_only else config.agents
    return config.grid_episodes(len(agents))


def checked_config(data: dict[str, Any], source: str) -> EvalConfig:
    config = validate_config(data, source, EvalConfig)
    assert isinstance(config, EvalConfig)
    return config


class Estimate(BaseModel):
    """What `--dry-run` prints: the episode count, and where a loopback run measured them, the LLM
    calls and tokens expected and their price at ``model``'s list price (None: not measured or not
    priced). ``llm_episodes``: the episodes an LLM agent plays, which the per-episode figures scale."""

    episodes: int
    llm_episodes: int
    llm_calls: float | None = None
    prompt_tokens: float | None = None
    completion_tokens: float | None = None
    model: str | None = None
    cost_usd: float | None = None
    source: str | None = None


def token_prices(model: str) -> tuple[float, float] | None:
    """(USD per prompt token, USD per completion token) from litellm's price table, trying the id as
    given and without its provider prefix (``openai/gpt-4o-mini`` is listed as ``gpt-4o-mini``)."""
    from proagent.llm.factory import is_api_model
    from proagent.llm.litellm_backend import import_litellm

    if not is_api_model(model):
        return None  # a local model or a double: no price
    prices = import_litellm().model_cost
    for key in (model, model.partition("/")[2]):
        entry = prices.get(key) if key else None
        if entry and "input_cost_per_token" in entry and "output_cost_per_token" in entry:
            return float(entry["input_cost_per_token"]), float(entry["output_cost_per_token"])
    return None


def estimate(
    target: Target, episodes: int, model: str | None, llm_episodes: int | None = None, horizon: int | None = None
) -> Estimate:
    """The target's measured per-episode figures scaled by the LLM episodes (default: all
    ``episodes``) and, where both are known, by ``horizon`` against the measured runs' steps per
    episode (an agent decides every few steps, so its calls and tokens grow about in step with the
    horizon); priced for ``model``."""
    m, n = target.measured, episodes if llm_episodes is None else llm_episodes
    if m is None or n == 0:
        return Estimate(episodes=episodes, llm_episodes=n, model=model)
    source, scale = m.source, float(n)
    if horizon is not None and m.horizon is not None and horizon != m.horizon:
        scale *= horizon / m.horizon
        source += f"; scaled from the measured {m.horizon} to {horizon} steps per episode"
    calls, prompt, completion = m.llm_calls * scale, m.prompt_tokens * scale, m.completion_tokens * scale
    prices = token_prices(model) if model else None
    cost = prompt * prices[0] + completion * prices[1] if prices else None
    return Estimate(
        episodes=episodes,
        llm_episodes=n,
        llm_calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        model=model,
        cost_usd=cost,
        source=source,
    )
