"""Golden runs: a Table-1-style evaluation whose episodes must not change under a refactor.

ProAgent (through the real HTTP path: litellm -> the loopback FakeChatServer with the tests'
Overcooked responder, tests/support, no cache) and a scripted agent play the five classic layouts from both seats
with several zoo partners. Per episode, the score, soups, LLM calls, decisions, rejections and
parse failures are kept in ``tests/golden/eval_heuristic.json``. ``--record`` writes that file (do
it only before a refactor starts, on the code the refactor must reproduce); the default compares a
fresh run with it and exits 1, listing every episode that differs.

Run: ``python scripts/golden_runs.py [--record] [--horizon 100]`` (about 1 min on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from proagent.cli import main as proagent_main

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "eval_heuristic.json"
LAYOUTS = ("cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit")
PARTNERS = ("greedy", "sp", "cole")
FIELDS = ("score", "soups", "wrong_soups", "llm_calls", "decisions", "rejections", "parse_failures", "fallbacks", "steps")


def play(horizon: int) -> dict[str, dict]:
    """Run the grid; one entry per episode key (agent|partner|layout|seat|episode)."""
    sys.path.insert(0, str(ROOT))  # the test doubles: tests.support (never tests/, which would shadow envs)
    from tests.support.fake_server import FakeChatServer
    from tests.support.loopback import loopback_args
    from tests.support.responders.overcooked import overcooked_answer

    with FakeChatServer(responder=overcooked_answer) as server, tempfile.TemporaryDirectory() as runs:
        argv = ["eval", "--agents", "proagent,greedy", "--partners", ",".join(PARTNERS), "--layouts", ",".join(LAYOUTS)]
        argv += ["--seats", "0,1", "--episodes", "1", "--horizon", str(horizon), "--seed", "0"]
        argv += loopback_args(server.url)
        argv += ["--runs-dir", runs, "--progress", "off", "--name", "golden"]
        if proagent_main(argv) != 0:
            raise SystemExit("the golden evaluation failed; see the messages above")
        lines = next(Path(runs).glob("*-golden/episodes.jsonl")).read_text(encoding="utf-8").splitlines()
    records = [_flat(json.loads(line)) for line in lines if line.strip()]
    return {_key(r): {f: r[f] for f in FIELDS} for r in sorted(records, key=_key)}


def _flat(record: dict) -> dict:
    """A record with its domain metrics (soups) top-level again, as the golden file has them."""
    return {**record, **record.get("domain_metrics", {})}


def _key(record: dict) -> str:
    return f"{record['agent']}|{record['partner']}|{record['layout']}|p{record['seat']}|{record['episode']}"


def differences(expected: dict, actual: dict) -> list[str]:
    """One line per episode that is missing, new or different."""
    out = [f"missing: {k}" for k in sorted(expected.keys() - actual.keys())]
    out += [f"new: {k}" for k in sorted(actual.keys() - expected.keys())]
    for key in sorted(expected.keys() & actual.keys()):
        changed = {f: (expected[key][f], actual[key][f]) for f in FIELDS if expected[key].get(f) != actual[key].get(f)}
        if changed:
            out.append(f"{key}: " + ", ".join(f"{f} {a} -> {b}" for f, (a, b) in changed.items()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="overwrite the golden file with this run")
    parser.add_argument("--horizon", type=int, default=100)
    args = parser.parse_args()
    actual = {"horizon": args.horizon, "episodes": play(args.horizon)}
    if args.record:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(actual['episodes'])} episodes in {GOLDEN}")
        return 0
    expected = json.loads(GOLDEN.read_text())
    if expected["horizon"] != args.horizon:
        raise SystemExit(f"the golden file was recorded with --horizon {expected['horizon']}")
    diff = differences(expected["episodes"], actual["episodes"])
    print("\n".join(diff) if diff else f"all {len(expected['episodes'])} golden episodes reproduced exactly")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
