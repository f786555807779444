"""Config validation: every problem is reported with the path of the bad field, before any episode."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import config

from proagent.eval.ablation import expand_ablation
from proagent.eval.config import (
    ConfigError,
    EvalConfig,
    read_config_file,
    validate_config,
)
from proagent.eval.world import resolve


def check(data: dict) -> str:
    with pytest.raises(ConfigError) as info:
        validate_config(data, "test.toml", EvalConfig)
    return str(info.value)


GOOD = {"agents": [{"kind": "proagent"}], "partners": ["greedy"], "layouts": ["cramped_room"]}


def test_errors_name_the_bad_field():
    msg = check({**GOOD, "agents": [{"kind": "proagent"}, {"kind": "proagent", "label": "b", "memory_k": -1}]})
    assert "agents[1].memory_k: Input should be greater than or equal to 0" in msg
    assert "episodess: unknown field" in check({**GOOD, "episodess": 3})
    assert "agents[0].belief" in check({**GOOD, "agents": [{"belief": "sometimes"}]})
    assert "seats[0]" in check({**GOOD, "seats": [-1]})  # a seat beyond the layout's is checked with the layouts
    assert "partners: listed twice: greedy" in check({**GOOD, "partners": ["greedy", "greedy"]})
    assert "agents: Field required" in check({"partners": ["greedy"], "layouts": ["cramped_room"]})


def test_agent_rules():
    msg = check({**GOOD, "agents": [{"kind": "greedy", "memory_k": 3}]})
    assert "agents[0]: memory_k only apply to kind 'proagent'" in msg
    assert "two agents are named 'proagent'" in check({**GOOD, "agents": [{}, {"prompt": "analysis"}]})
    spec = EvalConfig.model_validate({**GOOD, "agents": [{"llm": "embedded"}, {"llm": "openai/x", "label": "x"}]}).agents
    assert spec[0].agent_config().legal_only is True and spec[1].agent_config().legal_only is False


def test_names_are_checked_against_layouts_partners_prompts(world):
    cfg = config(layouts=["cramped_room", "no_such_kitchen"], partners=["greedy", "nobody"], agents=[{"kind": "proagent", "prompt": "nope"}, {"kind": "martian"}])
    with pytest.raises(ConfigError) as info:
        resolve(cfg, world)
    msg = str(info.value)
    assert "layouts[1]: unknown layout 'no_such_kitchen'" in msg
    assert "partners[1]: unknown partner 'nobody'; available partners:" in msg
    assert "agents[0].prompt: unknown prompt set 'nope'" in msg
    assert "agents[1].kind: unknown agent kind 'martian'" in msg
    with pytest.raises(ConfigError, match="listed already"):
        resolve(config(layouts=["cramped_room", "simple"]), world)  # the legacy name of cramped_room


def test_toml_and_yaml_files(tmp_path: Path):
    toml = tmp_path / "a.toml"
    toml.write_text('partners = ["greedy"]\nlayouts = ["cramped_room"]\n[[agents]]\nkind = "proagent"\nmemory_k = 2\n')
    yaml = tmp_path / "a.yaml"
    yaml.write_text("partners: [greedy]\nlayouts: [cramped_room]\nagents:\n  - kind: proagent\n    memory_k: 2\n")
    assert read_config_file(toml) == read_config_file(yaml)
    (tmp_path / "bad.toml").write_text("partners = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_config_file(tmp_path / "bad.toml")
    (tmp_path / "a.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"\.toml, \.yaml or \.yml"):
        read_config_file(tmp_path / "a.json")


def test_ablation_errors_name_the_variant():
    data = {"title": "t", "partners": ["greedy"], "layouts": ["cramped_room"], "variants": {"ok": {}, "broken": {"memory_k": "many"}}}
    with pytest.raises(ConfigError, match=r"variants\.broken\.memory_k: Input should be a valid integer"):
        expand_ablation(data, "x.toml")
    with pytest.raises(ConfigError, match=r"metrics: .*unknown metrics \['happiness'\]"):
        expand_ablation({**data, "variants": {"ok": {}}, "metrics": ["happiness"]}, "x.toml")
    expanded, info = expand_ablation({**data, "base": {"memory_k": 1}, "variants": {"k0": {"memory_k": 0}, "k1": {}}}, "x.toml")
    assert [a["memory_k"] for a in expanded["agents"]] == [0, 1] and info.variants == ["k0", "k1"]


@pytest.mark.parametrize("path", sorted(Path(__file__).parents[2].joinpath("runs", "ablations").glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_ablation_configs_are_valid(path: Path):
    data, info = expand_ablation(read_config_file(path), str(path))
    cfg = validate_config(data, str(path), EvalConfig)
    assert len(cfg.agents) == len(info.variants) >= 2
