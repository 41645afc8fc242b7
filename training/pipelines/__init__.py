"""Training pipelines: each is a learner on top of the run framework (training.framework).

:data:`PIPELINES` names them for a config's ``pipeline`` key, which lets the main command
(``training/train.py --env E``) run whichever pipeline an env's default config is
written for: Six Hundred's default is the turn-value pipeline, every other env's PPO.
Each is imported only when asked for (RLlib's needs Ray).
"""

from __future__ import annotations

import importlib

#: A pipeline's name (its class's ``name``, a config's ``pipeline`` value) -> ``module:class``.
PIPELINES = {
    "ppo": "training.pipelines.ppo.learner:PPO",
    "td": "training.pipelines.td.learner:TurnValueTD",
    "expert_iteration": "training.pipelines.expert_iteration.learner:ExpertIteration",
    "rllib": "training.pipelines.rllib.learner:RLlib",
}


def pipeline_class(name: str):
    """The :class:`~training.framework.run.Pipeline` subclass called ``name``."""
    module, _, attribute = PIPELINES[name].partition(":")
    return getattr(importlib.import_module(module), attribute)
