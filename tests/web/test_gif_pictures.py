"""The episode GIF: one colour per seat, the same in every world's GIF and web pages; frames
enlarged to a readable size; a caption line under each with its step, the score so far and the
seats' colours."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from proagent.domains import get_domain
from proagent.runner.episode import StepView, run_episode
from proagent.world.kit import pictures
from proagent.world.kit.pictures import CAPTION_PX, MIN_WIDTH, SEAT_COLOURS, GifRecorder, hex_colour

WEB = Path(pictures.__file__).resolve().parents[2] / "domains"
PALETTES = {  # script -> the constant listing its seat colours
    "overcooked/web/kitchen.js": "PLAYER", "cube/web/cube.js": "AGENT", "yokai/web/yokai.js": "SEAT",
    "macrafter/web/macrafter.js": "AGENT",
}  # fmt: skip


@pytest.mark.parametrize(("script", "name"), list(PALETTES.items()))
def test_every_web_page_colours_the_seats_as_the_gifs_do(script: str, name: str) -> None:
    text = (WEB / script).read_text(encoding="utf-8")
    (listed,) = re.findall(rf"const {name} = \[([^\]]*)\]", text)
    colours = re.findall(r'"(#[0-9a-fA-F]{6})"', listed)
    assert colours[: len(SEAT_COLOURS)] == [hex_colour(c) for c in SEAT_COLOURS][: len(colours)]


def test_the_overcooked_picture_draws_the_players_in_the_seat_colours() -> None:
    import jax

    from envs.overcooked.render import render_rgb

    env = get_domain("overcooked").make_env("cramped_room", 10)
    frame = render_rgb(env.jit_reset(jax.random.PRNGKey(0)))
    for seat in (0, 1):
        assert (frame.reshape(-1, 3) == SEAT_COLOURS[seat]).all(axis=1).sum() > 20, f"player {seat}"


def test_the_gif_is_enlarged_and_captioned_with_step_and_score(tmp_path: Path, monkeypatch) -> None:
    domain = get_domain("cube")
    env = domain.make_env("easy_2a", 12)
    team = [domain.make_partner("pusher", env), domain.make_partner("pusher", env)]
    captions: list[tuple[int, str]] = []
    real = pictures.captioned
    monkeypatch.setattr(pictures, "captioned", lambda f, step, score, seats: captions.append((step, score)) or real(f, step, score, seats))
    gif = GifRecorder(env, domain.capabilities.rendering, tmp_path / "e.gif", chunk=4, seats=2)
    scores: list[float] = [0.0]

    def on_step(view: StepView) -> None:
        gif.scored(view.score)
        scores.append(view.score)

    record = asyncio.run(run_episode(env, domain, team, 0, 7, 0, states=gif, on_step=on_step))
    gif.save()
    assert captions == [(i, f"{s:g}") for i, s in enumerate(scores)] and len(captions) == record.steps + 1
    with Image.open(tmp_path / "e.gif") as image:
        width, height = image.size
        image.seek(0)
        strip = np.asarray(image.convert("RGB"))[height - CAPTION_PX :]
    assert width >= MIN_WIDTH
    for seat in (0, 1):  # the legend's chips
        assert (np.abs(strip.reshape(-1, 3).astype(int) - SEAT_COLOURS[seat]).sum(axis=1) < 12).sum() > 50
