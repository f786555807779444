#!/usr/bin/env bash
# Train the population partners of the zoo on this machine, one run after another, into
# partners/overcooked/<layout>/<algo>/ (--ship --overwrite: over the shipped checkpoint; histories stay git-ignored).
#   scripts/train_zoo.sh STEPS LAYOUT[,LAYOUT...] ALGO[,ALGO...]
#   e.g. scripts/train_zoo.sh 1200000 cramped_room,forced_coordination cole,fcp,mep,pbt
# STEPS is the whole-algorithm env-step budget (all stages and members); logs go to runs/zoo_logs/.
# The shipped agents start from the layout's SP checkpoint (--warm-start sp): a CPU-budget shortcut.
# The shipped checkpoints were made by this script on a 2-core CPU (budgets in partners/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=$1
IFS=, read -ra layouts <<<"$2"
IFS=, read -ra algos <<<"$3"
mkdir -p runs/zoo_logs
for layout in "${layouts[@]}"; do
  for algo in "${algos[@]}"; do
    log="runs/zoo_logs/${layout}_${algo}.log"
    echo "$(date -u +%H:%M:%S) $algo $layout $steps -> $log"
    proagent train --algo "$algo" --layout "$layout" --seed 0 --steps "$steps" --encoder fast --warm-start sp \
      --ship --overwrite >"$log" 2>&1
    tail -n 1 "$log"
  done
done
