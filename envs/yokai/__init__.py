"""Yōkai (the Yōkai Learning Environment's card game) in JAX, with a plain NumPy reference.

    from envs.yokai import make
    env = make("9c_2p")                                # 9c_2p ... 16c_4p
    state = env.jit_reset(jax.random.PRNGKey(0))
    mask = env.legal_mask(state)                       # (players, actions) bool
    tr = env.jit_step(key, state, actions)             # actions: (players,) ints, others NOOP
    view = env.player_view(tr.state, 0)                # typed, only what seat 0 may know
    print(env.render(tr.state))

The rules are in ``envs/yokai/env.py``'s docstring and ``docs/yokai.md``.
"""

from envs.yokai.env import Transition, YokaiEnv, final_outcome, make
from envs.yokai.events import YokaiEvent, YokaiEventKind, extract_events
from envs.yokai.observation import UNKNOWN, YokaiObservation, flatten, observe
from envs.yokai.reference import ReferenceStep, ReferenceYokai
from envs.yokai.render import render_ascii, render_rgb
from envs.yokai.rules import NO_CARD, ActionKind, ActionLayout, DecodedAction, HintStatus, Phase
from envs.yokai.scenario import HINT_TABLE, YokaiConfig, YokaiConfigError, available_layouts, load_config
from envs.yokai.state import YokaiParams, YokaiState
from envs.yokai.symbolic import PlayerView, YokaiCard, YokaiHint, YokaiView, decode, decode_player

__all__ = [
    "HINT_TABLE",
    "NO_CARD",
    "UNKNOWN",
    "ActionKind",
    "ActionLayout",
    "DecodedAction",
    "HintStatus",
    "Phase",
    "PlayerView",
    "ReferenceStep",
    "ReferenceYokai",
    "Transition",
    "YokaiCard",
    "YokaiConfig",
    "YokaiConfigError",
    "YokaiEnv",
    "YokaiEvent",
    "YokaiEventKind",
    "YokaiHint",
    "YokaiObservation",
    "YokaiParams",
    "YokaiState",
    "YokaiView",
    "available_layouts",
    "decode",
    "decode_player",
    "extract_events",
    "final_outcome",
    "flatten",
    "load_config",
    "make",
    "observe",
    "render_ascii",
    "render_rgb",
]
