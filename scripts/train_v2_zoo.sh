#!/usr/bin/env bash
# Train OvercookedV2 partners (the paper's six coordination layouts) one run after another, into
# partners/overcooked/ (--ship --overwrite: over the shipped checkpoints).
#   scripts/train_v2_zoo.sh STEPS LAYOUT[,LAYOUT...] ALGO[,ALGO...] [SEED[,SEED...]]
#   e.g. scripts/train_v2_zoo.sh 3000000 demo_cook_simple,grounded_coord_simple sp,op,state_aug,fcp 0,1
# Seed 0 writes partners/overcooked/<layout>/<algo>, seed s > 0 .../<algo>_s<s> (SP/XP matrices).
# CPU budget (what shipped): the CPU-sized recurrent network (--encoder auto on CPU), 32 envs x 128
# steps, entropy 0.01, shaping annealed over 3/5 of the run (10M steps with shaping over 6M learn
# several times faster than 3M with shaping over 2.5M; partners/README.md); self-play keeps its best
# 10-call window and ships it when it evaluates higher (--keep-best). With
# V2_PAPER=1 it runs the paper's recipe instead (App. D.2, Tables 7-11: its network, 256 envs x 256 steps, 64 minibatches, lr 2.5e-4,
# grad norm 0.25; Other-Play 64 envs, entropy 0.02; FCP lr 7e-4, entropy 0.04, GAE 0.9); give it
# STEPS=30000000 (Other-Play 50000000) and a GPU. Logs go to runs/zoo_logs/.
# SHAPING_FRACTION=1/2 anneals the shaping over half the run (the paper's 15M of 30M) on the CPU network
# too: test_time_wide's `sp_s2` (30M steps, 72 min on one core) began to serve at 9.4M steps,
# with shaping at 37% of its weight, and reached the paper's self-play (0.99x), as grounded_coord_simple's
# did (1.03x; from 10.9M steps); test_time_simple 0.72x.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=$1
IFS=, read -ra layouts <<<"$2"
IFS=, read -ra algos <<<"$3"
IFS=, read -ra seeds <<<"${4:-0}"
fraction=${SHAPING_FRACTION:-3/5}
shaping=$((steps * ${fraction%/*} / ${fraction#*/}))
mkdir -p runs/zoo_logs
for layout in "${layouts[@]}"; do
  for algo in "${algos[@]}"; do
    for seed in "${seeds[@]}"; do
      name=$algo
      [ "$seed" != 0 ] && name="${algo}_s${seed}"
      flags=(--set ent_coef=0.01)
      [ "$algo" = sp ] && flags+=(--keep-best 10)
      if [ "${V2_PAPER:-0}" = 1 ]; then
        shaping=$((steps / 2))
        flags=(--network-set memory=128 --network-set fc_dim=128 --network-set 'pointwise=[128,128,8]'
          --network-set 'spatial=[16,32,32]' --num-envs 256 --set num_steps=256 --set num_minibatches=64
          --set lr=0.00025 --set max_grad_norm=0.25 --set ent_coef=0.01)
        case $algo in
          op) flags+=(--num-envs 64 --set ent_coef=0.02) ;;
          fcp) flags+=(--set lr=0.0007 --set ent_coef=0.04 --set gae_lambda=0.9) ;;
        esac
      fi
      log="runs/zoo_logs/${layout}_${name}.log"
      echo "$(date -u +%H:%M:%S) $algo $layout seed $seed $steps -> $log"
      proagent train --algo "$algo" --layout "$layout" --seed "$seed" --steps "$steps" --shaping-horizon "$shaping" \
        --encoder auto "${flags[@]}" --ship "$name" --overwrite >"$log" 2>&1
      tail -n 1 "$log"
    done
  done
done
