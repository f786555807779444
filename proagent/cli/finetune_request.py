"""`FinetuneRequest`: what `proagent finetune` was asked, typed once from its flags.

`cli/finetune_cmd.py` reads argparse's namespace into it and passes it down (the data filter, the
training settings, the `--eval` request are all made from it), so every value the code below reads
is declared with its type and range, and a caller that is not the command line builds the same
request and gets the same checks. The defaults are the flags' defaults (a test keeps them equal)."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from proagent.limits import MAX_CONCURRENCY, MAX_EPISODES, MAX_HORIZON, MAX_SEED
from proagent.request import FrontEndRequest

TARGETS = ("q", "k", "v", "o", "gate", "up", "down")
Target = Literal["q", "k", "v", "o", "gate", "up", "down"]
MAX_SCORE = 1e12  # an episode score threshold's bound (scores may be negative in some worlds)
# the fields that only mean something with --eval (field -> flag)
EVAL_ONLY = MappingProxyType(
    {
        **{f"eval_{name}": f"--eval-{name}" for name in ("domain", "layouts", "partners", "seats", "episodes", "seed")},
        **{f"eval_{name}": f"--eval-{name}" for name in ("horizon", "prompt", "concurrency")},
        "cache_dir": "--cache-dir",
    }
)


class FinetuneRequest(FrontEndRequest):
    """One `proagent finetune`: the teaching runs, the data filter, the LoRA training and, with
    ``eval``, what the student plays afterwards (an ``eval_*`` field left None: what the teaching
    runs played). Every field is the flag of its name (``runs``: the positional RUN folders)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    FLAGS: ClassVar[dict[str, str]] = {"runs": "RUN"}

    runs: tuple[Path, ...] = Field(min_length=1)
    out: Path
    resume: bool = False
    # training
    steps: int = Field(200, ge=1)
    batch_size: int = Field(4, ge=1, le=256)
    checkpoint_every: int = Field(50, ge=1)  # steps (the held-out answers are scored there too unless heldout_every)
    heldout_every: int | None = Field(None, ge=1)  # steps between held-out scores (None: at each checkpoint)
    log_every: int = Field(10, ge=1)  # steps between progress lines (their loss is the mean over those steps)
    rank: int = Field(8, ge=1, le=256)
    alpha: float = Field(16.0, gt=0)
    lr: float = Field(2e-4, gt=0)
    plan_weight: float = Field(1.0, gt=0, le=100)  # the loss's weight on the tokens of the plan's skill
    targets: tuple[Target, ...] = Field(TARGETS, min_length=1)
    seed: int = Field(0, ge=0, le=2**31 - 1)
    model: Path | None = None  # the base GGUF (None: the bundled SmolLM2-135M)
    init_adapter: Path | None = None  # start from this adapter's deltas (None: fresh ones)
    # the data filter
    min_score: float | None = Field(None, ge=-MAX_SCORE, le=MAX_SCORE)
    include_rejected: bool = False
    keep_duplicates: bool = False
    max_per_world: int | None = Field(None, ge=1)
    max_per_skill: int | None = Field(None, ge=1)
    max_per_answer: int | None = Field(None, ge=1)
    skills: tuple[str, ...] | None = None  # teach only these skills' answers (None: every skill)
    balance: Literal["none", "worlds", "capped"] = "none"
    max_tokens: int = Field(2048, ge=2)
    holdout: int = Field(0, ge=0, le=MAX_EPISODES)  # the last N episodes of each world: scored, never taught
    # --eval: what the student and the raw model play after training
    eval: bool = False
    eval_domain: str | None = None
    eval_layouts: str | None = None  # comma lists, as typed
    eval_partners: str | None = None
    eval_seats: str | None = None
    eval_episodes: int | None = Field(None, ge=1, le=MAX_EPISODES)
    eval_seed: int | None = Field(None, ge=0, le=MAX_SEED)
    eval_horizon: int | None = Field(None, ge=1, le=MAX_HORIZON)
    eval_prompt: str | None = None
    eval_concurrency: int | None = Field(None, ge=1, le=MAX_CONCURRENCY)
    cache_dir: Path | None = None
    progress: Literal["auto", "on", "off"] = "auto"
    progress_every: int = Field(10, ge=1)
    progress_seconds: float = Field(10.0, gt=0)
    command_line: tuple[str, ...] = ("proagent", "finetune")  # the words that made the run

    @model_validator(mode="after")
    def _eval_flags_need_eval(self) -> FinetuneRequest:
        """An ``--eval-*`` flag without ``--eval`` would be ignored silently: refused, naming them."""
        if not self.eval:
            values = self.model_dump(include=set(EVAL_ONLY))
            given = [flag for name, flag in EVAL_ONLY.items() if values[name] is not None]
            if given:
                raise ValueError(f"{', '.join(given)} only apply with --eval; add --eval or drop them")
        if self.balance == "capped" and self.max_per_world is None:
            raise ValueError("--balance capped draws up to --max-per-world pairs from each world: give --max-per-world")
        return self

    @classmethod
    def problem(cls, exc: ValidationError) -> str:
        """A field's problem names its flag (`FrontEndRequest.problem`); a problem of flags together
        (an ``--eval-*`` flag without ``--eval``) is its own sentence."""
        first = exc.errors()[0]
        if first["loc"]:
            return super().problem(exc)
        return str(first["msg"]).removeprefix("Value error, ")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> FinetuneRequest:
        """The request `proagent finetune`'s parsed flags make (every flag the parser defines)."""
        given = vars(args)
        own = {"runs": tuple(args.runs), "targets": tuple(args.targets), "command_line": tuple(args.command_line)}
        return cls.checked(**{name: given[name] for name in cls.model_fields if name not in own}, **own)
