#!/usr/bin/env bash
# Makes the embedded model's adapters again (docs/finetune.md): data/adapters/smollm2-135m-taught (the
# second stage), data/adapters/smollm2-135m-plan-weighted (the third) and the default,
# data/adapters/smollm2-135m-all-worlds (the fourth).
# The worlds' scripted planners play as teachers (the student's prompt set and grammar: --prompt compact
# --legal-only on; seeds from 100, so the evaluation's seeds 0-4 stay unseen), then `proagent finetune`
# teaches the bundled SmolLM2-135M their decisions in four stages: counter_circuit alone (the README's
# kitchen, 200 steps of 4); every world, starting from that adapter (--init-adapter; 80 steps of 16, the
# last episode of each world held out and scored at every checkpoint); every world but Yōkai from the
# second stage's adapter, each skill capped and the plan's tokens weighed five times (10 steps of 16);
# then every world with Yōkai's games from the third stage's adapter, each world and skill capped lower
# (24 steps of 16), and 6 steps on CUBE, counter_circuit and Yōkai (the default). The second and third stages play their student against the raw model on
# counter_circuit with cole; the fourth's student is measured by the `proagent reproduce embedded-adapter*`
# pages (docs/finetune.md).
#
#   scripts/teach_embedded.sh OUT_FOLDER
#
# The shipped second and third stages were taught Yōkai's earlier compact prompts (before their short state;
# see CHANGELOG): made again now, the second stage's Yōkai examples are the shorter prompts, so its bytes
# differ, and so do the later stages', which start from it.
#
# Left out as teachers: both seats of grounded_coord_simple, and cramped_room_v2's seat 0 (the
# scripted planner scores 0 or less there: nothing to teach).
# On 2 CPU cores: about 8 minutes of play, 35 minutes for the first stage, about an hour and a half for
# the second, 20-25 minutes for the third, about 50 for the fourth (a stopped stage continues with the same
# line plus --resume) and 20-30 minutes of evaluation a stage (the raw model's episodes are the long ones).
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
# more Yōkai games for the fourth stage only (seeds 104-111 and 104-107), in their own folder
proagent play --domain yokai --layout 9c_2p --seed 104 "${teach[@]}" --episodes 8 --runs-dir "$out/more_yokai"
proagent play --domain yokai --layout 9c_3p --seed 104 "${teach[@]}" --episodes 4 --runs-dir "$out/more_yokai"
cd "$out"
proagent finetune runs/*-counter_circuit-* --out adapter_counter_circuit --steps 200 --batch-size 4 --lr 1e-3 \
  --rank 8 --holdout 2 --max-tokens 1600 --seed 0 --progress off
proagent finetune runs/* --out adapter --init-adapter adapter_counter_circuit/adapter.gguf --steps 80 \
  --checkpoint-every 5 --heldout-every 40 --batch-size 16 --lr 1e-3 --rank 8 --balance capped --max-per-world 600 \
  --max-tokens 2800 \
  --holdout 1 --seed 0 --eval --eval-domain overcooked --eval-layouts counter_circuit --eval-partners cole \
  --eval-seats 0 --eval-episodes 5 --eval-horizon 400 --eval-concurrency 2 --progress off
# The third stage leaves Yōkai's runs out (it was made when Yōkai's compact prompts ran 2,000-2,800 tokens, a
# batch of them several kitchen batches' work), and so the Yōkai games added for the fourth
kitchens=()
for run in runs/*; do [[ $run == *-9c_* ]] || kitchens+=("$run"); done
proagent finetune "${kitchens[@]}" --out adapter_plan_weighted --init-adapter adapter/adapter.gguf --steps 10 \
  --checkpoint-every 10 --batch-size 16 --lr 1e-3 --rank 8 --balance capped --max-per-world 300 --max-per-skill 60 \
  --max-tokens 2800 --holdout 0 --seed 2 --plan-weight 5 \
  --eval --eval-domain overcooked --eval-layouts counter_circuit --eval-partners cole \
  --eval-seats 0 --eval-episodes 5 --eval-horizon 400 --eval-concurrency 2 --progress off
# The fourth stage, the default, in two parts: every world, Yōkai's games with their short compact state among
# them (24 steps); then 6 steps at a third of the rate on CUBE, counter_circuit with cole and Yōkai, 16
# examples a world (the first part's other worlds' batches turned CUBE's answers to waiting)
proagent finetune runs/* more_yokai/* --out adapter_all_worlds_first --init-adapter adapter_plan_weighted/adapter.gguf \
  --steps 24 --checkpoint-every 6 --batch-size 16 --lr 1e-3 --rank 8 --balance capped --max-per-world 100 \
  --max-per-skill 50 --max-tokens 2800 --holdout 0 --seed 3 --plan-weight 5 --progress off
rehearsal=()
for run in runs/* more_yokai/*; do
  [[ $run =~ -(easy_2a|medium_3a)-pusher$|-counter_circuit-cole$|-9c_[23]p- ]] && rehearsal+=("$run")
done
proagent finetune "${rehearsal[@]}" --out adapter_all_worlds --init-adapter adapter_all_worlds_first/adapter.gguf \
  --steps 6 --checkpoint-every 6 --batch-size 16 --lr 3e-4 --rank 8 --balance capped --max-per-world 16 \
  --max-per-skill 16 --max-tokens 2800 --holdout 0 --seed 4 --plan-weight 5 --progress off
