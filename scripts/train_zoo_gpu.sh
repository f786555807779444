#!/usr/bin/env bash
# Train COLE, FCP and MEP agents for one layout from scratch (no warm start) on one GPU.
#   scripts/train_zoo_gpu.sh OUT_ROOT LAYOUT [SCALE]
# Partners land in OUT_ROOT/<layout>/<algo>_gpu/ (a partners/ tree), logs in OUT_ROOT/logs/.
# SCALE multiplies every step budget (1: 80M env steps for COLE, 160M for FCP and MEP).
#
# One run at a time, each with many envs: a GPU program's speed is bound by its sequential env-step
# iterations. On an H100 (fast encoder, counter_circuit) one process ran 1.45M env-steps/s (COLE,
# 1024 envs) to 2.2M (FCP's pool, 2048 envs); three concurrent processes got 160-320k each, and
# 64 envs a learner 12-80k. The fast encoder also keeps the agents quick on a CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$1 layout=$2 scale=${3:-1}
steps() { python3 -c "print(int($1 * $scale))"; }
mkdir -p "$root/logs"
train() {  # algo, then more proagent train arguments
  local algo=$1; shift
  local log="$root/logs/${algo}_gpu.log"
  python3 -m proagent.training.cli --algo "$algo" --layout "$layout" --seed 0 --encoder fast \
    --out "$root/$layout/${algo}_gpu" --set num_minibatches=8 "$@" >"$log" 2>&1 \
    && tail -n 1 "$log" || echo "$algo FAILED (see $log)"
}
train cole --steps "$(steps 8e7)" --num-envs 1024 --algo-set generations=10
train fcp --steps "$(steps 1.6e8)" --num-envs 2048 --algo-set pool_members=8 --algo-set include_shipped_sp=false
train mep --steps "$(steps 1.6e8)" --num-envs 2048 --algo-set population=8
