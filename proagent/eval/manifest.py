"""config.json of an evaluation run: the validated config plus everything else needed to
reproduce it (prompt and knowledge hashes, each agent's effective AgentConfig, git commit,
package versions) and a log of the sessions that resumed it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pydantic import BaseModel, Field, ValidationError

from proagent.builder import env_settings
from proagent.checkout import git_state
from proagent.eval.config import PROAGENT, ConfigError, EvalConfig
from proagent.eval.world import Resolved
from proagent.llm.scripted import ModelRecord, describe_with_adapter
from proagent.runner.run_folder import RunFolder, package_versions

CONFIG_FILE = "config.json"


class AblationInfo(BaseModel):
    """Which agents are the variants of an ablation, and the metrics to compare them on."""

    title: str
    variants: list[str]
    metrics: list[str]
    varied: list[str] = Field(
        default_factory=list, description="the agent fields the variants set (empty in older runs)"
    )


class Session(BaseModel):
    command: str
    started: str
    git_commit: str
    git_dirty: bool
    pending: int | None = Field(None, description="episodes left to play when it began; None in older runs")


class EvalManifest(BaseModel):
    domain: str | None = Field(
        None,
        description="the world (config.domain) where every run folder names it: the top of config.json; None in older "
        "runs",
    )
    config: EvalConfig
    layout_names: list[str] = Field(description="canonical names of config.layouts, in order")
    agent_configs: dict[str, dict] = Field(description="agent name -> effective AgentConfig")
    models: dict[str, ModelRecord] = Field(
        default_factory=dict,
        description="LLM agent name -> what its model is (a language model or a scripted planner); empty in older runs",
    )
    prompt_hashes: dict[str, dict[str, str]]
    knowledge_hash: str
    env_settings: dict[str, dict] = Field(
        default_factory=dict, description="layout -> the env's rules as its domain reports them"
    )
    partner_provenance: dict[str, dict[str, dict]] | None = Field(
        None,
        description="partner -> layout -> what fixes its play (a checkpoint's sha256); None: a run older than this "
        "record",
    )
    ablation: AblationInfo | None = None
    git_commit: str
    git_dirty: bool
    versions: dict[str, str]
    created: str
    sessions: list[Session] = Field(default_factory=list, description="every process that ran episodes")


def now() -> str:
    return datetime.now(UTC).isoformat()


def new_manifest(config: EvalConfig, resolved: Resolved, command: str, ablation: AblationInfo | None) -> EvalManifest:
    commit, dirty = git_state()
    return EvalManifest(
        domain=config.domain,
        config=config,
        layout_names=list(resolved.envs),
        agent_configs={
            a.name: a.agent_config(resolved.domain.prompts_root).model_dump()
            for a in config.agents
            if a.kind == PROAGENT
        },
        models={a.name: describe_with_adapter(a.llm, a.adapter) for a in config.agents if a.kind == PROAGENT},
        prompt_hashes=resolved.prompt_hashes,
        knowledge_hash=resolved.knowledge_hash,
        env_settings={
            name: settings
            for name, env in resolved.envs.items()
            if (settings := env_settings(resolved.domain, env)) is not None
        },
        partner_provenance=resolved.partner_provenance,
        ablation=ablation,
        git_commit=commit,
        git_dirty=dirty,
        versions=package_versions(),
        created=now(),
    )


def add_session(manifest: EvalManifest, command: str, pending: int) -> EvalManifest:
    commit, dirty = git_state()
    session = Session(command=command, started=now(), git_commit=commit, git_dirty=dirty, pending=pending)
    return manifest.model_copy(update={"sessions": [*manifest.sessions, session]})


MAX_MANIFEST_BYTES = 4 * 1024 * 1024  # a manifest is a few KiB


def load_manifest(folder: RunFolder) -> EvalManifest:
    path = folder.path / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"{folder.path} is not an evaluation run: it has no {CONFIG_FILE}")
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ConfigError(
            f"{path}: {path.stat().st_size} bytes, more than an evaluation config ({MAX_MANIFEST_BYTES}); not read"
        )
    try:  # strict: a run folder may come from anywhere, and a "2" is not two episodes
        return EvalManifest.model_validate_json(raw_model_where_unrecorded(path.read_bytes()), strict=True)
    except ValidationError as exc:
        raise ConfigError(
            f"{path} is not an evaluation config ({exc.error_count()} problems, e.g. {exc.errors()[0]['msg']})"
        ) from None


def raw_model_where_unrecorded(text: bytes) -> bytes:
    """config.json with ``"adapter": null`` written into every agent that records none: runs older
    than the adapter field played the raw model, and an absent field would otherwise validate to
    today's default (the shipped adapter), so a resume would mix two models in one grid."""
    try:
        data = json.loads(text)
        agents = data["config"]["agents"]
    except (ValueError, KeyError, TypeError):
        return text  # not a config at all: validation says what is wrong
    if not isinstance(agents, list) or all(not isinstance(a, dict) or "adapter" in a for a in agents):
        return text
    for agent in agents:
        if isinstance(agent, dict) and agent.get("kind", PROAGENT) == PROAGENT:
            agent.setdefault("adapter", None)
    return json.dumps(data).encode()


def save_manifest(folder: RunFolder, manifest: EvalManifest) -> None:
    folder.write_json(CONFIG_FILE, manifest)
