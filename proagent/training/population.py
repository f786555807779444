"""The PPO program: K learners and a frozen pool of partners, one jitted update for all of them.

Every PPO agent of the zoo is this one update driven by a different Python outer loop: self-play
(``trainer.py``: ``Pairing.self_play``, a population of one) and the population methods PBT, FCP,
MEP, COLE and the human proxies (``algorithms/``). What differs between them is data, not code:

- ``Pairing.slots`` (static): for each env and seat, the learner that plays it, or ``POOL`` (-1)
  for "a frozen partner, sampled afresh for every episode". Self-play is ``(k, k)``; a population
  round robin is every ``(i, j)``; a best response is ``(0, POOL)`` and ``(POOL, 0)``.
- ``PopRunner.pool_logits`` (dynamic): the sampling distribution over the pool. The outer loop
  re-weights it between calls (MEP's prioritised sampling, COLE's incompatibility weighting) and
  unused pool entries get ``-inf``, so a growing pool never changes a shape nor recompiles.
- ``PopRunner.hparams`` (dynamic): per-learner entropy coefficient and learning-rate multiplier
  (PBT's explore step).

Learners' transitions are cut out of the rollout by static index arrays, so each learner's PPO
update has a fixed batch and the K updates run as one ``vmap`` (one learner runs unbatched, see
``_per_learner``, and draws with the keys a lone PPO learner draws, see ``_learner_keys``, so
self-play is plain single-learner PPO bit for bit). Pool partners act with per-actor gathered
parameters. The episode score of every (seat-0 policy, seat-1 policy) pair is summed in
``pair_score``/``pair_count`` (policy ids: learners 0..K-1, then pool entries), which is all the
outer loops need to rank partners.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax.training.train_state import TrainState
from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.training.config import PROGRAMS_KEPT, PPOConfig
from proagent.training.networks import Hidden, mask_logits, policy_fns
from proagent.training.ppo import PPOBatch, gae, optimizer, ppo_epochs, shaping_coef
from proagent.training.rollout import Bonus, EnvBatch, Trajectory, env_step, legal_actions, reset_envs
from proagent.world.rl_spec import EventIndicators, RLEnv, State

POOL = -1


class Pairing(BaseModel):
    """Who plays which seat of which env (static for a whole training run)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    num_learners: int = Field(ge=1)
    slots: tuple[tuple[int, ...], ...] = Field(description="per env, per seat: learner index or POOL (-1)")
    pool_size: int = Field(0, ge=0, description="capacity of the frozen pool (entries may stay unused)")
    pop_entropy_coef: float = Field(0.0, ge=0.0, description="MEP bonus: coef * -log(mean population policy)")
    style_weights: tuple[tuple[float, ...], ...] | None = Field(
        None, description="per learner, a weight per style event: a never-annealed event reward (human proxies)"
    )

    @model_validator(mode="after")
    def _check(self) -> Pairing:
        arr = np.asarray(self.slots)
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError("slots must be (num_envs, seats) with at least two seats")
        if arr.min() < POOL or arr.max() >= self.num_learners:
            raise ValueError(f"slot values must be learner indices 0..{self.num_learners - 1} or {POOL}")
        counts = [int((arr == k).sum()) for k in range(self.num_learners)]
        if len(set(counts)) != 1 or counts[0] == 0:
            raise ValueError(f"every learner needs the same (non-zero) number of slots, got {counts}")
        if (arr == POOL).any() and self.pool_size == 0:
            raise ValueError("POOL slots need pool_size > 0")
        if self.style_weights is not None and len(self.style_weights) != self.num_learners:
            raise ValueError(f"style_weights needs one row per learner ({self.num_learners})")
        return self

    @property
    def num_envs(self) -> int:
        return len(self.slots)

    @property
    def num_seats(self) -> int:
        return len(self.slots[0])

    def learner_actors(self) -> np.ndarray:
        """(K, S) flat actor indices (env * seats + seat) of each learner, in order."""
        flat = np.asarray(self.slots).reshape(-1)
        return np.stack([np.flatnonzero(flat == k) for k in range(self.num_learners)])

    def pool_actors(self) -> np.ndarray:
        return np.flatnonzero(np.asarray(self.slots).reshape(-1) == POOL)

    @classmethod
    def self_play(cls, num_envs: int, seats: int = 2) -> Pairing:
        """Self-play PPO (``proagent train --algo sp``): one learner in every seat of every env."""
        return cls(num_learners=1, slots=((0,) * seats,) * num_envs)

    @classmethod
    def independent(cls, num_envs: int, seats: int) -> Pairing:
        """Independent PPO (``--algo ippo``): learner s in seat s of every env, its own parameters."""
        return cls(num_learners=seats, slots=(tuple(range(seats)),) * num_envs)

    def actor_style_weights(self) -> np.ndarray | None:
        """(N * seats, events) style weights of each actor's learner (0 for pool partners)."""
        if self.style_weights is None:
            return None
        weights = np.asarray(self.style_weights, np.float32)
        flat = np.asarray(self.slots).reshape(-1)
        return np.where((flat >= 0)[:, None], weights[np.maximum(flat, 0)], 0.0).astype(np.float32)


class HParams(NamedTuple):
    ent_coef: jax.Array  # (K,)
    lr_mult: jax.Array  # (K,)


class PopRunner(NamedTuple):
    learners: TrainState  # every leaf stacked over K
    hparams: HParams
    pool_params: Any  # every leaf stacked over pool_size (zeros where unused); None without a pool
    pool_logits: jax.Array  # (pool_size,) -inf = never sampled
    envs: EnvBatch
    partner: jax.Array  # (N,) pool entry of each env's current episode
    key: jax.Array
    update: jax.Array


class PopMetrics(NamedTuple):
    """Per update (stacked over the updates of one call)."""

    env_steps: jax.Array
    shaping_coef: jax.Array
    pair_score: jax.Array  # (P, P) summed score of finished episodes, P = K + pool_size
    pair_count: jax.Array  # (P, P) number of those episodes
    pair_shaped: jax.Array  # (P, P) summed shaped return (both agents) of those episodes
    value_loss: jax.Array  # (K,)
    actor_loss: jax.Array
    entropy: jax.Array
    approx_kl: jax.Array


def policy_ids(pairing: Pairing, partner: jax.Array) -> jax.Array:
    """(N, seats) policy id of each seat: learner index, or K + pool entry."""
    slots = jnp.asarray(pairing.slots)
    return jnp.where(slots == POOL, pairing.num_learners + partner[:, None], slots)


def _learner_keys(key: jax.Array, k: int) -> jax.Array:
    """(K, 2) one key per learner. A population of one draws with ``key`` itself, as a lone PPO
    learner does: on the same seed self-play then ends with the same parameters as the separate
    self-play program it replaced (which trained the shipped ``sp`` partners)."""
    return key[None] if k == 1 else jax.random.split(key, k)


def _per_learner(fn: Any, k: int) -> Any:
    """``fn`` mapped over the learners' leading axis: ``vmap``, except that one learner runs
    unbatched. Why: XLA:CPU lowers a vmapped batch of one to batched matmuls that round differently
    in the last bit, and self-play (a population of one) is meant to be exactly single-learner PPO."""
    if k > 1:
        return jax.vmap(fn)

    def one(*args):
        out = fn(*jax.tree.map(lambda x: x[0], args))
        return jax.tree.map(lambda x: jnp.expand_dims(x, 0), out)

    return one


def _sample_partners(key: jax.Array, logits: jax.Array, n: int) -> jax.Array:
    return jax.random.categorical(key, logits, shape=(n,)).astype(jnp.int32)


class _Acting(NamedTuple):
    """The static pieces of one rollout step, closed over by the jitted update."""

    apply: Any  # PolicyFns.step: (params, hidden, obs) -> (hidden, logits, value)
    pairing: Pairing
    learner_actors: np.ndarray
    pool_actors: np.ndarray
    style_weights: np.ndarray | None = None  # (N * seats, events)
    events: EventIndicators | None = None  # the world's per-agent style events, with style_weights


def _rows(hidden: Hidden, index: np.ndarray) -> Hidden:
    return None if hidden is None else hidden[index]


def _act(acting: _Acting, runner: PopRunner, hidden: Hidden, obs: jax.Array, partner: jax.Array):
    """(hidden, logits, values) of every actor: learners batched per learner, pool partners per actor."""
    total = obs.shape[0]
    la = acting.learner_actors
    l_hidden, l_logits, l_value = _per_learner(acting.apply, la.shape[0])(
        runner.learners.params, _rows(hidden, la), obs[la]
    )
    actions = l_logits.shape[-1]
    logits = jnp.zeros((total, actions), jnp.float32).at[la.reshape(-1)].set(l_logits.reshape(-1, actions))
    value = jnp.zeros((total,), jnp.float32).at[la.reshape(-1)].set(l_value.reshape(-1))
    if hidden is not None:
        hidden = hidden.at[la.reshape(-1)].set(l_hidden.reshape(-1, hidden.shape[-1]))
    pa = acting.pool_actors
    if pa.size:
        who = partner[pa // acting.pairing.num_seats]
        params = jax.tree.map(lambda t: t[who], runner.pool_params)
        p_hidden, p_logits, p_value = jax.vmap(acting.apply)(params, _rows(hidden, pa), obs[pa])
        logits, value = logits.at[pa].set(p_logits), value.at[pa].set(p_value)
        hidden = None if hidden is None else hidden.at[pa].set(p_hidden)
    return hidden, logits, value


def _population_bonus(
    acting: _Acting, runner: PopRunner, obs: jax.Array, action: jax.Array, legal: jax.Array | None = None
) -> jax.Array:
    """MEP: -log of the learners' mean policy at the action taken, for learner actors (0 elsewhere);
    each policy is the masked one the rollout samples from (``legal`` (B, actions), None: no mask)."""
    la = acting.learner_actors.reshape(-1)
    logits = jax.vmap(lambda params: acting.apply(params, None, obs[la])[1])(runner.learners.params)  # (K, L, actions)
    logits = mask_logits(logits, None if legal is None else legal[la])
    mean_probs = jax.nn.softmax(logits, -1).mean(0)
    taken = jnp.take_along_axis(mean_probs, action[la][:, None], -1)[:, 0]
    return jnp.zeros(obs.shape[0], jnp.float32).at[la].set(-jnp.log(taken + 1e-8))


def _reward_bonus(env: RLEnv, acting: _Acting, runner: PopRunner) -> Bonus | None:
    """The never-annealed extra rewards of some pairings: MEP's population entropy, style events."""
    coef, weights, indicators = acting.pairing.pop_entropy_coef, acting.style_weights, acting.events
    if coef <= 0 and weights is None:
        return None

    def bonus(before: State, obs: jax.Array, action: jax.Array, after: State) -> jax.Array:
        extra = jnp.zeros(action.shape, jnp.float32)
        if coef > 0:
            legal = legal_actions(env, before)
            legal = None if legal is None else legal.reshape(action.shape[0], -1)
            extra = extra + coef * _population_bonus(acting, runner, obs, action, legal)
        if weights is not None:
            joint = action.reshape(-1, acting.pairing.num_seats)
            events = jax.vmap(indicators)(before, joint, after)
            extra = extra + (events.reshape(action.shape[0], -1) * weights).sum(-1)
        return extra

    return bonus


def _env_step(env: RLEnv, acting: _Acting, runner: PopRunner, carry, key: jax.Array, coef: jax.Array):
    """``rollout.env_step`` with this pairing's actors, then a fresh pool partner where an episode ended."""
    batch, partner = carry
    policy = lambda hidden, obs: _act(acting, runner, hidden, obs, partner)
    nxt, row = env_step(env, policy, batch, key, coef, _reward_bonus(env, acting, runner))
    k_partner = jax.random.split(key, 4)[3]  # env_step draws with split(key, 3), the same first three
    fresh = _sample_partners(k_partner, runner.pool_logits, partner.shape[0]) if acting.pool_actors.size else partner
    return (nxt, jnp.where(row.ep_done, fresh, partner)), (row, policy_ids(acting.pairing, partner))


def _pair_sums(traj: Trajectory, ep_pair: jax.Array, num_policies: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(score, count, shaped) of the finished episodes per (seat-0 policy, seat-1 policy); a world
    with more seats is summarised by its first two."""
    one_hot = lambda seat: jax.nn.one_hot(ep_pair[..., seat], num_policies)  # (T, N, P)
    weight = traj.ep_done.astype(jnp.float32)[..., None]
    total = lambda w: jnp.einsum("tni,tnj->ij", one_hot(0) * w, one_hot(1))
    return total(weight * traj.ep_score[..., None]), total(weight), total(weight * traj.ep_shaped[..., None])


def _learner_data(acting: _Acting, traj: Trajectory, adv: jax.Array, target: jax.Array, hidden0: Hidden) -> PPOBatch:
    """Per-learner batches cut out of the (T, N*A, ...) rollout: (K, T*S, ...) transitions for a
    feedforward policy; for a recurrent one (K, S, T, ...) sequences, the observations joined by
    each actor's memory at the rollout's start and its episode ends, which the loss replays."""
    la = acting.learner_actors
    fields = (traj.obs, traj.action, traj.log_prob, traj.value, adv, target, traj.legal)  # legal may be None
    if hidden0 is None:

        def cut(x: jax.Array) -> jax.Array:
            y = x[:, la]  # (T, K, S, ...)
            y = jnp.moveaxis(y, 1, 0)
            return y.reshape(y.shape[0], -1, *y.shape[3:])

        return PPOBatch(*jax.tree.map(cut, fields))
    seq = lambda x: jnp.moveaxis(x[:, la], 0, 2)  # (K, S, T, ...)
    obs, *rest = jax.tree.map(seq, fields)
    return PPOBatch((hidden0[la], obs, seq(traj.done)), *rest)


def _one_update(env, config: PPOConfig, acting: _Acting, runner: PopRunner, _) -> tuple[PopRunner, PopMetrics]:
    key, k_roll, k_epochs = jax.random.split(runner.key, 3)
    coef = shaping_coef(config, runner.update)

    def body(carry, key):
        return _env_step(env, acting, runner, carry, key, coef)

    keys = jax.random.split(k_roll, config.num_steps)
    (envs_next, partner), (traj, ep_pair) = jax.lax.scan(body, (runner.envs, runner.partner), keys)
    n, a = envs_next.obs.shape[:2]
    last_obs = envs_next.obs.reshape(n * a, *envs_next.obs.shape[2:])
    _, _, last_value = _act(acting, runner, envs_next.hidden, last_obs, partner)
    adv, target = gae(traj, last_value, config.gamma, config.gae_lambda)
    data = _learner_data(acting, traj, adv, target, runner.envs.hidden)
    k = acting.pairing.num_learners
    epochs = lambda ts, d, key, ent, lr: ppo_epochs(ts, config, d, key, ent, lr)
    learners, aux = _per_learner(epochs, k)(
        runner.learners, data, _learner_keys(k_epochs, k), runner.hparams.ent_coef, runner.hparams.lr_mult
    )
    pair_score, pair_count, pair_shaped = _pair_sums(traj, ep_pair, k + acting.pairing.pool_size)
    update = runner.update + 1
    metrics = PopMetrics(update * config.steps_per_update, coef, pair_score, pair_count, pair_shaped, *aux)
    return runner._replace(learners=learners, envs=envs_next, partner=partner, key=key, update=update), metrics


def check_population(config: PPOConfig, pairing: Pairing) -> None:
    """Fail early, with the fix, on shapes the population update cannot run."""
    if pairing.num_envs != config.num_envs:
        raise ValueError(f"pairing has {pairing.num_envs} envs but config.num_envs={config.num_envs}")
    actors = pairing.learner_actors().shape[1]
    if config.network.recurrent:
        if actors % config.num_minibatches:
            raise ValueError(
                f"a recurrent learner's {actors} actor sequences are not divisible by "
                f"num_minibatches={config.num_minibatches}"
            )
        if pairing.pop_entropy_coef > 0:
            raise ValueError("the population-entropy bonus (MEP) needs a feedforward network (network.memory=0)")
    per_learner = config.num_steps * actors
    if per_learner % config.num_minibatches:
        raise ValueError(
            f"per-learner batch {per_learner} is not divisible by num_minibatches={config.num_minibatches}"
        )


# One program per distinct (config, pairing, env, updates per call, events): the arguments are values
# (frozen configs, envs equal by their program key), so the runs that build it again with the same
# values (a resumed run, a population's stages and generations, a sweep's seeds, a test suite) reuse
# the trace instead of tracing a new closure of the same program.
@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_population_train(
    config: PPOConfig,
    pairing: Pairing,
    env: RLEnv,
    updates_per_call: int = 1,
    events: EventIndicators | None = None,
):
    """-> (init(key) -> PopRunner, jitted update(PopRunner) -> (PopRunner, PopMetrics stacked over updates)).

    ``events``: the world's per-agent event indicators, needed by a pairing with style weights."""
    check_population(config, pairing)
    if pairing.num_seats != env.num_agents:
        raise ValueError(f"the pairing has {pairing.num_seats} seats, the env {env.num_agents} agents")
    if pairing.style_weights is not None and events is None:
        raise ValueError("style weights need the world's event indicators (its RL spec's styles)")
    network = policy_fns(config.network, env.num_actions)
    tx = optimizer(config)
    acting = _Acting(
        network.step, pairing, pairing.learner_actors(), pairing.pool_actors(), pairing.actor_style_weights(), events
    )
    k, f = pairing.num_learners, pairing.pool_size

    def init(key: jax.Array, pool: Any = None, pool_logits: jax.Array | None = None) -> PopRunner:
        """Fresh learners; ``pool`` (leaves stacked over pool_size, see ``stack_pool``) may be
        given now or filled later with ``set_pool_entry``, which is why unused entries need -inf."""
        k_net, k_env, key, k_partner = jax.random.split(key, 4)  # the first three as a lone learner's
        batch = reset_envs(env, k_env, config.num_envs, network.initial_hidden(config.num_envs * env.num_agents))
        obs = batch.obs[0, 0].astype(jnp.float32)
        create = lambda kk: TrainState.create(apply_fn=network.replay, params=network.init(kk, obs), tx=tx)
        learners = _per_learner(create, k)(_learner_keys(k_net, k))
        if f and pool is None:
            pool = jax.tree.map(lambda x: jnp.zeros((f, *x.shape[1:]), x.dtype), learners.params)
            pool_logits = jnp.full((f,), -jnp.inf, jnp.float32)
        logits = jnp.zeros((0,), jnp.float32) if pool_logits is None else pool_logits
        hparams = HParams(jnp.full((k,), config.ent_coef, jnp.float32), jnp.ones((k,), jnp.float32))
        partner = jnp.zeros(config.num_envs, jnp.int32)
        runner = PopRunner(learners, hparams, pool if f else None, logits, batch, partner, key, jnp.int32(0))
        return resample_partners(runner, k_partner) if f else runner

    def update(runner: PopRunner) -> tuple[PopRunner, PopMetrics]:
        step = lambda r, x: _one_update(env, config, acting, r, x)
        return jax.lax.scan(step, runner, None, length=updates_per_call)

    return jax.jit(init), jax.jit(update)


def resample_partners(runner: PopRunner, key: jax.Array) -> PopRunner:
    """Draw every env's pool partner afresh (after the pool or its weights changed at a reset)."""
    logits = jnp.where(jnp.isfinite(runner.pool_logits).any(), runner.pool_logits, 0.0)
    return runner._replace(partner=_sample_partners(key, logits, runner.partner.shape[0]))


def stack_pool(members: list[Any], size: int) -> tuple[Any, jax.Array]:
    """(pool params stacked and zero-padded to ``size``, logits: 0 for members, -inf for padding)."""
    if not members or len(members) > size:
        raise ValueError(f"need 1..{size} pool members, got {len(members)}")
    pad = lambda *xs: jnp.concatenate([jnp.stack(xs), jnp.zeros((size - len(xs), *np.shape(xs[0])), xs[0].dtype)])
    logits = jnp.where(jnp.arange(size) < len(members), 0.0, -jnp.inf).astype(jnp.float32)
    return jax.tree.map(pad, *members), logits


def learner_params(runner: PopRunner, index: int) -> Any:
    """One learner's parameters (host copy), e.g. to freeze into a pool or save."""
    return jax.tree.map(lambda x: np.asarray(x[index]), runner.learners.params)


def with_learner_params(runner: PopRunner, learners: list[int], params: Any) -> PopRunner:
    """``learners`` start from ``params`` (Adam's moments stay at zero)."""
    put = lambda stacked, p: stacked.at[jnp.asarray(learners)].set(jnp.asarray(p, stacked.dtype))
    return runner._replace(learners=runner.learners.replace(params=jax.tree.map(put, runner.learners.params, params)))


def set_pool_entry(runner: PopRunner, index: int, params: Any, logit: float = 0.0) -> PopRunner:
    """Put ``params`` into pool entry ``index`` and make it sampleable (logit 0 unless given)."""
    pool = jax.tree.map(lambda t, p: t.at[index].set(jnp.asarray(p, t.dtype)), runner.pool_params, params)
    return runner._replace(pool_params=pool, pool_logits=runner.pool_logits.at[index].set(logit))
