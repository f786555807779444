"""Yōkai as a built-in world: the contract (env, skills, prompts, partners), observation honesty
(a prompt states only colours its seat has seen, and in the real-memory game a moved card's colour
only as remembered), phase checks, scripted games, and `play` end to end on the loopback model."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from envs.yokai import make
from proagent.agent.config import AgentConfig
from proagent.agent.planner import Planner
from proagent.agent.proagent import ProAgent
from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.cli import main
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import domain_for, get_domain
from proagent.domains.yokai.grounding import ground_facts
from proagent.domains.yokai.memory import SeatMemory
from proagent.domains.yokai.skills import phase_failures, skill_book_for
from proagent.domains.yokai.table import YokaiTable, YokaiWorldEnv
from proagent.runner.episode import run_episode
from proagent.web.replay_data import episode_payload, load_run
from proagent.world.types import DomainInputError, Skill, SkillParseError, TeammateView
from tests.support.responders.yokai import yokai_answer
from tests.support.scripted import ScriptedCall, ScriptedModel

DOMAIN = get_domain("yokai")
STATED = re.compile(r"Card (\d+) at \(\d+, \d+\): (red|green|blue|purple)")
REMEMBERED = re.compile(
    r"Card (\d+)(?: at \(\d+, \d+\): colour not known now; you remember it|: you saw it) (red|green|blue|purple)"
)  # the proagent set's wording, then the compact set's
BOARD = re.compile(r"(?<![A-Za-z?])([RGBPrgbp])(\d+)")  # R3: known red card 3, r3: remembered
MEMORY = re.compile(r"(\d+)=(red|green|blue|purple)")  # the memory lines' "colours you know"


def _env(layout: str = "9c_2p", horizon: int | None = None) -> YokaiWorldEnv:
    return DOMAIN.make_env(layout, horizon or DOMAIN.default_horizon(layout))


def _table(env: YokaiWorldEnv, seed: int = 0) -> YokaiTable:
    return env.symbolic(env.jit_reset(jax.random.PRNGKey(seed)))


def test_yokai_is_built_in_and_owns_its_layouts() -> None:
    assert DOMAIN.layout_names() == ["9c_2p", "9c_3p", "9c_4p", "16c_2p", "16c_3p", "16c_4p"]  # the paper's main one first
    assert domain_for("9c_3p", None).name == "yokai" and not DOMAIN.owns("medium_3a")
    with pytest.raises(DomainInputError, match="9c_2p"):
        DOMAIN.make_env("12c_2p", 10)
    env = _env()
    scripted = {"careful", "hint_reader", "random"}
    assert DOMAIN.default_partner(env) == "careful" and scripted <= set(DOMAIN.partner_names(env))
    assert all(isinstance(DOMAIN.make_partner(n, env), Agent) for n in DOMAIN.partner_names(env))
    with pytest.raises(UnknownAgentError, match="unknown partner 'greedy'; yokai partners: ") as refused:
        DOMAIN.make_partner("greedy", env)
    assert str(refused.value).split("yokai partners: ")[1].split(", ") == DOMAIN.partner_names(env)  # all, sorted
    assert DOMAIN.action_names[DOMAIN.idle_action] == "idle"


def test_the_memory_rule_is_an_env_setting() -> None:
    settings = DOMAIN.capabilities.settings
    real = settings.make_env_with("9c_2p", 20, {"memory": "real"})
    assert not real.perfect_memory and settings.describe(real) == {"memory": "real"}
    assert settings.make_env_with("9c_2p", 20, {}).perfect_memory
    with pytest.raises(DomainInputError, match="yokai settings: memory"):
        settings.make_env_with("9c_2p", 20, {"speed": "2"})
    with pytest.raises(DomainInputError, match="perfect, real"):
        settings.make_env_with("9c_2p", 20, {"memory": "good"})


def test_when_the_game_may_end_is_an_env_setting_that_the_rules_text_and_the_checks_read() -> None:
    settings = DOMAIN.capabilities.settings
    env = settings.make_env_with("9c_2p", 20, {"end_from_turn": "2"})
    assert env.end_from_turn == 2 and settings.describe(env) == {"memory": "perfect", "end_from_turn": 2}
    assert settings.describe(settings.make_env_with("9c_2p", 20, {})) == {"memory": "perfect"}  # the paper's rule
    rules = load_knowledge(DOMAIN.knowledge_root, "9c_2p", 0, DOMAIN.knowledge_facts(env)).rules
    assert "only once 2 turns have been played" in rules
    assert "only once" not in load_knowledge(DOMAIN.knowledge_root, "9c_2p", 0, DOMAIN.knowledge_facts(_env())).rules
    table = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    (why,) = phase_failures(table, 0, Skill("end_game"))
    assert "may not be ended yet" in why
    for bad in ("-1", "two", "9"):  # 9c_2p has 8 turns at most (8 steps per hint)
        with pytest.raises(DomainInputError, match=f"end_from_turn={bad}: a whole number of turns from 0 to 8"):
            settings.make_env_with("9c_2p", 20, {"end_from_turn": bad})


def test_the_env_jits_vmaps_holds_when_done_and_ends_at_its_horizon() -> None:
    env = _env(horizon=3)
    keys = jax.random.split(jax.random.PRNGKey(1), 3)
    batch = env.reset_batch(keys)
    idle = jnp.full((3, 2), DOMAIN.idle_action, jnp.int32)
    stepped = env.step_batch(keys, batch, idle)
    single = env.jit_step(keys[1], env.jit_reset(keys[1]), idle[1])
    assert all(bool(jnp.all(a[1] == b)) for a, b in zip(jax.tree.leaves(stepped), jax.tree.leaves(single), strict=True))
    state = env.jit_reset(keys[0])
    for _ in range(3):  # refused actions change nothing in the game; the clock still ends the episode
        tr = env.jit_step(keys[0], state, idle[0])
        state = tr.state
    assert bool(tr.done) and float(tr.reward) < 0 and env.symbolic(state).game.step == 0
    again = env.jit_step(keys[0], state, idle[0])
    assert float(again.reward) == 0 and int(again.state.clock) == 3
    json.dumps(env.symbolic(state).to_record())


def test_every_skill_parses_back_and_bad_texts_are_refused() -> None:
    book = skill_book_for(_table(_env()))
    skills = book.all_skills()
    assert Skill("move", "4_to_2_5") in skills and Skill("place_hint", "3_on_8") in skills and Skill("pass") in skills
    assert all(book.parse(str(s)) == s for s in skills)
    assert book.parse("Plan: observe( 4 )") == Skill("observe", 4)
    for bad in ("observe(9)", "move(4_to_9_0)", "place_hint(4_on_0)", "reveal_hint(x)", "fly()"):
        with pytest.raises(SkillParseError):
            book.parse(bad)


def test_skills_a_phase_does_not_allow_are_refused_with_the_reason() -> None:
    env = _env()
    table = _table(env)
    book = DOMAIN.skill_book(table)
    assert book.failures(table, 0, Skill("observe", 4)) == [] and book.failures(table, 0, Skill("end_game")) == []
    assert "player 0's turn" in book.failures(table, 1, Skill("observe", 4))[0]
    assert "not allowed in this phase" in book.failures(table, 0, Skill("move", "4_to_2_4"))[0]
    assert "not allowed in this phase" in book.failures(table, 0, Skill("reveal_hint", 0))[0]
    assert "your turn" in book.failures(table, 0, Skill("wait", 1))[0] and book.failures(table, 1, Skill("wait", 1)) == []
    state = env.jit_reset(jax.random.PRNGKey(0))
    lay = env.config.actions
    for action in (lay.observe(4), lay.observe(0)):
        state = env.jit_step(jax.random.PRNGKey(0), state, jnp.array([action, lay.noop])).state
    moving = env.symbolic(state)
    assert "every card must stay one connected group" in book.failures(moving, 0, Skill("move", "4_to_0_0"))[0]
    assert book.failures(moving, 0, Skill("move", "0_to_2_4")) == []
    assert "only for a move phase where no move is legal" in book.failures(moving, 0, Skill("pass"))[0]
    assert "already looked at card 4" in DOMAIN.skill_book(table).failures(
        env.symbolic(env.jit_step(jax.random.PRNGKey(0), env.jit_reset(jax.random.PRNGKey(0)), jnp.array([lay.observe(4), lay.noop])).state),
        0,
        Skill("observe", 4),
    )[0]
    turn0 = (lay.observe(4), lay.observe(0), lay.move(0, 2 * 9 + 4), lay.reveal(0))
    turn1 = (lay.observe(1), lay.observe(2), lay.move(6, 6 * 9 + 4), lay.place(0, 4 * 9 + 4))  # hint 0 on card 4
    state = env.jit_reset(jax.random.PRNGKey(0))
    for action in turn0 + turn1:  # only the acting seat's entry is read
        state = env.jit_step(jax.random.PRNGKey(0), state, jnp.array([action, action])).state
    hinted = env.symbolic(state)
    assert hinted.game.step == 8 and hinted.game.cards[4].hint == 0 and hinted.game.player == 0 and len(hinted.game.turn_cards) == 0
    assert "card 4 carries hint 0" in book.failures(hinted, 0, Skill("observe", 4))[0]
    controller = DOMAIN.controller(book, 0, 0)
    assert controller.act(moving, Skill("move", "0_to_2_4")) == lay.move(0, 2 * 9 + 4)
    assert DOMAIN.controller(book, 1, 0).act(moving, Skill("wait", 3)) == lay.noop


def test_the_prompt_sets_render_from_every_seat_of_every_layout() -> None:
    for layout in DOMAIN.layout_names():
        env = _env(layout)
        table = _table(env)
        for name in ("proagent", "compact"):
            prompts = load_prompt_set(name, DOMAIN.prompts_root)
            for seat in range(env.num_agents):
                check_prompt_set(prompts, DOMAIN, env, table, seat)
        facts = DOMAIN.knowledge_facts(env)
        assert facts["num_hints"] == env.config.num_hints and facts["colours"][-1] in ("blue", "purple")


def _planner_messages(name: str, facts: dict, env: YokaiWorldEnv, table: YokaiTable) -> tuple[str, str]:
    """(system, user) of one planner call of the named set, seat 0 with teammate 1."""
    knowledge = load_knowledge(DOMAIN.knowledge_root, env.name, 0, DOMAIN.knowledge_facts(env))
    planner = Planner(load_prompt_set(name, DOMAIN.prompts_root), knowledge, DOMAIN.skill_book(table), 0, "json", teammates=(1,))
    system, user = planner.messages(facts, [], [])
    return system.content, user.content


def test_the_compact_set_states_the_board_once_and_keeps_the_format_in_the_prefix() -> None:
    """A small model's prompt: the board once, what it cannot show (remembered colours with their step,
    what the teammate looked at), no card-by-card list and no list of legal moves, the answer format in
    the system prompt that every decision shares."""
    game = make("9c_2p", perfect_memory=False)
    env = YokaiWorldEnv(game, 100)
    lay, key = game.layout, jax.random.PRNGKey(0)
    state = env.jit_reset(key)
    memory = SeatMemory(0)
    memory.observe(env.symbolic(state), [])
    for action in (lay.observe(4), lay.observe(0), lay.move(0, 2 * 9 + 4), lay.reveal(1), lay.observe(2), lay.observe(3)):
        before = env.symbolic(state)
        state = env.jit_step(key, state, jnp.array([action, action])).state
        belief = memory.observe(env.symbolic(state), env.events(before, [action, action], env.symbolic(state)))
    table = env.symbolic(state)
    facts = ground_facts(belief, [TeammateView(1, "observe(3)", "idle")], 0.0)
    system, user = _planner_messages("compact", facts, env, table)
    assert "Answer with one JSON object with the keys intention, plan" in system and "Answer" not in user
    assert "Player 1's turn (move a card); you are player 0." in user
    assert "Player 1 has looked at cards 2, 3; its last skill was observe(3)." in user
    assert re.search(r"Card 0: you saw it (red|green|blue) at \(3, 3\) at game step 2\.", user)  # looked at in the second step
    assert "Hints: 0 face down; 1 " in user and ", not placed; 2 face down; 3 face down." in user
    assert "Card 4 at" not in user and "Legal moves" not in user and "Recent history" not in user
    assert "Last play: player 0 moved card 0 from (3, 3) to (2, 4); player 0 revealed hint 1" in user
    _, full_user = _planner_messages("proagent", facts, env, table)
    assert len(user) < 0.6 * len(full_user)  # not the seat's move phase: no legal moves listed in either set


def test_in_the_real_memory_game_a_moved_card_is_only_remembered() -> None:
    game = make("9c_2p", perfect_memory=False)
    env = YokaiWorldEnv(game, 100)
    lay, key = game.layout, jax.random.PRNGKey(0)
    state = env.jit_reset(key)
    memory = SeatMemory(0)
    memory.observe(env.symbolic(state), [])
    for action in (lay.observe(4), lay.observe(0), lay.move(0, 2 * 9 + 4)):
        before = env.symbolic(state)
        state = env.jit_step(key, state, jnp.array([action, lay.noop])).state
        belief = memory.observe(env.symbolic(state), env.events(before, [action, lay.noop], env.symbolic(state)))
        facts = ground_facts(belief, [], 0.0)
    truth = env.symbolic(state).game.cards[0].colour
    assert facts["cards"][0]["colour"] is None and facts["cards"][0]["remembered"]["colour"] == truth
    assert facts["cards"][4]["colour"] == env.symbolic(state).game.cards[4].colour
    assert "player 0 moved card 0 from (3, 3) to (2, 4)" in facts["events"]
    assert ground_facts(SeatMemory(1).observe(env.symbolic(state), []), [], 0.0)["cards"][4]["colour"] is None


def test_a_remembered_colour_is_dated_when_the_seat_looked_not_when_it_last_saw_it() -> None:
    """Card 0 is looked at (step 1), stays in view while card 4 is looked at (step 2), then moves:
    the memory says step 1, the step of the look, not 2, the last step the colour was in view."""
    game = make("9c_2p", perfect_memory=False)
    env = YokaiWorldEnv(game, 100)
    lay, key = game.layout, jax.random.PRNGKey(0)
    state = env.jit_reset(key)
    memory = SeatMemory(0)
    memory.observe(env.symbolic(state), [])
    steps = []
    for action in (lay.observe(0), lay.observe(4), lay.move(0, 2 * 9 + 4)):
        before = env.symbolic(state)
        state = env.jit_step(key, state, jnp.array([action, lay.noop])).state
        belief = memory.observe(env.symbolic(state), env.events(before, [action, lay.noop], env.symbolic(state)))
        steps.append(env.symbolic(state).game.step)
    (card0,) = [s for s in belief.remembered if s.card == 0]
    assert card0.step == steps[0] < steps[1]
    assert ground_facts(belief, [], 0.0)["cards"][0]["remembered"]["step"] == steps[0]  # what the prompt states


def _honest_game(layout: str, perfect_memory: bool, prompt: str) -> tuple[int, Counter, list[str]]:
    """ProAgent in seat 0 with a careful partner; every prompt, its belief probes' included, is checked
    against the true table of the moment it was written: colours stated or drawn only for cards its
    seat has looked at."""
    game = make(layout, perfect_memory=perfect_memory)
    env = YokaiWorldEnv(game, DOMAIN.default_horizon(layout))
    now: list[YokaiTable] = [_table(env, 5)]
    problems: list[str] = []
    checked: Counter = Counter()

    def respond(call: ScriptedCall) -> str:
        seat = call.grounding.facts["me"]["seat"]
        truth = {c.index: c for c in now[0].game.cards}
        text = "\n".join(m.content for m in call.messages)
        stated = STATED.findall(text) + REMEMBERED.findall(text) + MEMORY.findall(text)
        stated += [(card, letter) for letter, card in BOARD.findall(text)]
        checked.update(stated=len(stated), remembered=len(REMEMBERED.findall(text)), probes=call.grounding.purpose == "probe")
        for card, colour in stated:
            c = truth[int(card)]
            if seat not in c.seen_by or colour[0].lower() != str(c.colour)[0]:
                problems.append(f"step {now[0].step}: card {card} stated {colour}")
        if not perfect_memory:
            for card, _ in STATED.findall(text):
                if now[0].seats[seat].cards[int(card)].colour is None:
                    problems.append(f"step {now[0].step}: moved card {card} stated as known")
        return yokai_answer(call.grounding)

    agent = ProAgent(AgentConfig(belief_probe=True, prompt=prompt), ScriptedModel(respond=respond), DOMAIN, env)
    team = [agent, DOMAIN.make_partner("careful", env)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 5, 0, on_step=lambda v: now.__setitem__(0, v.state)))
    assert sum(record.events["game_over"]) == 1
    return agent.stats.llm_calls, checked, problems


@pytest.mark.parametrize("prompt", ["proagent", "compact"])
@pytest.mark.parametrize("perfect_memory", [True, False])
def test_every_prompt_of_a_game_states_only_colours_its_seat_has_seen(perfect_memory: bool, prompt: str) -> None:
    calls, checked, problems = _honest_game("9c_2p", perfect_memory, prompt)
    assert calls > 5 and checked["stated"] > 20 and checked["probes"] > 2 and problems == []
    assert (checked["remembered"] > 0) == (not perfect_memory)


def test_a_careful_pair_finishes_with_a_valid_score() -> None:
    env = _env()
    team = [DOMAIN.make_partner("careful", env), DOMAIN.make_partner("careful", env)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0))
    m = record.domain_metrics
    assert m["win"] == 1.0 and record.score == m["game_score"] == pytest.approx(m["hints_correct"] - m["hints_wrong"])
    assert 0 < m["length"] <= env.config.max_steps and m["hints_used"] == m["hints_correct"] + m["hints_wrong"]
    assert 0 <= m["game_score"] <= env.config.max_score


def test_random_partners_play_legal_games_to_the_end() -> None:
    env = _env("16c_3p")
    team = [DOMAIN.make_partner("random", env) for _ in range(3)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 2, 0))
    assert record.domain_metrics["length"] > 0 and sum(record.events["game_over"]) == 1


def test_play_proagent_with_a_careful_partner_end_to_end(tmp_path: Path) -> None:
    argv = ["play", "--domain", "yokai", "--layout", "9c_2p", "--partner", "careful", "--live", "off"]
    assert main([*argv, "--llm", "scripted", "--runs-dir", str(tmp_path)]) == 0
    (run,) = tmp_path.glob("*-play-9c_2p-careful")
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    m = episode["domain_metrics"]
    assert episode["team"] == ["proagent", "careful"] and set(m) | {"win_if_early"} == set(DOMAIN.metric_names)
    assert m["length"] > 0 and episode["llm_calls"] > 0 and episode["fallbacks"] == 0
    assert episode["events"]["observe"][0] > 0 and sum(episode["events"]["game_over"]) == 1
    assert episode["score"] == m["game_score"] if m["win"] else episode["score"] < 0  # eq. 4 on eq. 1
    payload = episode_payload(load_run(run))  # the replay draws the game from the trace
    frames = payload["frames"]
    assert payload["domain"] == "yokai" and payload["board"]["grid_size"] == 9 and frames[-1]["final"]
    assert payload["metrics"] == m  # the page's episode summary: the paper's metrics, as recorded
    assert [f["yokai"]["step"] for f in frames] == list(range(len(frames)))
    assert {"move", "game_over"} <= {e["kind"] for f in frames for e in f["events"]}
    assert main(["replay", str(run), "--export", str(tmp_path / "replay.html")]) == 0
