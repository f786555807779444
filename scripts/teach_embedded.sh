#!/usr/bin/env bash
# Makes the embedded model's adapters again (data/adapters/smollm2-135m-taught, the second stage, and the default,
# its third stage, data/adapters/smollm2-135m-plan-weighted; docs/finetune.md):
# the worlds' scripted planners play as teachers (the student's prompt set and grammar: --prompt compact
# --legal-only on; seeds from 100, so the evaluation's seeds 0-4 stay unseen), then `proagent finetune`
# teaches the bundled SmolLM2-135M their decisions in three stages: counter_circuit alone (the README's
# kitchen, 200 steps of 4); every world, starting from that adapter (--init-adapter; 80 steps of 16, the
# last episode of each world held out and scored at every checkpoint: data/adapters/smollm2-135m-taught);
# then every world but Yōkai from the second stage's adapter, each skill capped and the plan's tokens
# weighed five times (10 steps of 16: the default adapter, data/adapters/smollm2-135m-plan-weighted). The
# last two stages play their student against the raw model on counter_circuit with cole.
#
#   scripts/teach_embedded.sh OUT_FOLDER
#
# The shipped second stage was taught Yōkai's earlier compact prompts (before their short state; see
# CHANGELOG): made again now, its Yōkai examples are the shorter prompts, so its bytes differ, and so do the
# third stage's, which starts from it (the third stage itself teaches no Yōkai).
#
# Left out as teachers: both seats of grounded_coord_simple, and cramped_room_v2's seat 0 (the
# scripted planner scores 0 or less there: nothing to teach).
# On 2 CPU cores: about 4 minutes of play, 35 minutes for the first stage, about an hour and a half for
# the second, 20-25 minutes for the third (a stopped stage continues with the same line plus --resume) and
# 20-30 minutes of evaluation a stage (the raw model's episodes are the long ones).
set -euo pipefail
out=${1:?usage: scripts/teach_embedded.sh OUT_FOLDER}
runs="$out/runs"
mkdir -p "$runs"
teach=(--llm scripted --prompt compact --legal-only on --episodes 1 --no-gif --live off --runs-dir "$runs")
for partner in cole greedy sp; do  # the README's kitchen: five episodes each (seeds 100-104)
  for seat in 0 1; do
    proagent play --layout counter_circuit --partner "$partner" --seat "$seat" --seed 100 --horizon 400 \
      "${teach[@]}" --episodes 5
  done
done
for layout in cramped_room asymmetric_advantages coordination_ring forced_coordination; do
  for partner in cole sp greedy; do
    for seat in 0 1; do
      proagent play --layout "$layout" --partner "$partner" --seat "$seat" --seed 100 --horizon 400 "${teach[@]}"
    done
  done
done
proagent play --layout cramped_room_v2 --seat 1 --seed 100 "${teach[@]}"
for seed in 100 101 102 103; do
  for layout in easy_2a medium_3a; do
    proagent play --domain cube --layout "$layout" --seed "$seed" "${teach[@]}"
  done
done
for layout in easy_2a medium_3a; do
  proagent play --domain macrafter --layout "$layout" --seed 100 "${teach[@]}"
done
for seed in 100 101 102 103; do
  for layout in 9c_2p 9c_3p; do
    proagent play --domain yokai --layout "$layout" --seed "$seed" "${teach[@]}"
  done
done
cd "$out"
proagent finetune runs/*-counter_circuit-* --out adapter_counter_circuit --steps 200 --batch-size 4 --lr 1e-3 \
  --rank 8 --holdout 2 --max-tokens 1600 --seed 0 --progress off
proagent finetune runs/* --out adapter --init-adapter adapter_counter_circuit/adapter.gguf --steps 80 \
  --checkpoint-every 5 --heldout-every 40 --batch-size 16 --lr 1e-3 --rank 8 --balance capped --max-per-world 600 \
  --max-tokens 2800 \
  --holdout 1 --seed 0 --eval --eval-domain overcooked --eval-layouts counter_circuit --eval-partners cole \
  --eval-seats 0 --eval-episodes 5 --eval-horizon 400 --eval-concurrency 2 --progress off
# The third stage leaves Yōkai's runs out (it was made when Yōkai's compact prompts ran 2,000-2,800 tokens, a
# batch of them several kitchen batches' work; they are about 1,100-1,340 now: docs/finetune.md)
kitchens=()
for run in runs/*; do [[ $run == *-9c_* ]] || kitchens+=("$run"); done
proagent finetune "${kitchens[@]}" --out adapter_plan_weighted --init-adapter adapter/adapter.gguf --steps 10 \
  --checkpoint-every 10 --batch-size 16 --lr 1e-3 --rank 8 --balance capped --max-per-world 300 --max-per-skill 60 \
  --max-tokens 2800 --holdout 0 --seed 2 --plan-weight 5 \
  --eval --eval-domain overcooked --eval-layouts counter_circuit --eval-partners cole \
  --eval-seats 0 --eval-episodes 5 --eval-horizon 400 --eval-concurrency 2 --progress off
