"""Population algorithms of the partner zoo, each a Python outer loop around ``population.py``.

``TRAINERS`` maps the ``proagent train --algo`` name to ``train(AlgoConfig, out_dir, log)``, which
returns the shipped agent's Manifest (a list of them for ``human_proxy``, one per style).
"""

from __future__ import annotations

from proagent.training.algorithms.cole import train_cole
from proagent.training.algorithms.common import AlgoConfig
from proagent.training.algorithms.fcp import train_fcp
from proagent.training.algorithms.human_proxy import train_human_proxy
from proagent.training.algorithms.mep import train_mep
from proagent.training.algorithms.pbt import train_pbt

TRAINERS = {
    "pbt": train_pbt,
    "fcp": train_fcp,
    "mep": train_mep,
    "cole": train_cole,
    "human_proxy": train_human_proxy,
}

__all__ = ["TRAINERS", "AlgoConfig"]
