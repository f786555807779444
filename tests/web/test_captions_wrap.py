"""The replay's caption under the Yōkai and MA-Crafter boards wraps onto more lines instead of
cutting its end off (the hints, the target and the rules are long). Run in node with a canvas
context that measures 6 px a character."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from proagent.domains.macrafter.web import SCRIPT as CRAFTER_JS
from proagent.domains.yokai.web import SCRIPT as YOKAI_JS

PROBE = """
const fs = require("fs"), vm = require("vm");
const context = { console };
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8") + ";this.M = " + process.argv[2] + ";", context);
const ctx = { font: "", measureText: (s) => ({ width: 6 * s.length }) };
const text = context.M.captionText(...JSON.parse(process.argv[3]));
console.log(JSON.stringify({ text, lines: context.M.wrapLines(ctx, text, 120, 11) }));
"""


def wrapped(script, module: str, args: list) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    out = subprocess.run([node, "-e", PROBE, str(script), module, json.dumps(args)], check=True, capture_output=True,
                         text=True, timeout=60)  # fmt: skip
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    ("script", "module", "args"),
    [
        (YOKAI_JS, "Yokai", [{"player": 1, "phase": "place_hint", "hints": [[3, "red_blue", [4, 5]], [7, "green", []]]}, "-2"]),
        (CRAFTER_JS, "Crafter", [{"score": 3}, {"target": "iron pickaxe", "rules": "EmCoop: quorum 2, shares adjacent, sleep locks"}, "3"]),
    ],
)  # fmt: skip
def test_a_long_caption_wraps_and_keeps_every_word(script, module: str, args: list) -> None:
    found = wrapped(script, module, args)
    assert len(found["lines"]) > 1 and " ".join(found["lines"]) == found["text"]
    assert all(6 * len(line) <= 120 or " " not in line for line in found["lines"])  # each fits (a lone long word aside)
