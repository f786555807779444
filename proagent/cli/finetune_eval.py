"""`proagent finetune --eval`: the student (the base model with the new adapter) and the raw model
play the same held-out episodes in the same command, through the evaluation harness.

The request is an `EvalConfig` with two agents, ``student`` and ``raw``, built from the flags and,
where a flag is not given, from the teaching runs: their world (one domain; its layouts), the
partners and seats they played, their prompt set. Seeds default to 0..4 and must be seeds the
teaching runs never played on those layouts (held out), else the command stops before training.
The whole request is checked (names, partners, prompt set, model) before ``--out`` is made; it
plays into ``--out/eval/`` as an ordinary evaluation run (its tables, `proagent report`), and the
manifest gets the summary (`proagent.finetune.scores`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.cli.arg_types import (
    add_progress_options,
    concurrency_count,
    episode_count,
    horizon_steps,
    seed_number,
    writable_folder,
)

if TYPE_CHECKING:
    from proagent.cli.finetune_request import FinetuneRequest
    from proagent.eval.config import EvalConfig
    from proagent.eval.records import EvalRecord
    from proagent.eval.stats import MeanSE
    from proagent.eval.world import World
    from proagent.finetune.dataset import PlayedEpisode, SupervisedPair
    from proagent.finetune.scores import ArmScore, StudentEvaluation

EVAL_FOLDER = "eval"  # under --out: the evaluation's run folder(s)
# One episode at a time by default: the two arms' models load when first asked, and llama-cpp-python
# silences output while a model loads by swapping sys.stdout/sys.stderr, which two loads in two
# threads at once can leave swapped (the command's own lines then vanish).
DEFAULT_EPISODES, DEFAULT_SEED, DEFAULT_CONCURRENCY = 5, 0, 1


def add_eval_flags(p: argparse.ArgumentParser) -> None:
    """The flags of what `--eval` plays; each defaults to what the teaching runs played."""
    p.add_argument(
        "--eval", action="store_true", help="after training, play the student and the raw model on held-out seeds"
    )
    p.add_argument("--eval-domain", help="the world to play (default: the training set's, when it has one)")
    p.add_argument("--eval-layouts", help="comma list of layouts (default: the training set's layouts)")
    p.add_argument("--eval-partners", help="comma list of partners (default: those the teaching runs played with)")
    p.add_argument("--eval-seats", help="the student's seats, e.g. 0,1 (default: the seats the teaching runs played)")
    p.add_argument("--eval-episodes", type=episode_count, help="episodes per partner x layout x seat (default 5)")
    p.add_argument("--eval-seed", type=seed_number, help="episode i plays this seed + i (default 0)")
    p.add_argument("--eval-horizon", type=horizon_steps, help="steps per episode (default: each layout's own)")
    p.add_argument("--eval-prompt", help="prompt set of both arms (default: the teaching runs' own)")
    p.add_argument("--eval-concurrency", type=concurrency_count, help="episodes in flight (default 1)")
    p.add_argument("--cache-dir", type=writable_folder, help="the model-answer cache (default: .cache/llm here)")
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto", help="the evaluation's display")
    add_progress_options(p, "LLM calls of the evaluation")


def _names(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _seats(text: str) -> list[int | str]:
    """Seats as numbers where they are whole numbers (the config check names any other)."""
    from proagent.bounded import small_whole

    return [item if (seat := small_whole(item)) is None else seat for item in _names(text)]


def _given(value: int | None, default: int) -> int:
    return default if value is None else value


def _domain(request: FinetuneRequest, worlds: set[str]) -> str:
    from proagent.eval.config import ConfigError

    if request.eval_domain is not None:
        return request.eval_domain
    domains = sorted({world.split("/", 1)[0] for world in worlds})
    if len(domains) != 1:
        raise ConfigError(f"the training set covers {', '.join(domains)}; name the world to play with --eval-domain")
    return domains[0]


def _held_out(layouts: Sequence[str], seeds: range, taught: Sequence[PlayedEpisode]) -> None:
    """Refuse seeds a teaching run played on a layout the evaluation plays: they are not held out."""
    from proagent.eval.config import ConfigError

    clash = sorted({(p.layout, p.seed) for p in taught if p.layout in layouts and p.seed in seeds})
    if clash:
        first = max(p.seed for p in taught if p.layout in layouts) + 1
        shown = ", ".join(f"{layout} seed {seed}" for layout, seed in clash[:4])
        raise ConfigError(
            f"--eval-seed {seeds.start} plays seeds the teaching runs played ({shown}); evaluate on held-out "
            f"seeds, e.g. --eval-seed {first}"
        )


def eval_request(
    request: FinetuneRequest, kept: Sequence[SupervisedPair], played: Sequence[PlayedEpisode], llm: str
) -> EvalConfig:
    """The evaluation `--eval` plays, checked as a config (the student's adapter is added once it
    exists: `with_adapter`). ``played``: the episodes of the teaching runs; those that gave a kept
    pair are what the defaults and the held-out check read. ConfigError: bad input, one line."""
    from proagent.adapter_choice import NO_ADAPTER
    from proagent.eval.config import DEFAULT_PARTNER, PROAGENT, ConfigError, EvalConfig, validate_config
    from proagent.finetune.scores import RAW, STUDENT

    taught_keys = {(pair.run, pair.episode) for pair in kept}
    taught = [p for p in played if (p.run, p.episode) in taught_keys]
    domain = _domain(request, {pair.world for pair in kept})
    in_domain = [p for p in taught if p.domain == domain]
    layouts = _names(request.eval_layouts) if request.eval_layouts else sorted({p.layout for p in in_domain})
    if not layouts:
        raise ConfigError(f"the training set played no layout of {domain!r}; name the layouts with --eval-layouts")
    partners = _names(request.eval_partners) if request.eval_partners else sorted({p.partner for p in in_domain})
    seats = _seats(request.eval_seats) if request.eval_seats else sorted({p.seat for p in in_domain})
    prompts = {p.prompt for p in in_domain}
    prompt = request.eval_prompt or (prompts.pop() if len(prompts) == 1 else None)
    first, episodes = _given(request.eval_seed, DEFAULT_SEED), _given(request.eval_episodes, DEFAULT_EPISODES)
    seeds = range(first, first + episodes)
    _held_out(layouts, seeds, in_domain)
    arm = {"kind": PROAGENT, "llm": llm, "prompt": prompt, "adapter": NO_ADAPTER}  # the student's is added later
    data = {
        "name": "finetune-eval",
        "domain": domain,
        "agents": [{**arm, "label": STUDENT}, {**arm, "label": RAW}],
        "partners": partners or [DEFAULT_PARTNER],
        "layouts": layouts,
        "seats": seats or [0],
        "episodes": episodes,
        "seed": first,
        "horizon": request.eval_horizon,
        "concurrency": _given(request.eval_concurrency, DEFAULT_CONCURRENCY),
        **({"cache_dir": request.cache_dir.absolute()} if request.cache_dir is not None else {}),
    }
    config = validate_config(data, "--eval flags", EvalConfig)
    assert isinstance(config, EvalConfig)
    return config


def with_adapter(config: EvalConfig, adapter: Path) -> EvalConfig:
    """``config`` with the student playing ``adapter`` (validated again, as every config)."""
    from proagent.eval.config import EvalConfig, validate_config
    from proagent.finetune.scores import STUDENT

    data = config.model_dump(mode="json")
    data["agents"] = [{**a, "adapter": str(adapter)} if a["label"] == STUDENT else a for a in data["agents"]]
    checked = validate_config(data, "--eval with the adapter", EvalConfig)
    assert isinstance(checked, EvalConfig)
    return checked


def check_request(config: EvalConfig, world: World) -> None:
    """Every name in the request exists and the model loads (ConfigError: one line), before training."""
    from proagent.eval.world import resolve

    resolve(config, world)


def play_student(
    config: EvalConfig, out_dir: Path, world: World, request: FinetuneRequest, adapter_sha256: str
) -> StudentEvaluation:
    """Play both arms into ``out_dir/eval/``, write the run's tables, and summarise it."""
    from rich.console import Console

    from proagent.eval.progress import ProgressLines
    from proagent.eval.session import play_run, report_run, start_run

    handle = start_run(config, world, shlex.join(request.command_line), out_dir / EVAL_FOLDER)
    print(f"evaluation run folder: {handle.folder.path}", file=sys.stderr)
    lines = ProgressLines(request.progress_every, request.progress_seconds)
    outcome = asyncio.run(play_run(handle, world, request.progress, Console(stderr=True), lines))
    report_run(handle.folder.path)
    folder = folder_in(handle.folder.path, out_dir)
    return summarise(config, outcome.records, folder, len(outcome.failures), adapter_sha256)


def folder_in(folder: Path, out_dir: Path) -> str:
    """``folder`` as the manifest names it, relative to ``out_dir`` whether ``--out`` was given
    relative (the run folder's path is absolute) or absolute."""
    return Path(os.path.relpath(folder.absolute(), out_dir.absolute())).as_posix()


def _arm(stat: MeanSE) -> ArmScore:
    from proagent.finetune.scores import ArmScore

    bounds = stat.interval()
    low, high = (None, None) if bounds is None else bounds
    return ArmScore(n=stat.n, mean=stat.mean, se=stat.se, low=low, high=high)


def summarise(
    config: EvalConfig, records: Sequence[EvalRecord], folder: str, failed: int, adapter_sha256: str
) -> StudentEvaluation:
    """Each arm's score and undo loops (mean, n, 95% interval), and the student's paired gain over the raw model."""
    from proagent.eval.stats import metric_stat, paired_difference
    from proagent.finetune.scores import RAW, STUDENT, StudentEvaluation

    by_arm = {arm: [r for r in records if r.agent == arm] for arm in (STUDENT, RAW)}
    scores = {arm: {(r.partner, r.layout, r.seat, r.episode): r.score for r in rs} for arm, rs in by_arm.items()}
    student = next(a for a in config.agents if a.name == STUDENT)
    return StudentEvaluation(
        run_folder=folder,
        llm=student.llm,
        adapter_sha256=adapter_sha256,
        prompt=student.prompt,
        domain=config.domain,
        layouts=config.layouts,
        partners=config.partners,
        seats=config.seats,
        seeds=list(range(config.seed, config.seed + config.episodes)),
        horizon=config.horizon,
        score={arm: _arm(metric_stat(rs, "score")) for arm, rs in by_arm.items()},
        score_difference=_arm(paired_difference(scores[STUDENT], scores[RAW])),
        oscillations={arm: _arm(metric_stat(rs, "oscillations")) for arm, rs in by_arm.items()},
        episodes_failed=failed,
    )
