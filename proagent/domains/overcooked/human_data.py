"""Human-human trials as engine states, observations and (observation, action) samples.

The shipped file ``data/human/hh_2019_sample.jsonl.gz`` (see its README: one trial per layout, a
weak human model) stores a minimal symbolic state per timestep. Here each one is rebuilt as an
engine ``EnvState`` (positions, facings, held items, counter items, pots; ``step`` = the data's
timestep, ``done`` False), so that ``env.observe`` gives exactly the observation a trained policy
sees in that situation. ``record_of(env.symbolic(state))`` decodes it back to the file's format;
the tests check that round trip on every timestep.

Samples. Each timestep gives two samples, one per seat: (that seat's observation, that seat's
action). Idle humans: about half of the recorded actions are STAY, mostly UI timing (the game loop
records STAY whenever a player pressed no key in a tick, in runs of 1-45 ticks), not decisions.
``max_stay_run`` says how many STAYs of each of a player's STAY runs are kept: ``None`` keeps them
all (a faithful but very idle imitation), ``0`` drops every STAY (the default for behaviour
cloning, see ``proagent.training.bc``), ``k`` keeps the first k of each run.

Validation. Consecutive timesteps are near-duplicates, so a random split would leak. The last
``val_fraction`` of each trial (by time) is held out instead.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from envs import Action, EnvState, OvercookedEnv
from envs.overcooked.engine import DynamicObject
from envs.overcooked.symbolic import Item, KitchenState
from proagent.paths import DATA_DIR

HUMAN_DATA = DATA_DIR / "human" / "hh_2019_sample.jsonl.gz"
PROVENANCE = (
    "2019 human-human Overcooked sample (overcooked_ai, HumanCompatibleAI, MIT licence): "
    "one human-human trial of ~1,200 steps on this layout; weak human model"
)


@dataclass(frozen=True)
class Trial:
    """One human-human game: its header and its timesteps (records in the file's format)."""

    layout: str  # our layout name
    source_layout: str  # the data's name (random3 for counter_circuit)
    trial_id: int
    grid: tuple[str, ...]
    cook_time: int
    score: float
    steps: tuple[dict, ...]

    @property
    def actions(self) -> np.ndarray:
        """(T, 2) int32, our Action indices."""
        return np.array([s["actions"] for s in self.steps], dtype=np.int32)


def load_trials(layout: str | None = None, path: Path = HUMAN_DATA) -> list[Trial]:
    """All trials in the file, or those of one layout (our name, e.g. counter_circuit)."""
    trials: list[Trial] = []
    header, steps = None, []

    def close() -> None:
        if header is not None:
            if len(steps) != header["steps"]:
                raise ValueError(
                    f"{path}: trial {header['trial_id']} has {len(steps)} steps, header says {header['steps']}"
                )
            trials.append(
                Trial(
                    layout=header["layout"],
                    source_layout=header["source_layout"],
                    trial_id=header["trial_id"],
                    grid=tuple(header["grid"]),
                    cook_time=header["cook_time"],
                    score=header["score"],
                    steps=tuple(steps),
                )
            )

    with gzip.open(path, "rt") as f:
        for line in f:
            record = json.loads(line)
            if record["type"] == "trial":
                close()
                header, steps = record, []
            else:
                steps.append(record)
    close()
    if layout is not None:
        trials = [t for t in trials if t.layout == layout]
        if not trials:
            have = sorted({t.layout for t in load_trials(path=path)})
            raise ValueError(f"no human trials for layout {layout!r} in {path}; have {have}")
    return trials


def check_layout(env: OvercookedEnv, trial: Trial) -> None:
    """The trial's grid must be our layout's, tile for tile (player starts aside)."""
    ours = tuple("".join(" " if c in "0123456789" else c for c in row) for row in env.layout.to_ascii().split("\n"))
    if ours != trial.grid:
        raise ValueError(
            f"human trial {trial.trial_id} ({trial.source_layout}) was played on\n" + "\n".join(trial.grid)
            + f"\nwhich is not our {env.layout.name}:\n" + "\n".join(ours)
        )
    if trial.cook_time != env.dynamics.cook_time:
        raise ValueError(f"trial cook time {trial.cook_time} != env cook time {env.dynamics.cook_time}")


# ---- symbolic record <-> engine codes ----

INGREDIENTS = ("onion", "tomato")


def item_code(item: str | None) -> int:
    """An item string of the file to the engine's bitfield."""
    if item is None:
        return 0
    if item == "dish":
        return int(DynamicObject.PLATE)
    if item in INGREDIENTS:
        return int(DynamicObject.BASE_INGREDIENT) << (2 * INGREDIENTS.index(item))
    if item.startswith("soup:"):
        counts = [int(n) for n in item[len("soup:") :].split(",")]
        return int(DynamicObject.PLATE | DynamicObject.COOKED) | _ingredient_bits(counts)
    raise ValueError(f"unknown item {item!r}")


def _ingredient_bits(counts: Sequence[int]) -> int:
    return sum(n << (2 + 2 * i) for i, n in enumerate(counts))


def item_string(item: Item | None) -> str | None:
    """A decoded Item back to the file's item string."""
    if item is None:
        return None
    if item.kind == "dish":
        return "dish"
    if item.kind == "ingredient":
        return INGREDIENTS[item.ingredients[0]]
    return "soup:" + ",".join(str(item.ingredients.count(i)) for i in range(len(INGREDIENTS)))


def record_of(kitchen: KitchenState) -> dict:
    """The file's state fields (players, counters, pots) of a decoded state."""
    players = [[p.position[0], p.position[1], int(p.orientation), item_string(p.held)] for p in kitchen.players]
    counters = sorted([x, y, item_string(item)] for (x, y), item in kitchen.counter_items.items())
    pots = []
    for pot in kitchen.pots:
        if pot.is_empty:
            continue
        status = "ready" if pot.ready else "cooking" if pot.cooking else "idle"
        counts = [pot.ingredients.count(i) for i in range(len(INGREDIENTS))]
        pots.append([pot.position[0], pot.position[1], *counts, status, pot.ticks_left])
    return {"players": players, "counters": counters, "pots": sorted(pots)}


def build_states(env: OvercookedEnv, steps: Sequence[dict]) -> EnvState:
    """Engine states for records (a batch, leading axis len(steps)); built on the host in numpy."""
    template = jax.device_get(env.reset(jax.random.PRNGKey(0)))
    n, agents = len(steps), env.num_agents
    grid = np.broadcast_to(np.asarray(template.grid), (n, *template.grid.shape)).copy()
    grid[..., 1:] = 0
    x = np.zeros((n, agents), np.int32)
    y, direction, inventory = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for i, record in enumerate(steps):
        for a, (px, py, d, held) in enumerate(record["players"]):
            x[i, a], y[i, a], direction[i, a], inventory[i, a] = px, py, d, item_code(held)
        for cx, cy, item in record["counters"]:
            grid[i, cy, cx, 1] = item_code(item)
        for px, py, onions, tomatoes, status, ticks in record["pots"]:
            code = _ingredient_bits([onions, tomatoes])
            if status == "ready":
                code |= int(DynamicObject.COOKED)
            grid[i, py, px, 1] = code
            grid[i, py, px, 2] = ticks if status == "cooking" else 0
    t = np.array([r["t"] for r in steps], dtype=np.asarray(template.step).dtype)

    def batch(leaf):
        leaf = np.asarray(leaf)
        return np.broadcast_to(leaf, (n, *leaf.shape)).copy()

    state = jax.tree.map(batch, template)
    state = state.replace(
        agents=state.agents.replace(
            pos=state.agents.pos.replace(x=x, y=y),
            dir=direction.astype(np.asarray(template.agents.dir).dtype),
            inventory=inventory.astype(np.asarray(template.agents.inventory).dtype),
        ),
        grid=grid.astype(np.asarray(template.grid).dtype),
        step=t,
        done=np.zeros(n, bool),
    )
    return jax.tree.map(jnp.asarray, state)


def index_state(states: EnvState, i: int) -> EnvState:
    return jax.tree.map(lambda leaf: leaf[i], states)


def replay_agreement(env: OvercookedEnv, trial: Trial, start: int = 0, stop: int | None = None) -> float:
    """Fraction of the trial's transitions t -> t+1 (start <= t < stop) that our engine reproduces:
    step(state_t, actions_t) decoded equals the recorded state t+1 (players, counters, pots).
    A check of the dynamics, the action mapping and the alignment of actions with states."""
    steps = trial.steps[start : (len(trial.steps) if stop is None else stop + 1)]
    states = build_states(env, steps)
    keys = jax.random.split(jax.random.PRNGKey(0), len(steps) - 1)
    actions = jnp.asarray(np.array([s["actions"] for s in steps[:-1]], dtype=np.int32))
    current = jax.tree.map(lambda leaf: leaf[:-1], states)
    nxt = jax.device_get(jax.jit(jax.vmap(env.step))(keys, current, actions).state)
    same = [record_of(env.symbolic(index_state(nxt, i))) == _state_fields(steps[i + 1]) for i in range(len(keys))]
    return float(np.mean(same))


def _state_fields(record: dict) -> dict:
    return {k: record[k] for k in ("players", "counters", "pots")}


# ---- behaviour-cloning samples ----


@dataclass(frozen=True)
class Samples:
    """(observation, action) pairs; obs (N, H, W, C) as the engine gives them, actions (N,) int32."""

    obs: np.ndarray
    actions: np.ndarray
    seats: np.ndarray  # (N,) which seat each sample was played from
    timesteps: np.ndarray  # (N,) the data's timestep

    def __len__(self) -> int:
        return len(self.actions)


def stay_mask(actions: np.ndarray, max_stay_run: int | None) -> np.ndarray:
    """(T,) actions of one player -> which to keep: non-STAY always, and the first
    ``max_stay_run`` of each run of STAYs (all with None)."""
    keep = np.ones(len(actions), bool)
    if max_stay_run is None:
        return keep
    run = 0
    for t, a in enumerate(actions):
        run = run + 1 if a == Action.STAY else 0
        keep[t] = run <= max_stay_run
    return keep


def trial_samples(env: OvercookedEnv, trial: Trial, max_stay_run: int | None = 0) -> Samples:
    """Both seats' samples of one trial, time-ordered per seat (seat 0 first)."""
    check_layout(env, trial)
    obs = np.asarray(jax.jit(jax.vmap(env.observe))(build_states(env, trial.steps)))  # (T, A, H, W, C)
    actions = trial.actions
    t = np.array([s["t"] for s in trial.steps])
    parts = []
    for seat in range(env.num_agents):
        keep = stay_mask(actions[:, seat], max_stay_run)
        parts.append(
            Samples(obs[keep, seat], actions[keep, seat], np.full(int(keep.sum()), seat, np.int32), t[keep])
        )
    return concat(parts)


def concat(parts: Sequence[Samples]) -> Samples:
    return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("obs", "actions", "seats", "timesteps")))


def split(samples: Samples, boundary: int) -> tuple[Samples, Samples]:
    """(timestep < boundary, timestep >= boundary)."""
    early = samples.timesteps < boundary
    take = lambda m: Samples(samples.obs[m], samples.actions[m], samples.seats[m], samples.timesteps[m])
    return take(early), take(~early)


def bc_dataset(
    env: OvercookedEnv, max_stay_run: int | None = 0, val_fraction: float = 0.2, path: Path = HUMAN_DATA
) -> tuple[Samples, Samples]:
    """(train, validation) samples of every trial on ``env``'s layout; validation = the last
    ``val_fraction`` of each trial by time."""
    train, val = [], []
    for trial in load_trials(env.layout.name, path):
        samples = trial_samples(env, trial, max_stay_run)
        boundary = trial.steps[0]["t"] + round((1.0 - val_fraction) * len(trial.steps))
        a, b = split(samples, boundary)
        train.append(a)
        val.append(b)
    return concat(train), concat(val)
