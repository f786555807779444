"""The embedded model's grammar for Yōkai lists only the legal choices: with ``legal_only`` (on for
the embedded model) the plan rule of the GBNF grammar the agent's request compiles to names exactly
the skill calls the phase allows, for the seat to move and for a seat waiting its turn; a belief
probe's grammar allows only the layout's colours (or "unknown") for each card."""

from __future__ import annotations

import asyncio
import re

import jax
import jax.numpy as jnp
import pytest

from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.contract import Observation
from proagent.domains import get_domain
from proagent.domains.yokai.skills import move_arg
from proagent.domains.yokai.table import YokaiTable, YokaiWorldEnv
from proagent.llm.embedded import grammar_text
from tests.support.responders.yokai import yokai_answer
from tests.support.scripted import ScriptedModel, answering

pytest.importorskip("llama_cpp")

DOMAIN = get_domain("yokai")
RULE = re.compile(r"^([a-z0-9-]+) ::= (.*)$", re.MULTILINE)
QUOTED = re.compile(r'"\\"([^"\\]*)\\""')  # "\"observe(0)\"": one alternative of a rule


def _alternatives(grammar: str, rule: str) -> set[str]:
    rules = dict(RULE.findall(grammar))
    return set(QUOTED.findall(rules[rule]))


def _grammars(table: YokaiTable, env: YokaiWorldEnv, seat: int, probe: bool = False) -> list[str]:
    """The grammar of each request one decision of ``seat`` on ``table`` sends (the plan's first)."""
    model = ScriptedModel(respond=answering(yokai_answer))
    agent = ProAgent(AgentConfig(legal_only=True, belief_probe=probe), model, DOMAIN, env)
    obs = Observation(seat, table, None, None, 0.0)
    agent.reset(seat, 0, obs)
    asyncio.run(agent.act(obs, []))
    return [grammar_text(call.structured) for call in model.calls if call.structured is not None]


def _play(env: YokaiWorldEnv, actions: list[int]) -> YokaiTable:
    state, key = env.jit_reset(jax.random.PRNGKey(3)), jax.random.PRNGKey(0)
    for action in actions:
        state = env.jit_step(key, state, jnp.array([action, env.config.actions.noop])).state
    return env.symbolic(state)


def _legal_moves(table: YokaiTable) -> set[str]:
    lay = table.layout
    moves = [divmod(a - lay.move_start, lay.cells) for a in table.legal if lay.move_start <= a < lay.reveal_start]
    return {f"move({move_arg(card, cell // lay.grid_size, cell % lay.grid_size)})" for card, cell in moves}


def test_the_first_look_allows_each_card_or_ending_and_nothing_else() -> None:
    env = DOMAIN.make_env("9c_2p", 128)
    table = _play(env, [])
    (grammar,) = _grammars(table, env, 0)
    assert _alternatives(grammar, "plan") == {f"observe({c})" for c in range(9)} | {"end_game()"}


def test_a_game_that_may_not_end_yet_offers_only_looks_and_then_ending_again() -> None:
    """``--env end_from_turn=1``: at the first turn's first look ending is not a choice; at the
    second turn's it is."""
    env = DOMAIN.capabilities.settings.make_env_with("9c_2p", 128, {"end_from_turn": "1"})
    lay = env.config.actions
    (grammar,) = _grammars(_play(env, []), env, 0)
    assert _alternatives(grammar, "plan") == {f"observe({c})" for c in range(9)}
    one_turn = [lay.observe(4), lay.observe(0), *sorted(_play(env, [lay.observe(4), lay.observe(0)]).legal)[:1], lay.reveal(0)]
    second_turn = _play(env, one_turn)
    assert second_turn.game.player == 1 and 0 in second_turn.legal  # action 0: END
    (grammar,) = _grammars(second_turn, env, 1)
    assert "end_game()" in _alternatives(grammar, "plan")


def test_the_move_phase_allows_exactly_the_legal_moves() -> None:
    env = DOMAIN.make_env("9c_2p", 128)
    lay = env.config.actions
    table = _play(env, [lay.observe(4), lay.observe(0)])
    legal = _legal_moves(table)
    (grammar,) = _grammars(table, env, 0)
    assert len(legal) > 20 and _alternatives(grammar, "plan") == legal  # no look, no pass, no wait, no split board
    assert "move(4_to_4_4)" in _alternatives(grammar, "intention") - legal  # a skill (its own cell), not legal now


def test_a_seat_off_turn_may_only_wait_and_the_intention_keeps_every_skill() -> None:
    env = DOMAIN.make_env("9c_2p", 128)
    (grammar,) = _grammars(_play(env, []), env, 1)
    assert _alternatives(grammar, "plan") == {f"wait({n})" for n in range(1, 13)}
    assert "end_game()" in _alternatives(grammar, "intention")  # a prediction of the teammate is not limited


def test_the_probe_grammar_allows_the_layouts_colours_for_each_card() -> None:
    env = DOMAIN.make_env("16c_2p", 224)
    plan, probe = _grammars(_play(env, []), env, 0, probe=True)
    rules = dict(RULE.findall(probe))
    assert "plan" in dict(RULE.findall(plan)) and "plan" not in rules
    assert rules["root"].count("-kv") == 16  # one entry per card, all required
    colours = {value for name, body in rules.items() if not name.endswith("kv") for value in QUOTED.findall(body)}
    assert colours == {"red", "green", "blue", "purple", "unknown"}
