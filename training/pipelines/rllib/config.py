"""The RLlib pipeline's config schema: ``configs/<env>_rllib.yaml``.

The keys RLlib's PPO uses and no others: the game (``env_kwargs``, ``reward_mode``),
where it runs (``workers``, ``address``), its budget and checkpoints in iterations,
the network (``policy_kwargs``: the layers and their activation,
:data:`training.pipelines.network.MLP_SETTINGS`), PPO's hyperparameters (``ppo``, under
sb3's names, which :func:`training.pipelines.rllib.learner.build_config` gives RLlib
under its own) and the closing evaluation. A key of the sb3 pipeline that RLlib has no
counterpart for (``n_envs``, ``vec_env``, ``warm_start``, ``self_play``, ...) is
refused like any unknown key. Each env's default config carries the game, network and
PPO hyperparameters of its PPO config (``configs/<env>.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.aec import REWARD_MODES
from training.framework.config import EvaluationConfig, RunConfig
from training.framework.schema import (
    OPTIONAL_TEXT,
    Check,
    integer,
    number,
    one_of,
    section,
    setting,
    table,
)
from training.pipelines import network

#: ``policy_kwargs.activation_fn`` -> RLlib's ``fcnet_activation`` (the same names).
ACTIVATIONS = {name: name for name in network.ACTIVATIONS}

#: PPO's hyperparameters RLlib takes, under sb3's names (RLlib's: lr, num_epochs, minibatch_size,
#: gamma, lambda_, entropy_coeff, clip_param).
PPO_SETTINGS: dict[str, Check] = {
    "learning_rate": number(above=0),
    "n_epochs": integer(1),
    "batch_size": integer(1),  # the minibatch (at most the iteration's rollout_steps)
    "gamma": number(0, 1),
    "gae_lambda": number(0, 1),
    "ent_coef": number(minimum=0),
    "clip_range": number(above=0),
}


@dataclass
class RLlibConfig(RunConfig):
    iterations: int = setting(20, integer(1))  #: the budget: PPO iterations (one train batch each)
    workers: int = setting(2, integer(0))  #: env runners (one CPU each)
    address: str | None = setting(None, OPTIONAL_TEXT)  #: a Ray cluster to join (e.g. "auto"); null: start a local Ray
    rollout_steps: int = setting(
        2048, integer(1)
    )  #: env steps per iteration, the moves of every seat (the train batch)
    checkpoint_every: int = setting(10, integer(1))  #: iterations between checkpoints
    #: the learner's reward: "score", "margin" or "win" (see envs/aec.py); empty: the env's default for the player count
    reward_mode: str = setting("", one_of("", *REWARD_MODES))
    policy_kwargs: dict[str, Any] = setting({}, table(network.MLP_SETTINGS, "policy_kwargs"))
    ppo: dict[str, Any] = setting({}, table(PPO_SETTINGS, "ppo"))
    evaluation: EvaluationConfig = section(EvaluationConfig)
