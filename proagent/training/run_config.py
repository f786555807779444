"""`proagent train`'s flags made into validated configs, through the world's RL spec: the world's
network for the layout and backend, its PPO recipe, then the flags' overrides. Every function
raises a ValueError in one line that names the flag at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from proagent.text_values import typed_values, validation_line
from proagent.training.request import TrainRequest
from proagent.world.rl_spec import RLSpec

NEEDS: dict[str, tuple[Callable[[Any], object], str]] = {  # algorithm -> (its RL spec hook, what it is)
    "op": (lambda spec: spec.symmetries, "a symmetry transform"),
    "state_aug": (lambda spec: spec.start_states, "start states"),
    "human_proxy": (lambda spec: spec.styles, "style events"),
    "hsp": (lambda spec: spec.styles, "style events (its pool is the human_proxy agents)"),
    "bc": (lambda spec: spec.demonstrations, "recorded play"),
}


def key_values(items: list[str], flag: str) -> dict[str, str]:
    """``--set``/``--algo-set`` items as a dict; an item without ``=`` is a ValueError naming it."""
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{flag} {item!r}: expected KEY=VALUE")
        pairs[key] = value
    return pairs


# PPOConfig fields that a flag of their own sets: ``--set`` may not set them a second way
OWN_FLAGS = {"world": "--domain", "layout": "--layout", "seed": "--seed", "total_steps": "--steps",
             "shaping_horizon": "--shaping-horizon", "network": "--encoder and --network-set"}  # fmt: skip


def _validation_message(flag: str, exc: Exception, fields: Any) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{flag} {where}: {first['msg']} (fields: {', '.join(fields)})"


def world_of(request: TrainRequest) -> RLSpec:
    """The world's RL spec; a ValueError (one line) for an unknown world or one without a spec."""
    from proagent.training.worlds import rl_spec

    return rl_spec(request.domain)


def resolve_network(request: TrainRequest, layout: str):
    """The world's network for ``--encoder`` on ``layout`` and this backend, then ``--network-set``."""
    import jax
    base = world_of(request).network(request.encoder, layout, jax.default_backend() == "gpu")
    fields = typed_values(type(base), key_values(list(request.network_set), "--network-set"), "--network-set")
    try:
        return type(base)(**{**base.model_dump(), **fields})
    except ValidationError as exc:
        raise ValueError(_validation_message("--network-set", exc, type(base).model_fields)) from None


def _ppo_fields(request: TrainRequest) -> dict[str, Any]:
    """The world's PPO recipe, then ``--num-envs`` and ``--set`` (each value read within its
    field's range: ``--set lr=nan`` is refused here, before anything runs)."""
    from proagent.training.config import PPOConfig

    fields: dict[str, Any] = dict(world_of(request).ppo_defaults)
    if request.num_envs is not None:
        fields["num_envs"] = request.num_envs
    pairs = key_values(list(request.set), "--set")
    _refuse_own_flags(pairs, OWN_FLAGS.keys())
    return {**fields, **typed_values(PPOConfig, pairs, "--set")}


def _refuse_own_flags(pairs: dict[str, str], owned: Iterable[str]) -> None:
    """A ValueError naming the flag that sets a field ``--set`` was given too."""
    clash = sorted(pairs.keys() & set(owned))
    if clash:
        raise ValueError(f"--set {clash[0]}: set it with {OWN_FLAGS[clash[0]]}")


def build_config(request: TrainRequest):
    """The validated PPOConfig of ``--algo sp`` (and the base of the population methods')."""
    from proagent.training.config import PPOConfig

    spec = world_of(request)
    steps = int(request.steps)
    horizon = int(request.shaping_horizon) if request.shaping_horizon is not None else steps // 2
    layout = spec.layout_name(request.layout)
    network = resolve_network(request, layout)
    try:
        return PPOConfig(
            world=spec.world,
            layout=layout,
            seed=request.seed,
            total_steps=steps,
            shaping_horizon=horizon,
            network=network,
            **_ppo_fields(request),
        )
    except ValidationError as exc:
        raise ValueError(validation_line("--set", exc)) from None


def build_algo_config(request: TrainRequest):
    """The population algorithms' config: the same flags, PPO overrides passed through."""
    from proagent.training.algorithms import AlgoConfig

    ppo = build_config(request)  # validates layout and overrides the same way as sp
    # typed values from the validated config, so a manifest stores num_minibatches=8, not "8"
    overrides = {"num_envs": ppo.num_envs, **{key: getattr(ppo, key) for key in _ppo_fields(request)}}
    if request.shaping_horizon is not None or request.algo == "sp":  # sp (--seeds): self-play's default, steps / 2
        overrides["shaping_horizon"] = ppo.shaping_horizon
    try:
        return AlgoConfig(
            world=ppo.world,
            layout=ppo.layout,
            seed=request.seed,
            total_steps=int(request.steps),
            network=ppo.network,
            ppo=overrides,
            updates_per_call=request.updates_per_call,
            eval_episodes=request.eval_episodes,
            warm_start=request.warm_start,
        )
    except ValidationError as exc:
        raise ValueError(validation_line("train", exc)) from None


def build_algo_settings(request: TrainRequest):
    """``--algo-set`` as the algorithm's settings model (None: its defaults). Values are strings that
    pydantic converts, or JSON for lists; an unknown key or a bad value is a ValueError naming it."""
    from proagent.training.algorithms import SETTINGS

    if not request.algo_set:
        return None
    if request.algo not in SETTINGS:
        raise ValueError(
            f"--algo-set: {request.algo} has no algorithm settings (population methods: {sorted(SETTINGS)})"
        )
    model = SETTINGS[request.algo]
    try:
        return model(**typed_values(model, key_values(list(request.algo_set), "--algo-set"), "--algo-set"))
    except ValidationError as exc:
        known = ", ".join(model.model_fields)
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"--algo-set for {request.algo}: {where}: {first['msg']} (settings: {known})") from None


def refuse_algorithm(request: TrainRequest) -> None:
    """A ValueError (one line) when the world's RL spec lacks what ``--algo`` needs."""
    spec = world_of(request)
    if request.algo in NEEDS:
        hook, what = NEEDS[request.algo]
        if hook(spec) is None:
            raise ValueError(f"--algo {request.algo} needs {what}, which {spec.world} does not provide")



def bc_config(request: TrainRequest):
    """``--set`` sets BCConfig fields (epochs, batch_size, lr, weight_decay, max_stay_run, val_fraction)."""
    from proagent.training.bc import BCConfig

    spec = world_of(request)
    layout = spec.layout_name(request.layout)
    pairs = key_values(list(request.set), "--set")
    _refuse_own_flags(pairs, ("world", "layout", "seed", "network"))
    overrides = typed_values(BCConfig, pairs, "--set")  # max_stay_run=none: keep every STAY
    network = spec.network(request.encoder, layout, gpu=False)  # feedforward: recorded play has no memory
    try:
        return BCConfig(world=spec.world, layout=layout, seed=request.seed, network=network, **overrides)
    except ValidationError as exc:
        raise ValueError(validation_line("--set", exc)) from None
