"""The partner registry: names, factories, the unknown-name error, the Partner protocol."""

from __future__ import annotations

import pytest

from proagent.domains.overcooked.partners import (
    Partner,
    PartnerRegistry,
    SkillPartner,
    UnknownPartnerError,
    available_partners,
    default_registry,
    greedy,
    make_partner,
)
from proagent.domains.overcooked.partners.scripted import StayPartner

SCRIPTED = ["greedy", "onion_passer", "random", "recipe_greedy", "stay", "supplier"]


def test_available_partners_lists_the_scripted_and_the_trained_ones():
    from proagent.paths import PARTNERS_DIR

    trained = {m.parent.name for m in PARTNERS_DIR.glob("overcooked/*/*/manifest.json")}
    assert available_partners() == sorted(set(SCRIPTED) | trained)
    assert "sp" in trained, "the self-play checkpoints ship with the repo"


def test_trained_partner_without_a_checkpoint_for_the_layout_says_how_to_train(tmp_path):
    from proagent.domains.overcooked.partners.registry import PartnerRegistry, trained_factories

    (tmp_path / "overcooked" / "cramped_room" / "mep").mkdir(parents=True)
    (tmp_path / "overcooked" / "cramped_room" / "mep" / "manifest.json").write_text("{}")
    registry = PartnerRegistry().with_factories(trained_factories(tmp_path))
    with pytest.raises(UnknownPartnerError, match="proagent train --algo mep --layout counter_circuit"):
        registry.make("mep", "counter_circuit")


@pytest.mark.parametrize("name", SCRIPTED)
def test_make_partner_builds_a_fresh_partner_of_that_name(name):
    first, second = make_partner(name, "cramped_room"), make_partner(name, "cramped_room")
    assert isinstance(first, Partner)
    assert first.name == name
    assert first is not second


def test_unknown_partner_error_lists_the_available_names():
    with pytest.raises(UnknownPartnerError) as info:
        make_partner("grandmaster", "cramped_room")
    message = str(info.value)
    assert "grandmaster" in message
    assert all(name in message for name in SCRIPTED)
    assert isinstance(info.value, ValueError)


def test_registry_extends_without_touching_the_default():
    extended = default_registry().with_factories({"statue": lambda kitchen, dynamics: StayPartner("statue")})
    assert "statue" in extended.names()
    assert extended.make("statue", "cramped_room").name == "statue"
    assert "statue" not in available_partners()
    assert make_partner("statue", "cramped_room", registry=extended).name == "statue"


def test_registry_refuses_to_shadow_a_name():
    with pytest.raises(ValueError, match="greedy"):
        PartnerRegistry().with_factories({"greedy": lambda kitchen, dynamics: StayPartner()})


def test_skill_partner_must_be_reset_before_acting(make_env):
    env = make_env("cramped_room")
    import jax

    state = env.jit_reset(jax.random.PRNGKey(0))
    with pytest.raises(RuntimeError, match="reset"):
        SkillPartner("greedy", greedy).policy(env.symbolic(state), state)


def test_epsilon_must_be_a_probability():
    with pytest.raises(ValueError, match="epsilon"):
        SkillPartner("greedy", greedy, epsilon=1.5)


def test_partners_command_lists_every_shipped_checkpoint(capsys):
    """`proagent partners --markdown`: one row per partners/overcooked/<layout>/<algo>/manifest.json."""
    from proagent.cli import main
    from proagent.paths import PARTNERS_DIR

    assert main(["partners", "--domain", "overcooked", "--markdown"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    shipped = sorted(PARTNERS_DIR.glob("overcooked/*/*/manifest.json"))
    assert len(lines) == 2 + len(shipped) and lines[0].startswith("| layout | partner | algorithm |")
    assert any("| counter_circuit | sp | sp |" in line for line in lines)
    assert any("| counter_circuit | cole_scratch | cole |" in line for line in lines)  # the folder names the partner


@pytest.mark.parametrize("name", ["greedy", "onion_passer", "supplier"])
def test_the_three_onion_chefs_refuse_a_kitchen_with_other_recipes_in_one_line(name):
    with pytest.raises(ValueError) as info:
        make_partner(name, "demo_cook_simple")
    message = str(info.value)
    assert "\n" not in message
    assert f"{name!r} cooks only the classic three-onion soup" in message
    assert "demo_cook_simple asks for onion, onion, onion or tomato, tomato, tomato" in message


def test_the_baselines_still_play_any_kitchen():
    assert make_partner("stay", "demo_cook_simple").name == "stay"
    assert make_partner("random", "demo_cook_simple").name == "random"


def test_the_domain_lists_only_partners_that_can_play_the_kitchen():
    from envs import make
    from proagent.domains.overcooked.domain import OvercookedDomain

    domain = OvercookedDomain()
    v2 = domain.partner_names(make("demo_cook_simple"))
    assert not {"greedy", "onion_passer", "supplier"} & set(v2)
    assert {"stay", "random", "sp"} <= set(v2)
    assert {"greedy", "supplier"} <= set(domain.partner_names(make("cramped_room")))


def test_the_default_teammate_fits_the_kitchen(tmp_path):
    from envs import make
    from proagent.domains.overcooked.domain import OvercookedDomain
    from proagent.domains.overcooked.partners.registry import PartnerRegistry

    domain = OvercookedDomain()
    assert domain.default_partner(make("cramped_room")) == "greedy"
    assert domain.default_partner(make("demo_cook_simple")) == "sp"  # shipped for every V2 coordination layout
    assert OvercookedDomain(PartnerRegistry()).default_partner(make("demo_cook_simple")) == "stay"  # none trained
