"""Prompt sets (prompts/<name>/) and a domain's knowledge library (knowledge/<domain>/), loaded as data.

Templates render with ``StrictUndefined`` so a typo in a user's variant fails loudly at the first
render instead of silently sending an empty field to the model.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import jinja2

from proagent.agent.memory import MEMORY_RETRIEVALS, MemoryRetrieval
from proagent.agent.verificator_modes import VERIFICATOR_MODES, VerificatorMode
from proagent.untrusted import UntrustedFileError, read_toml

Level = Literal["plan", "analysis", "intention"]
LEVEL_FIELDS: dict[str, tuple[str, ...]] = {
    "plan": ("plan",),
    "analysis": ("analysis", "plan"),
    "intention": ("analysis", "intention", "plan"),
}
ANSWER_FIELDS = ("analysis", "intention", "plan")  # the fields an answer may have
_Option = TypeVar("_Option", bound=str)
REQUIRED_TEMPLATES = ("planner_system.j2", "planner_user.j2", "explainer.j2", "belief.j2")


class PromptSetError(ValueError):
    """A prompt set that is missing or broken; the message lists what exists."""


def available_prompt_sets(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if (p / "prompt.toml").is_file())


@dataclass(frozen=True)
class PromptSet:
    name: str
    level: Level
    env: jinja2.Environment
    answer_fields: tuple[str, ...] | None = None  # prompt.toml's `fields`, when it overrides the level's
    memory: MemoryRetrieval = "outcomes"  # prompt.toml's `memory`: what the agent retrieves unless configured otherwise
    verificator: VerificatorMode = "code"  # prompt.toml's `verificator`: the mode unless configured otherwise

    @property
    def fields(self) -> tuple[str, ...]:
        """What the planner answers: the level's fields, or the set's own choice (e.g. no analysis for a tiny model)."""
        return self.answer_fields or LEVEL_FIELDS[self.level]

    def render(self, template: str, variables: dict) -> str:
        """``template`` of this set, else the world's shared one (``_shared/``: e.g. the llm3
        Verificator's rounds, which a set overrides by having its own file)."""
        try:
            found = self.env.select_template([f"{self.name}/{template}", f"_shared/{template}"])
            return found.render(variables).strip()
        except jinja2.TemplateError as exc:
            raise PromptSetError(f"prompt set {self.name!r}, template {template}: {exc}") from exc

    def source_hashes(self) -> dict[str, str]:
        """Hashes of all template files (a set may extend another), recorded with every run."""
        root = Path(self.env.loader.searchpath[0])  # type: ignore[union-attr]
        return {
            str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in (".j2", ".toml")
        }


def load_prompt_set(name: str, root: Path) -> PromptSet:
    folder = root / name
    if not (folder / "prompt.toml").is_file():
        raise PromptSetError(
            f"unknown prompt set {name!r}; available: {', '.join(available_prompt_sets(root))} (folders in {root})"
        )
    missing = [t for t in REQUIRED_TEMPLATES if not (folder / t).is_file()]
    if missing:
        raise PromptSetError(f"prompt set {name!r} lacks {', '.join(missing)}")
    try:  # a prompt set may come from elsewhere: the bounded reader, one line naming the file
        settings = read_toml(folder / "prompt.toml", "prompt set file")
    except UntrustedFileError as exc:
        raise PromptSetError(str(exc)) from None
    level = settings.get("level", "intention")
    if level not in LEVEL_FIELDS:
        raise PromptSetError(f"prompt set {name!r}: level must be one of {list(LEVEL_FIELDS)}, got {level!r}")
    fields = _answer_fields(name, settings.get("fields"))
    memory = _choice(name, "memory", settings.get("memory", "outcomes"), MEMORY_RETRIEVALS)
    verificator = _choice(name, "verificator", settings.get("verificator", "code"), VERIFICATOR_MODES)
    env = _templates(str(root))
    return PromptSet(name=name, level=level, env=env, answer_fields=fields, memory=memory, verificator=verificator)


@functools.cache
def _templates(root: str) -> jinja2.Environment:
    """One template environment per prompts folder: every agent of a process shares its compiled
    templates (compiling them took a run's agents seconds). Jinja checks a file's modification time
    before it serves a compiled template, so an edited template is read again."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
        auto_reload=True,
    )


def _choice(name: str, key: str, value: object, allowed: tuple[_Option, ...]) -> _Option:
    """prompt.toml's ``key``, one of ``allowed``; a set's default the agent uses unless told otherwise."""
    for option in allowed:
        if value == option:
            return option
    raise PromptSetError(f"prompt set {name!r}: {key} must be one of {list(allowed)}, got {value!r}")


def _answer_fields(name: str, fields: object) -> tuple[str, ...] | None:
    """prompt.toml's optional ``fields``: some of analysis/intention/plan, with plan, in the order the
    model should write them (the JSON schema and the grammar follow it)."""
    if fields is None:
        return None
    if (
        not isinstance(fields, list)
        or "plan" not in fields
        or len(set(fields)) != len(fields)
        or any(f not in ANSWER_FIELDS for f in fields)
    ):
        raise PromptSetError(
            f"prompt set {name!r}: fields must list 'plan' and any of {list(ANSWER_FIELDS)}, got {fields!r}"
        )
    return tuple(fields)


@dataclass(frozen=True)
class Knowledge:
    """Task, rules and the layout's notes, role and demos for one seat; ``facts`` are the env's real
    settings the texts (and skill descriptions) were rendered with."""

    task: str
    rules: str
    layout: dict
    demos: list[dict]
    facts: dict = field(default_factory=dict)

    def render(self, text: str) -> str:
        """A knowledge text with the env's settings filled in (``{{ cook_time }}``), never restated by hand."""
        try:
            return _KNOWLEDGE_ENV.from_string(text).render(self.facts)
        except jinja2.TemplateError as exc:
            raise PromptSetError(f"knowledge text {text[:40]!r}...: {exc}") from exc


_KNOWLEDGE_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)


def load_knowledge(root: Path, layout_name: str, seat: int, facts: dict | None = None) -> Knowledge:
    """The knowledge of one domain (``root``: its task.md, rules.md, layouts/<name>.toml) for one
    seat; task and rules are Jinja texts that read ``facts`` (the domain's knowledge_facts). A
    layout's ``[signal]`` table (a convention its notes state in words) rides along in ``layout``
    as data; no template reads it."""
    path = root / "layouts" / f"{layout_name}.toml"
    data = tomllib.loads(path.read_text()) if path.is_file() else {}
    seat_data = data.get("seats", {}).get(str(seat), {})
    raw = Knowledge(task="", rules="", layout={}, demos=[], facts=dict(facts or {}))
    return Knowledge(
        task=raw.render((root / "task.md").read_text().strip()),
        rules=raw.render((root / "rules.md").read_text().strip()),
        layout={
            "name": layout_name,
            "notes": data.get("notes", ""),
            "role": seat_data.get("role", ""),
            "signal": data.get("signal"),
        },
        demos=list(data.get("demos", [])) + list(seat_data.get("demos", [])),
        facts=raw.facts,
    )
