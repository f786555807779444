#!/usr/bin/env bash
# Train the population partners of the zoo on this machine, one run after another, into partners/.
#   scripts/train_zoo.sh [STEPS_COUNTER_CIRCUIT] [STEPS_OTHER_LAYOUTS]
# Budgets are whole-algorithm env steps (all stages and members); logs go to runs/zoo_logs/.
# The shipped checkpoints were made by this script on a 2-core CPU (see partners/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-2500000}
small=${2:-2000000}
mkdir -p runs/zoo_logs
for layout in counter_circuit cramped_room coordination_ring asymmetric_advantages forced_coordination; do
  steps=$small
  [ "$layout" = counter_circuit ] && steps=$big
  for algo in cole fcp mep pbt; do
    log="runs/zoo_logs/${layout}_${algo}.log"
    echo "$(date -u +%H:%M:%S) $algo $layout $steps -> $log"
    proagent train --algo "$algo" --layout "$layout" --seed 0 --steps "$steps" --encoder fast >"$log" 2>&1
    tail -1 "$log"
  done
done
