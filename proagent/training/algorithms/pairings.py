"""Static seat assignments (``Pairing.slots``) of the population algorithms."""

from __future__ import annotations

from proagent.training.population import POOL


def self_play(num_learners: int, num_envs: int, seats: int = 2) -> tuple[tuple[int, ...], ...]:
    """Each learner plays itself (every one of the ``seats``) in ``num_envs / num_learners`` envs."""
    if num_envs % num_learners:
        raise ValueError(f"num_envs={num_envs} must be a multiple of the population size {num_learners}")
    return tuple((n % num_learners,) * seats for n in range(num_envs))


def self_play_and_pool(num_learners: int, num_envs: int, pool_share: float) -> tuple[tuple[int, int], ...]:
    """Each learner in ``num_envs / num_learners`` envs: ``pool_share`` of them with a pool partner
    (half in each seat), the rest with itself. Env ``n`` belongs to learner ``n % num_learners``."""
    per_learner = len(self_play(num_learners, num_envs)) // num_learners
    own = self_play_envs(per_learner, 1.0 - pool_share)
    if own == per_learner:
        raise ValueError(f"pool_share={pool_share} of {per_learner} envs a learner leaves no env for the pool")
    half = (per_learner - own) // 2
    kinds = ["self"] * own + ["pool_second"] * half + ["pool_first"] * half
    seats = {"self": lambda k: (k, k), "pool_second": lambda k: (k, POOL), "pool_first": lambda k: (POOL, k)}
    return tuple(seats[kinds[n // num_learners]](n % num_learners) for n in range(num_envs))


def round_robin(num_learners: int, num_envs: int) -> tuple[tuple[int, int], ...]:
    """Every ordered pair (i, j), self-pairs included, in the same number of envs."""
    pairs = [(i, j) for i in range(num_learners) for j in range(num_learners)]
    if num_envs % len(pairs):
        raise ValueError(f"num_envs={num_envs} must be a multiple of population size squared ({len(pairs)})")
    return tuple(pairs[n % len(pairs)] for n in range(num_envs))


def best_response(num_envs: int, self_play_envs: int = 0) -> tuple[tuple[int, int], ...]:
    """Learner 0 against pool partners, half the envs in each seat, plus ``self_play_envs`` of (0, 0)."""
    rest = num_envs - self_play_envs
    if rest <= 0 or rest % 2:
        raise ValueError(f"num_envs - self_play_envs = {rest} must be a positive even number")
    return ((0, 0),) * self_play_envs + ((0, POOL),) * (rest // 2) + ((POOL, 0),) * (rest // 2)


def self_play_envs(num_envs: int, share: float) -> int:
    """Envs where a best-responding learner plays itself: ``share`` of them, rounded so that the
    rest splits evenly over both seats."""
    n = int(num_envs * share)
    return n + (num_envs - n) % 2
