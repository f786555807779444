"""Fixtures for the web tests: a shared env, a finished human run folder, a headless Chromium.

The browser tests need Debian's ``chromium`` and ``chromium-driver`` (CI installs them); without
them they skip with the reason. Chromium runs with every background-network feature off and a
fresh profile, so it never tries to reach the internet.
"""

from __future__ import annotations

from proagent.contract import seat_team
from proagent.domains.overcooked import OvercookedDomain

DOMAIN = OvercookedDomain()

import shutil
import tempfile
import time
from pathlib import Path

import pytest
from web_helpers import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS, heuristic_model, human_args

from tests.support.http_calls import call

HORIZON = 20  # one horizon for every test: each (layout, horizon) costs a jit compile of seconds


@pytest.fixture(scope="session")
def cramped_env():
    """cramped_room with HORIZON steps, compiled once (timing tests must not pay the compile)."""
    import jax
    import jax.numpy as jnp

    import envs

    env = envs.make("cramped_room", envs.Dynamics(horizon=HORIZON))
    state = env.jit_reset(jax.random.PRNGKey(0))
    env.jit_step(jax.random.PRNGKey(0), state, jnp.zeros((2,), jnp.int32)).state.step.block_until_ready()
    return env


@pytest.fixture(scope="session")
def human_run(tmp_path_factory, cramped_env) -> Path:
    """A finished 20-step human game on cramped_room (person pressing a few keys) with answers."""
    from proagent.web.human_session import build_human_session

    root = tmp_path_factory.mktemp("human-run")
    session = build_human_session(human_args(root), cramped_env)
    with session.serve(0) as server:
        call(server.url, "/api/start", {})
        for key in ("up", "interact", "right", "down"):
            call(server.url, "/api/action", {"action": key})
            time.sleep(0.05)
        assert session.game.done.wait(30)
        status, _ = call(server.url, "/api/questionnaire", {"answers": {f"q{i}": 4 for i in range(1, 7)}})
        assert status == 200
    return session.folder.path


@pytest.fixture(scope="session")
def browser():
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip(
            f"browser tests need Debian's chromium and chromium-driver ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="browser tests need selenium (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="proagent-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def llm_run(tmp_path_factory, cramped_env) -> Path:
    """A 20-step play-style run folder: ProAgent (scripted LLM) in seat 0 with greedy, cramped_room."""
    import asyncio

    import jax

    from proagent.agent.config import AgentConfig
    from proagent.agent.proagent import ProAgent
    from proagent.domains.overcooked.partners import make_partner
    from proagent.runner.episode import run_episode
    from proagent.runner.run_folder import RunFolder

    env = cramped_env
    folder = RunFolder(tmp_path_factory.mktemp("runs") / "20260101-000000-play-cramped_room-greedy")
    folder.write_json(
        "config.json",
        {
            "layout": "cramped_room",
            "partner": "greedy",
            "seat": 0,
            "seed": 0,
            "horizon": HORIZON,
            "llm": "scripted",
            "agent": {},
        },
    )
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    agent = ProAgent(AgentConfig(), heuristic_model(), DOMAIN, env)
    assert first.step == 0
    record = asyncio.run(
        run_episode(
            env,
            DOMAIN,
            seat_team(agent, 0, [make_partner("greedy", env.layout)]),
            0,
            0,
            0,
            trace=lambda r: folder.append_jsonl("trace.jsonl", r),
        )
    )
    folder.append_jsonl("episodes.jsonl", record, durable=True)
    return folder.path
