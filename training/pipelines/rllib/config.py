"""The RLlib pipeline's config schema: ``configs/<env>_rllib.yaml``.

The keys RLlib's PPO uses and no others: the game (``env_kwargs``, ``reward_mode``),
where it runs (``address``) and on what (env runners: ``workers``, ``envs_per_worker``,
``cpus_per_worker``, ``gpus_per_worker``; learners: ``learners``, ``cpus_per_learner``,
``gpus_per_learner``), its budget and checkpoints in iterations,
the network (``policy_kwargs``: the layers and their activation,
:data:`training.pipelines.network.MLP_SETTINGS`), PPO's hyperparameters (``ppo``, under
sb3's names, which :func:`training.pipelines.rllib.learner.build_config` gives RLlib
under its own) and the closing evaluation. A key of the sb3 pipeline that RLlib has no
counterpart for (``n_envs``, ``vec_env``, ``warm_start``, ``self_play``, ...) is
refused like any unknown key. Each env's default config carries the game, network and
PPO hyperparameters of its PPO config (``configs/<env>.yaml``).

:meth:`RLlibConfig.check` refuses, before Ray starts, the values RLlib would accept and
then fail on mid-run: a minibatch larger than a learner's share of the train batch, a
train batch that the learners cannot split evenly, and one too short for every env to
complete a move to learn from (RLlib's learner then has no minibatch at all to update
on and fails with ``UnboundLocalError: ... 'loss_per_module'``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.aec import REWARD_MODES
from envs.core import Game
from training.framework.config import EvaluationConfig, RunConfig
from training.framework.schema import (
    BOOL,
    OPTIONAL_TEXT,
    Check,
    ConfigError,
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
    "batch_size": integer(1),  # the minibatch (at most a learner's share of rollout_steps)
    "gamma": number(0, 1),
    "gae_lambda": number(0, 1),
    "ent_coef": number(minimum=0),
    "clip_range": number(above=0),
}

#: PPO's minibatch without ``ppo.batch_size`` (sb3's default, as the PPO pipeline's).
DEFAULT_MINIBATCH = 64


@dataclass
class RLlibConfig(RunConfig):
    iterations: int = setting(20, integer(1))  #: the budget: PPO iterations (one train batch each)
    #: a Ray cluster to join (e.g. "auto", "HEAD_IP:6379"); null: the RAY_ADDRESS environment variable's,
    #: or without it a new local Ray of its own (never a cluster that happens to run on the machine)
    address: str | None = setting(None, OPTIONAL_TEXT)
    workers: int = setting(2, integer(0))  #: env runners (0: the driver samples itself)
    #: a local Ray may reserve more CPUs than the machine has (its env runners then share the cores);
    #: false: such a run is refused, as a cluster too small for it is
    oversubscribe: bool = setting(False, BOOL)
    envs_per_worker: int = setting(1, integer(1))  #: envs each env runner steps (RLlib's num_envs_per_env_runner)
    cpus_per_worker: float = setting(1.0, number(minimum=0))  #: CPUs Ray reserves for each env runner
    gpus_per_worker: float = setting(0.0, number(minimum=0))  #: GPUs Ray reserves for each env runner
    #: learner actors (RLlib's num_learners); 0: one learner inside the driver
    learners: int = setting(0, integer(0))
    cpus_per_learner: float = setting(1.0, number(minimum=0))  #: CPUs Ray reserves for each learner actor
    #: GPUs of each learner (with learners: 0, the driver's learner takes them on the driver's machine)
    gpus_per_learner: float = setting(0.0, number(minimum=0))
    #: env steps per iteration, the moves of every seat (the train batch; split evenly among the learners)
    rollout_steps: int = setting(2048, integer(1))
    checkpoint_every: int = setting(10, integer(1))  #: iterations between checkpoints
    #: the learner's reward: "score", "margin" or "win" (see envs/aec.py); empty: the env's default for the player count
    reward_mode: str = setting("", one_of("", *REWARD_MODES))
    policy_kwargs: dict[str, Any] = setting({}, table(network.MLP_SETTINGS, "policy_kwargs"))
    ppo: dict[str, Any] = setting({}, table(PPO_SETTINGS, "ppo"))
    evaluation: EvaluationConfig = section(EvaluationConfig)

    @property
    def steps_per_learner(self) -> int:
        """A learner's share of the iteration's ``rollout_steps`` (RLlib's ``train_batch_size_per_learner``)."""
        return self.rollout_steps // max(self.learners, 1)

    @property
    def minibatch_size(self) -> int:
        return self.ppo.get("batch_size", DEFAULT_MINIBATCH)

    def check(self, game: Game) -> None:
        learners = max(self.learners, 1)
        if self.rollout_steps % learners:
            raise ConfigError(
                f"rollout_steps ({self.rollout_steps}) must be a multiple of learners ({self.learners}): "
                "each learner trains on an equal share of the iteration's steps"
            )
        # RLlib splits an iteration's env steps evenly among the envs that sample. A seat's move
        # becomes a step to learn from only when that seat observes again, after every other seat
        # has moved: an env that samples fewer steps than there are seats may give none, and an
        # iteration with none leaves the learner no minibatch to update on.
        envs = max(self.workers, 1) * self.envs_per_worker
        if self.rollout_steps < envs * game.num_players:
            raise ConfigError(
                f"rollout_steps ({self.rollout_steps}) must be at least {envs * game.num_players}: "
                f"{game.num_players} seats x {envs} envs sampling ({max(self.workers, 1)} env runners x "
                f"{self.envs_per_worker} envs_per_worker), so that every env ends each iteration with a "
                "move to learn from"
            )
        if self.minibatch_size > self.steps_per_learner:
            raise ConfigError(
                f"ppo.batch_size ({self.minibatch_size}) must be at most a learner's share of rollout_steps "
                f"({self.steps_per_learner}): PPO's minibatches are cut from it; lower ppo.batch_size "
                "(--minibatch-size) or raise rollout_steps (--rollout-steps)"
            )
