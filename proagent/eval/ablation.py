"""Ablation files: an evaluation whose agents are variants of one base agent.

A file in runs/ablations/ holds the usual evaluation fields (layouts, partners, seats, episodes,
...) plus ``title``, ``metrics`` (the comparison columns), ``base`` (AgentSpec fields shared by
all variants) and ``variants`` (name -> the fields that differ). It expands to an EvalConfig with
one agent per variant, labelled by the variant's name, so it runs, resumes and reports exactly
like any evaluation; the report adds the comparison table and chart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.domains import DomainInputError, get_domain
from proagent.eval.config import (
    AgentSpec,
    ConfigError,
    validate_config,
    validation_problems,
)
from proagent.eval.manifest import AblationInfo
from proagent.eval.stats import METRICS, unknown_metrics

ABLATION_FIELDS = ("title", "metrics", "base", "variants")


class AblationSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    metrics: list[str] = Field(default_factory=lambda: ["score", "skill_success_rate"], min_length=1)
    base: dict[str, Any] = Field(default_factory=dict)
    variants: dict[str, dict[str, Any]] = Field(min_length=1)


def _check_metrics(metrics: list[str], domain_name: object, source: str) -> None:
    """Every comparison metric must exist: a record field, a derived metric or one of the domain's."""
    try:
        domain_metrics = get_domain(str(domain_name) if domain_name else None).metric_names
    except DomainInputError as exc:
        raise ConfigError(f"invalid config ({source}): domain: {exc}") from None
    unknown = unknown_metrics(metrics, domain_metrics)
    if unknown:
        known = ", ".join([*METRICS, *domain_metrics])
        raise ConfigError(
            f"invalid config ({source}): metrics: unknown metrics {unknown}; known: {known} or any numeric record field"
        )


def expand_ablation(data: dict[str, Any], source: str) -> tuple[dict[str, Any], AblationInfo]:
    """(evaluation config data with one agent per variant, ablation info); errors name the field
    (``variants.no_verificator.verificator: ...``)."""
    if "agents" in data:
        raise ConfigError(
            f"invalid config ({source}): agents: an ablation lists 'variants' of a 'base' agent, not 'agents'"
        )
    spec = validate_config({k: data[k] for k in ABLATION_FIELDS if k in data}, source, AblationSpec)
    assert isinstance(spec, AblationSpec)
    _check_metrics(spec.metrics, data.get("domain"), source)
    agents = []
    problems = []
    for name, overrides in spec.variants.items():
        fields = {**spec.base, **overrides, "label": name}
        try:
            AgentSpec.model_validate(fields)
        except ValidationError as exc:
            problems += [f"variants.{name}.{problem}" for problem in validation_problems(exc)]
        agents.append(fields)
    if problems:
        raise ConfigError(f"invalid config ({source}): " + "; ".join(problems))
    rest = {k: v for k, v in data.items() if k not in ABLATION_FIELDS}
    varied = list(dict.fromkeys(field for overrides in spec.variants.values() for field in overrides))
    info = AblationInfo(title=spec.title, variants=list(spec.variants), metrics=spec.metrics, varied=varied)
    return {**rest, "agents": agents}, info


def refuse_varied_overrides(info: AblationInfo, flags: Mapping[str, str], source: str) -> None:
    """ConfigError when a command-line flag would set a field the ablation varies: the flag would
    give every variant the same value while each stays labelled by its own. ``flags``: field -> the
    flag given for it (``memory_k`` -> ``--memory-k``)."""
    clashes = [(flag, field) for field, flag in flags.items() if field in info.varied]
    if not clashes:
        return
    said = "; ".join(f"{flag} overrides {field}, which {source} varies" for flag, field in clashes)
    raise ConfigError(f"{said}; drop the flag or edit the ablation file")
