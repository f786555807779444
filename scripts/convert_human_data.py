"""One-off: convert the 2019 human-human sample (a pandas pickle) into data/human/hh_2019_sample.jsonl.gz.

    pip install pandas   # only for this script; the project does not need it at run time
    python scripts/convert_human_data.py [PATH/2019_hh_trials_sample.pickle]

The pickle is overcooked_ai's ``src/human_aware_rl/static/human_data/dummy/2019_hh_trials_sample.pickle``
(see data/human/README.md); without an argument it is read from the current directory.

The output is dependency-free gzipped JSON lines, read by ``proagent.domains.overcooked.human_data``:

- one ``{"type": "trial", ...}`` header per trial: our layout name, the data's own layout name,
  trial id, the data's grid (player digits blanked), cook time, number of steps;
- one ``{"type": "step", ...}`` line per timestep of that trial, in order:
  ``t`` (the data's ``cur_gameloop``), ``players`` = ``[[x, y, dir, held], ...]`` (dir in our
  ``Direction`` indices, held an item string or null), ``counters`` = ``[[x, y, item], ...]``,
  ``pots`` = ``[[x, y, n_onions, n_tomatoes, status, ticks_left], ...]`` (non-empty pots only,
  status idle/cooking/ready, ticks_left = cook_time - cooking_tick while cooking), ``actions`` =
  the joint action taken *from this state* in our ``Action`` indices, ``reward`` = its score delta.

Item strings: ``onion``, ``tomato``, ``dish``, ``soup:<n_onions>,<n_tomatoes>``.
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = Path("2019_hh_trials_sample.pickle")
OUT = ROOT / "data" / "human" / "hh_2019_sample.jsonl.gz"

LAYOUT_NAMES = {"cramped_room": "cramped_room", "asymmetric_advantages": "asymmetric_advantages", "random3": "counter_circuit"}
DIRECTIONS = {(0, -1): 0, (0, 1): 1, (1, 0): 2, (-1, 0): 3}  # envs.Direction: UP, DOWN, RIGHT, LEFT
MOVES = {(0, -1): 0, (0, 1): 1, (1, 0): 2, (-1, 0): 3, (0, 0): 4}  # envs.Action; INTERACT = 5


def action_index(a) -> int:
    if a == "INTERACT" or a == "interact":
        return 5
    return MOVES[tuple(a)]


def counts(ingredients: list[dict]) -> tuple[int, int]:
    names = [i["name"] for i in ingredients]
    unknown = set(names) - {"onion", "tomato"}
    if unknown:
        raise ValueError(f"unknown ingredients {unknown}")
    return names.count("onion"), names.count("tomato")


def item_string(obj: dict | None) -> str | None:
    if obj is None:
        return None
    if obj["name"] in ("onion", "tomato", "dish"):
        return obj["name"]
    if obj["name"] == "soup":
        onions, tomatoes = counts(obj["_ingredients"])
        return f"soup:{onions},{tomatoes}"
    raise ValueError(f"unknown object {obj['name']!r}")


def convert_state(state: dict, pots: set[tuple[int, int]]) -> dict:
    players = []
    for p in state["players"]:
        x, y = p["position"]
        players.append([x, y, DIRECTIONS[tuple(p["orientation"])], item_string(p["held_object"])])
    counters, pot_rows = [], []
    for obj in state["objects"]:
        x, y = obj["position"]
        if (x, y) in pots:
            if obj["name"] != "soup":
                raise ValueError(f"non-soup object in a pot: {obj}")
            onions, tomatoes = counts(obj["_ingredients"])
            if obj["is_ready"]:
                status, ticks = "ready", 0
            elif obj["is_cooking"]:
                status, ticks = "cooking", obj["cook_time"] - obj["cooking_tick"]
            else:
                status, ticks = "idle", 0
            pot_rows.append([x, y, onions, tomatoes, status, ticks])
        else:
            counters.append([x, y, item_string(obj)])
    return {"players": players, "counters": sorted(counters), "pots": sorted(pot_rows)}


def main(source: Path = DEFAULT_SOURCE) -> None:
    df = pd.read_pickle(source)
    lines: list[str] = []
    for (layout_name, trial_id), trial in df.groupby(["layout_name", "trial_id"], sort=True):
        trial = trial.sort_values("cur_gameloop")
        grid = [row for row in ast.literal_eval(trial["layout"].iloc[0])]
        pots = {(x, y) for y, row in enumerate(grid) for x, c in enumerate(row) if c == "P"}
        cook_times = {
            o["cook_time"]
            for s in trial["state"]
            for o in json.loads(s)["objects"]
            if o["name"] == "soup" and o.get("cook_time", -1) > 0
        }
        if len(cook_times) > 1:
            raise ValueError(f"several cook times in trial {trial_id}: {cook_times}")
        steps = []
        for _, row in trial.iterrows():
            record = {"type": "step", "t": int(row["cur_gameloop"])}
            record.update(convert_state(json.loads(row["state"]), pots))
            record["actions"] = [action_index(a) for a in ast.literal_eval(row["joint_action"])]
            record["reward"] = float(row["reward"])
            steps.append(record)
        header = {
            "type": "trial",
            "layout": LAYOUT_NAMES[layout_name],
            "source_layout": layout_name,
            "trial_id": int(trial_id),
            "grid": ["".join(" " if c.isdigit() else c for c in row) for row in grid],
            "source_starts": [[x, y] for d in "12" for y, row in enumerate(grid) for x, c in enumerate(row) if c == d],
            "cook_time": cook_times.pop() if cook_times else 20,
            "steps": len(steps),
            "score": float(trial["reward"].sum()),
        }
        lines.append(json.dumps(header, separators=(",", ":")))
        lines.extend(json.dumps(s, separators=(",", ":")) for s in steps)
        print(f"{layout_name} (trial {trial_id}) -> {header['layout']}: {len(steps)} steps, score {header['score']:.0f}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(OUT, "wb", mtime=0) as f:  # mtime=0: the same input gives the same bytes
        f.write(("\n".join(lines) + "\n").encode())
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE)
