"""Population algorithms of the partner zoo, each a Python outer loop around ``population.py``.

``TRAINERS`` maps the ``proagent train --algo`` name to ``train(AlgoConfig, out_dir, log, settings, policy)``
(``policy``: a `ResumePolicy`, how the run saves and whether it continues an interrupted one),
which returns the shipped agent's Manifest (a list of them for ``human_proxy``, one per style);
``SETTINGS`` maps it to the pydantic model of that algorithm's own knobs (``--algo-set``).
"""

from __future__ import annotations

from proagent.training.algorithms.cole import COLESettings, train_cole
from proagent.training.algorithms.common import AlgoConfig
from proagent.training.algorithms.fcp import FCPSettings, train_fcp
from proagent.training.algorithms.hsp import HSPSettings, train_hsp
from proagent.training.algorithms.human_proxy import ProxySettings, train_human_proxy
from proagent.training.algorithms.ippo import IPPOSettings, train_ippo
from proagent.training.algorithms.mep import MEPSettings, train_mep
from proagent.training.algorithms.other_play import OtherPlaySettings, train_other_play
from proagent.training.algorithms.pbt import PBTSettings, train_pbt
from proagent.training.algorithms.state_aug import StateAugSettings, train_state_aug

TRAINERS = {
    "ippo": train_ippo,
    "pbt": train_pbt,
    "fcp": train_fcp,
    "mep": train_mep,
    "cole": train_cole,
    "human_proxy": train_human_proxy,
    "hsp": train_hsp,
    "op": train_other_play,
    "state_aug": train_state_aug,
}

SETTINGS = {
    "ippo": IPPOSettings,
    "pbt": PBTSettings,
    "fcp": FCPSettings,
    "mep": MEPSettings,
    "cole": COLESettings,
    "human_proxy": ProxySettings,
    "hsp": HSPSettings,
    "op": OtherPlaySettings,
    "state_aug": StateAugSettings,
}

__all__ = ["SETTINGS", "TRAINERS", "AlgoConfig"]
