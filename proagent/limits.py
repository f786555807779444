"""Upper bounds on every count a user can ask for, checked before any work or folder.

One flag must not be able to make a run grow without end (a plan of 10^12 episodes is built in
memory before the first one plays) or overflow what a number is used as (a seed is a 32-bit JAX
key, episode i plays seed + i). The bounds are far above any real use.
"""

from __future__ import annotations

MAX_EPISODES = 100_000  # episodes per cell of an evaluation, or per play
MAX_SEED = 2**31 - 1 - MAX_EPISODES  # seed + episode index stays a 32-bit key
MAX_SEEDS = 64  # seeds trained side by side in one program (`proagent train --seeds`)
MAX_HORIZON = 100_000  # steps per episode
MAX_GRID_EPISODES = 1_000_000  # episodes in one evaluation grid (agents x partners x layouts x seats x ...)
MAX_CONCURRENCY = 4_096  # episodes or LLM requests in flight
MAX_TRAIN_STEPS = 10**12  # environment steps of one training run
MAX_WALL_CLOCK_S = 7 * 24 * 3600  # seconds of wall clock one episode may take (--wall-clock): a week
MAX_MESSAGE_BUDGET = 64  # messages per agent per environment step (a cognitive phase has a few rounds anyway)
