"""`--llm scripted`: a world's scripted planner behind the model contract.

It answers from the typed grounding the agent sends beside each prompt (never the wording), is
labelled as no language model wherever a run records its model, counts tokens by its declared
estimate, is never cached, and is refused in one line where it cannot play."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.cli import main
from proagent.domains import get_domain
from proagent.llm import make_model
from proagent.llm.scripted import (
    SCRIPTED_CAPTION,
    MissingGrounding,
    ScriptedPlannerModel,
    count_tokens,
    describe_model,
    is_scripted,
)
from proagent.llm.types import Completion, Grounding, LLMConfigError, Message, StructuredOutput
from proagent.runner.episode import run_episode

MSGS = [Message(role="system", content="You cook."), Message(role="user", content="What now?")]


def _grounding(held: str | None) -> Grounding:
    facts = {"me": {"held": held}, "pots": [{"status": "empty", "num_ingredients": 0}]}
    return Grounding(purpose="plan", seat=0, facts=facts, output_format="text")


def _overcooked() -> ScriptedPlannerModel:
    scripted = get_domain("overcooked").capabilities.scripted
    assert scripted is not None
    model = make_model("scripted", planner=scripted.answer)
    assert isinstance(model, ScriptedPlannerModel)
    return model


def test_it_answers_from_the_grounding_and_says_what_it_costs():
    model = _overcooked()
    empty = asyncio.run(model.generate(MSGS, grounding=_grounding(None)))
    onion = asyncio.run(model.generate(MSGS, grounding=_grounding("onion")))
    assert "Plan: pickup(onion)" in empty.text and "Plan: put_onion_in_pot()" in onion.text  # the state decides
    assert empty.model == model.name == "scripted" and empty.cost_usd == 0.0 and not empty.cached
    assert empty.prompt_tokens == count_tokens("You cook.") + count_tokens("What now?") == 6
    assert empty.completion_tokens == count_tokens(empty.text) > 0


def test_the_declared_token_estimate_counts_words_numbers_and_marks():
    assert count_tokens("Plan: wait(12)") == 6  # Plan, :, wait, (, 12, )
    assert count_tokens("") == 0 and count_tokens("put_onion_in_pot()") == 8  # put _ onion _ in _ pot ()


def test_without_a_grounding_it_refuses_and_never_reads_the_wording():
    with pytest.raises(MissingGrounding, match="never from the prompt's words"):
        asyncio.run(_overcooked().generate(MSGS))


def test_it_is_made_only_with_a_world_planner_and_never_cached(tmp_path: Path):
    with pytest.raises(LLMConfigError, match="ships a scripted planner"):
        make_model("scripted")
    with pytest.raises(LLMConfigError, match="api_base"):
        make_model("scripted", api_base="http://127.0.0.1:9/v1", planner=lambda g: "")
    assert isinstance(make_model(" scripted ", cache_dir=tmp_path, planner=lambda g: ""), ScriptedPlannerModel)
    assert is_scripted("scripted") and not is_scripted("embedded") and not is_scripted(None)


def test_the_model_record_tells_a_scripted_planner_from_a_language_model():
    scripted, language = describe_model("scripted"), describe_model("openai/gpt-4o-mini")
    assert (scripted.kind, scripted.is_language_model, scripted.caption) == ("scripted", False, SCRIPTED_CAPTION)
    assert "not a language model" in scripted.caption and "estimate" in scripted.token_count
    assert (language.kind, language.is_language_model, language.caption) == ("language_model", True, "openai/gpt-4o-mini")


class _Recorder:
    """The scripted model, keeping every request it answered (messages, grounding, answer)."""

    def __init__(self, inner: ScriptedPlannerModel) -> None:
        self.inner = inner
        self.seen: list[tuple[list[Message], Grounding, str]] = []

    @property
    def name(self) -> str:
        return self.inner.name

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        completion = await self.inner.generate(messages, grounding=grounding)
        assert grounding is not None
        self.seen.append((messages, grounding, completion.text))
        return completion


REWORDING = [("Step", "Turn"), ("you", "thou"), ("the", "a"), ("plan", "scheme"), ("skill", "move")]


def _reworded(messages: list[Message]) -> list[Message]:
    out = []
    for m in messages:
        text = m.content
        for old, new in REWORDING:
            text = text.replace(old, new)
        out.append(Message(role=m.role, content="Irrelevant preamble.\n" + text))
    return out


@pytest.mark.parametrize(
    ("world", "layout", "horizon"),
    [
        ("overcooked", "cramped_room", 12),
        ("cube", "medium_3a", 12),
        ("yokai", "9c_2p", 8),
        ("macrafter", "easy_2a", 6),
    ],
)
def test_an_answer_reads_the_state_not_the_wording(world: str, layout: str, horizon: int):
    """Every request of a short episode, asked again in other words, gets the same answer; asked
    with the same words but another seat's state, the answers differ somewhere."""
    domain = get_domain(world)
    assert domain.capabilities.scripted is not None
    env = domain.make_env(layout, horizon)
    recorder = _Recorder(ScriptedPlannerModel(domain.capabilities.scripted.answer))
    team = [ProAgent(AgentConfig(), recorder, domain, env) for _ in range(env.num_agents)]
    asyncio.run(run_episode(env, domain, team, 0, 0, 0))
    assert len(recorder.seen) >= 2
    for messages, grounding, answer in recorder.seen:
        reworded = _reworded(messages)
        assert reworded != messages
        assert asyncio.run(recorder.inner.generate(reworded, grounding=grounding)).text == answer
    first_messages = recorder.seen[0][0]
    swapped = [asyncio.run(recorder.inner.generate(first_messages, grounding=g)).text for _, g, _ in recorder.seen]
    assert len(set(swapped)) > 1  # same words, other states: the state decides


def _play(tmp_path: Path, name: str, world: str, layout: str, horizon: int, seed: int = 0) -> Path:
    argv = ["play", "--domain", world, "--layout", layout, "--horizon", str(horizon), "--llm", "scripted"]
    argv += ["--seed", str(seed), "--live", "off", "--no-gif", "--runs-dir", str(tmp_path), "--name", name]
    assert main(argv) == 0
    (run,) = tmp_path.glob(f"*-{name}")
    return run


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("world", "layout", "horizon"),
    [
        ("overcooked", "cramped_room", 16),
        ("overcooked", "grounded_coord_simple", 16),
        ("cube", "easy_2a", 8),
        ("yokai", "9c_2p", 6),
        ("macrafter", "easy_2a", 6),
    ],
)
def test_play_with_the_scripted_planner_on_every_world(tmp_path: Path, capsys, world: str, layout: str, horizon: int):
    run = _play(tmp_path, "scripted", world, layout, horizon)
    assert "not a language model" in capsys.readouterr().err.splitlines()[0]
    config = json.loads((run / "config.json").read_text())
    assert config["llm"] == "scripted"
    assert config["model"]["kind"] == "scripted" and config["model"]["is_language_model"] is False
    (episode,) = _lines(run / "episodes.jsonl")
    assert episode["model"] == "scripted" and episode["agent_stats"][0]["model"] == "scripted"
    assert episode["llm_calls"] > 0 and episode["parse_failures"] == 0 and episode["fallbacks"] == 0
    assert episode["completion_tokens"] > 0 and episode["prompt_tokens"] > episode["completion_tokens"]
    assert episode["cost_usd"] == 0.0 and episode["cached_calls"] == 0


def test_the_same_seed_plays_the_same_episode(tmp_path: Path):
    runs = [_play(tmp_path, f"again{i}", "cube", "medium_3a", 12, seed=4) for i in range(2)]
    traces = [[(r["step"], r["actions"], r.get("skill")) for r in _lines(run / "trace.jsonl")] for run in runs]
    assert traces[0] == traces[1] and len(traces[0]) == 12
    (first,), (second,) = (_lines(run / "episodes.jsonl") for run in runs)
    keys = ("score", "decisions", "llm_calls", "prompt_tokens", "completion_tokens", "domain_metrics")
    assert {k: first[k] for k in keys} == {k: second[k] for k in keys}


def test_a_world_without_a_scripted_planner_is_one_line_before_any_run(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "domains"))  # the lamps world ships none
    argv = ["play", "--domain", "lamps_world:DOMAIN", "--layout", "line", "--llm", "scripted", "--runs-dir", str(tmp_path)]
    assert main([*argv, "--live", "off", "--no-gif"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --llm scripted: the lamps world ships no scripted planner; name a model instead"]
    assert list(tmp_path.iterdir()) == []


def test_an_evaluation_never_caches_a_scripted_answer(tmp_path: Path):
    """The same prompt from two states gets each state's answer, where a cache would replay the first."""
    from proagent.eval.config import AgentSpec
    from proagent.eval.models import ModelPool, semaphore_per_endpoint
    from proagent.eval.world import World

    pool = ModelPool(World().models_for(get_domain("overcooked")), tmp_path / "cache", semaphore_per_endpoint(2))
    model = pool.get(AgentSpec(llm="scripted"))
    first, second = (asyncio.run(model.generate(MSGS, grounding=_grounding(held))) for held in (None, "onion"))
    assert first.text != second.text and not second.cached and not (tmp_path / "cache").exists()


def test_a_token_clock_charges_the_scripted_planners_declared_tokens(tmp_path: Path):
    """The world moves while the planner 'thinks', by the tokens its record declares."""
    argv = ["play", "--domain", "cube", "--layout", "easy_2a", "--horizon", "12", "--llm", "scripted", "--clock", "tokens:500"]
    assert main([*argv, "--live", "off", "--no-gif", "--runs-dir", str(tmp_path), "--name", "clock"]) == 0
    (run,) = tmp_path.glob("*-clock")
    (episode,) = _lines(run / "episodes.jsonl")
    charged = episode["decision_steps_mean"] * episode["decisions"]
    assert 0 < charged <= (episode["prompt_tokens"] + episode["completion_tokens"]) / 500
