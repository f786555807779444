#!/usr/bin/env bash
# Train a layout's population agents from scratch (no warm start) on one GPU, one run at a time.
#   scripts/train_zoo_gpu.sh OUT_ROOT LAYOUT [SCALE] [ALGOS]
# Partners land in OUT_ROOT/overcooked/<layout>/<algo>/ (a partners/ tree; human_proxy gives one folder per
# style), logs in OUT_ROOT/logs/<layout>_<algo>.log. SCALE multiplies every step budget (1: 80M env
# steps for COLE, 120M for FCP and MEP, 40M for PBT and the human proxies); ALGOS is a
# comma-separated subset of cole,fcp,mep,pbt,human_proxy (default: all, in that order).
# Each algorithm has its own seed, so no two share initial weights (FCP's pool and MEP's population
# would otherwise start identical).
#
# Why one run at a time with many envs: a GPU program's speed is bound by its sequential env-step
# iterations. On an H100 (fast encoder, counter_circuit) one process ran 1.45M env-steps/s (COLE,
# 1024 envs) to 2.2M (FCP's pool, 2048 envs); three concurrent processes got 160-320k each.
# FCP and MEP use 512 envs: their best response needs many updates (310 updates of 262k steps left
# the first GPU try's FCP near uniform), and the pool members get 64 envs each, like a CPU run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$1 layout=$2 scale=${3:-1} algos=${4:-cole,fcp,mep,pbt,human_proxy}
steps() { python3 -c "print(int($1 * $scale))"; }
mkdir -p "$root/logs"
train() {  # algo, seed, then more proagent train arguments
  local algo=$1 seed=$2; shift 2
  [[ ",$algos," == *",$algo,"* ]] || return 0
  local log="$root/logs/${layout}_${algo}.log"
  python3 -m proagent.training.cli --algo "$algo" --layout "$layout" --seed "$seed" --encoder fast \
    --out "$root/overcooked/$layout/$algo" --set num_minibatches=8 "$@" >"$log" 2>&1 \
    && tail -n 1 "$log" || echo "$layout $algo FAILED (see $log)"
}
train cole 0 --steps "$(steps 8e7)" --num-envs 1024 --algo-set generations=10
train fcp 2 --steps "$(steps 1.2e8)" --num-envs 512 --algo-set pool_members=8 --algo-set include_shipped_sp=false
train mep 3 --steps "$(steps 1.2e8)" --num-envs 512 --algo-set population=8
train pbt 4 --steps "$(steps 4e7)" --num-envs 512
train human_proxy 5 --steps "$(steps 4e7)" --num-envs 512
