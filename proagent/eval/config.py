"""What an evaluation plays: agents x partners x layouts x seats x episodes, validated up front.

A config comes from a TOML or YAML file, from command-line flags, or both (flags win). Every
problem is reported with the path of the bad field (``agents[1].memory_k: ...``) before any
episode starts, because a typo found after an hour of paid LLM calls is the expensive kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from proagent.adapter_choice import NO_ADAPTER, default_adapter
from proagent.agent.config import AgentConfig
from proagent.agent.presets import model_defaults
from proagent.bounded import NumberError, bounded_float
from proagent.domains import DEFAULT_DOMAIN
from proagent.limits import (
    MAX_CONCURRENCY,
    MAX_EPISODES,
    MAX_GRID_EPISODES,
    MAX_HORIZON,
    MAX_MESSAGE_BUDGET,
    MAX_SEED,
    MAX_WALL_CLOCK_S,
)
from proagent.maeil.topology import TopologyName
from proagent.paths import CACHE_DIR
from proagent.untrusted import MAX_DEPTH, UntrustedFileError, loads_toml, nesting_depth, read_text

PROAGENT = "proagent"
# A partner entry that stands for each layout's own default teammate (`Domain.default_partner`: the
# best shipped seed where trained partners ship); records name the partner it resolved to.
DEFAULT_PARTNER = "default"
EMBEDDED = "embedded"
DEFAULT_CACHE_DIR = CACHE_DIR  # the current folder's (made absolute when the config is made)
# Settings that change how a run executes, not what it measures: a resumed run may change them.
EXECUTION_FIELDS = frozenset(
    {"concurrency", "llm_concurrency", "max_cost_usd", "max_failures", "trace", "stepping", "cache", "cache_dir"}
)
# AgentSpec fields that only mean something for an LLM agent.
_SPEC_ONLY = frozenset({"kind", "label"})


class ConfigError(ValueError):
    """A bad config, with a message naming the field and what would be accepted."""


class AgentSpec(AgentConfig):
    """One evaluated agent: ``kind`` is 'proagent' (an LLM agent with these AgentConfig fields) or
    the name of a registered partner playing the agent's seat (for partner cross-play tables)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    kind: str = PROAGENT
    label: str | None = Field(None, pattern=r"^[A-Za-z0-9_.+=-]+$", description="column name; default: kind")
    llm: str = EMBEDDED
    adapter: Path | None = Field(
        None,
        description="the embedded model's LoRA adapter GGUF ('none' or None: the raw model); left out: the default "
        "(the shipped adapter for the bundled embedded model, none for another model)",
    )
    api_base: str | None = None
    llm_timeout_s: float = Field(60.0, gt=0, description="seconds to wait for one LLM answer before retrying")
    prompt: str | None = Field(None, description="None: compact for the embedded model, as in `play`, else proagent")
    legal_only: bool | Literal["auto"] = Field("auto", description="auto: on for the embedded model only")
    analysis_max_chars: int | None = Field(None, ge=0, description="None: short for the embedded model, as in `play`")

    @field_validator("adapter", mode="before")
    @classmethod
    def _none_is_the_raw_model(cls, value: object) -> object:
        """``--adapter none`` (or ``adapter = "none"`` in a config): the raw model, as an absent adapter."""
        return None if isinstance(value, str) and value.strip().lower() == NO_ADAPTER else value

    @model_validator(mode="after")
    def _llm_fields_only_for_proagent(self) -> AgentSpec:
        if self.kind == PROAGENT:
            if "adapter" not in self.model_fields_set:
                # the default, written out: config.json then says which adapter played, and a resumed
                # run plays the one it began with whatever the default becomes
                self.adapter = default_adapter(self.llm)
            return self
        fields = type(self).model_fields.items()
        defaults = {name: field.get_default(call_default_factory=True) for name, field in fields}
        changed = [f for f, default in defaults.items() if f not in _SPEC_ONLY and getattr(self, f) != default]
        if changed:
            raise ValueError(f"{', '.join(changed)} only apply to kind 'proagent', not to partner {self.kind!r}")
        return self

    @property
    def name(self) -> str:
        return self.label or self.kind

    @property
    def embedded(self) -> bool:
        return self.llm.split(":")[0] == EMBEDDED

    def agent_config(self, prompts_root: Path | None = None) -> AgentConfig:
        """The AgentConfig this spec describes, with 'auto' settled the way `proagent play` does
        (``prompts_root``: the world's prompt sets, where the embedded default may fall back)."""
        values = {f: getattr(self, f) for f in AgentConfig.model_fields}
        defaults = model_defaults(self.embedded, self.prompt, self.legal_only, self.analysis_max_chars, prompts_root)
        values.update(defaults.model_dump())
        return AgentConfig(**values)


class EvalConfig(BaseModel):
    """An evaluation grid and how to run it; saved in config.json with the run."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str = Field("eval", pattern=r"^[A-Za-z0-9_.+=-]+$")
    domain: str = Field(DEFAULT_DOMAIN, description="the world: a built-in name or module:attribute")
    agents: list[AgentSpec] = Field(min_length=1)
    partners: list[str] = Field(
        min_length=1, description="names of domain partners, or of LLM agents in `agents` (e.g. proagent)"
    )
    layouts: list[str] = Field(min_length=1)
    seats: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=lambda: [0, 1], min_length=1, description="the agent's seats (each < the layout's agents)"
    )
    topologies: list[TopologyName] = Field(
        default_factory=list,
        description="MAEIL topologies each agent plays under (agent@topology); empty: no conversation",
    )
    leader: int = Field(0, ge=0, description="centralized topology: the leader's seat")
    message_budget: int = Field(
        1, ge=0, le=MAX_MESSAGE_BUDGET, description="decentralized topology: messages per agent per step"
    )
    feedback: bool = Field(
        False,
        description="environment feedback: the world's snapshot attached to the leader's messages (needs topologies)",
    )
    repair: Literal["off", "on", "both"] = Field(
        "off",
        description="COOP²-Repair: on (agent@topology+repair), or both: matched pairs, the same episodes without "
        "repair "
        "(its estimator predicts and is scored, never intervenes) and with it; implies topologies [individual] when "
        "none",
    )
    episodes: int = Field(
        5, ge=1, le=MAX_EPISODES, description="episodes per agent x partner x layout x seat (x topology)"
    )
    seed: int = Field(
        0, ge=0, le=MAX_SEED, description="episode i plays seed + i, the same for every agent and partner"
    )
    env: dict[str, str | int | float | bool | None] = Field(
        default_factory=dict,
        description="environment settings for every layout (Overcooked: Dynamics fields), over each layout's own",
    )
    horizon: int | None = Field(
        None,
        ge=1,
        le=MAX_HORIZON,
        description="steps per episode; None: each layout's own (a CUBE scenario's), else 400",
    )
    wall_clock_s: float | None = Field(
        None,
        description="an episode ends after the step in which this many seconds have passed since its first (EmCoop's "
        "budget); None or 0: no budget",
    )
    concurrency: int = Field(8, ge=1, le=MAX_CONCURRENCY, description="episodes in flight")
    llm_concurrency: int = Field(
        32,
        ge=1,
        le=MAX_CONCURRENCY,
        description="LLM requests in flight to each model endpoint, over all episodes (and, on Ray, all runs)",
    )
    max_cost_usd: float | None = Field(None, ge=0, description="start no new episode once this much was spent")
    max_failures: int = Field(5, ge=1, description="stop starting episodes after this many failed")
    trace: bool = Field(False, description="write every step to trace.jsonl (large)")
    cache: bool = True
    cache_dir: Path = Field(default_factory=DEFAULT_CACHE_DIR.absolute)
    stepping: Literal["lockstep", "single"] = Field(
        "lockstep", description="batch the envs of a layout, or step each alone"
    )

    def grid_episodes(self, agents: int | None = None) -> int:
        """Episodes the grid plays: agents x partners x layouts x seats (x topologies x repair arms) x episodes;
        ``agents``: for that many of its agents (default: all)."""
        arms = 2 if self.repair == "both" else 1  # a matched pair: without and with repair
        per_agent = len(self.partners) * len(self.layouts) * len(self.seats) * max(1, len(self.topologies)) * arms
        return (len(self.agents) if agents is None else agents) * per_agent * self.episodes

    @model_validator(mode="after")
    def _bounded_grid(self) -> EvalConfig:
        """The whole grid is bounded, not only each count: the plan is built before any episode."""
        if self.grid_episodes() > MAX_GRID_EPISODES:
            raise ValueError(
                f"the grid has {self.grid_episodes():,} episodes; at most {MAX_GRID_EPISODES:,} in one evaluation"
            )
        return self

    @field_validator("wall_clock_s", mode="before")
    @classmethod
    def _wall_clock(cls, value: Any) -> float | None:
        """Seconds, finite, 0 to `MAX_WALL_CLOCK_S` (a bool, a string or NaN in a file is refused,
        not read as a number); 0 is no budget, so ``--wall-clock 0`` turns off a file's."""
        if value is None:
            return None
        try:
            return bounded_float(value, "seconds", 0.0, MAX_WALL_CLOCK_S) or None
        except NumberError as exc:
            raise ValueError(exc.problem) from None

    @field_validator("partners", "layouts", "seats")
    @classmethod
    def _no_duplicates(cls, values: list) -> list:
        dupes = sorted({str(v) for v in values if values.count(v) > 1})
        if dupes:
            raise ValueError(f"listed twice: {', '.join(dupes)}")
        return values

    @model_validator(mode="after")
    def _unique_agent_names(self) -> EvalConfig:
        names = [a.name for a in self.agents]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ValueError(f"agents[{i}]: two agents are named {name!r}; give each a distinct 'label'")
        return self


def validation_problems(exc: ValidationError) -> list[str]:
    """Each problem as ``<field path>: <message>`` (``agents[1].memory_k: ...``), no pydantic dump."""
    problems = []
    for err in exc.errors():
        where = field_path(err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        problems.append(f"{where}: {msg}")
    return problems


def describe_validation_error(exc: ValidationError, source: str) -> str:
    """One line: every problem, separated by ``; `` (no pydantic dump, no documentation URLs)."""
    return f"invalid config ({source}): " + "; ".join(validation_problems(exc))


def field_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("bool", "literal['auto']", "function-after[_llm_fields_only_for_proagent(), AgentSpec]"):
            continue  # pydantic's union-branch and validator labels: noise for a user
        else:
            out += f".{part}" if out else str(part)
    return out


def validate_config(data: dict[str, Any], source: str, model: type[BaseModel] = EvalConfig) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, source)) from None


def read_config_file(path: Path) -> dict[str, Any]:
    """The mapping in a .toml, .yaml or .yml file."""
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    if path.suffix not in (".toml", ".yaml", ".yml"):
        raise ConfigError(f"{path}: config files end in .toml, .yaml or .yml")
    try:  # the size, UTF-8 and nesting bounds of every file that may come from elsewhere
        text = read_text(path, "config file")
        data = loads_toml(text, str(path)) if path.suffix == ".toml" else _load_yaml(path, text)
    except UntrustedFileError as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of field names to values")
    return data


def _load_yaml(path: Path, text: str) -> Any:
    try:
        import yaml
    except ImportError:
        raise ConfigError(f"{path}: reading YAML needs PyYAML (pip install pyyaml), or use TOML") from None
    if (depth := nesting_depth(text)) > MAX_DEPTH:
        raise ConfigError(f"{path}: brackets nested {depth:,} deep, more than the {MAX_DEPTH} allowed")
    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deep to read") from None
    except yaml.YAMLError as exc:  # its message spans lines (a snippet with a caret): keep the gist
        marked = isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None
        where = f" at line {exc.problem_mark.line + 1}, column {exc.problem_mark.column + 1}" if marked else ""
        problem = (exc.problem if isinstance(exc, yaml.MarkedYAMLError) else None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}: not valid YAML{where}: {problem}") from None
