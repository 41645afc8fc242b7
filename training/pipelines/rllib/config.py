"""The RLlib pipeline's config schema: an env's PPO config (``configs/<env>.yaml``) plus RLlib's own keys.

The PPO hyperparameters, the network (``policy_kwargs``), the game's options and the
reward mode are those of the env's PPO config, translated to RLlib's names; the keys of
the sb3 pipeline that RLlib has no counterpart for (``n_envs``, ``vec_env``,
``warm_start``, ``self_play``, ``opponents``, ``normalize_reward``) are listed when a
run starts, not silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.core import Game
from training.framework.schema import OPTIONAL_TEXT, ConfigError, integer, optional, setting
from training.pipelines.ppo.config import PPOConfig

#: ``policy_kwargs.activation_fn`` -> RLlib's ``fcnet_activation``.
ACTIVATIONS = {"tanh": "tanh", "relu": "relu", "elu": "elu", "gelu": "gelu"}


@dataclass
class RLlibConfig(PPOConfig):
    iterations: int = setting(20, integer(1))  #: the budget: PPO iterations (one train batch each)
    workers: int = setting(2, integer(0))  #: env runners (one CPU each)
    address: str | None = setting(None, OPTIONAL_TEXT)  #: a Ray cluster to join (e.g. "auto"); null: start a local Ray
    rollout_steps: int | None = setting(
        None, optional(integer(1))
    )  #: env steps per iteration (null: ppo.n_steps x n_envs)
    checkpoint_iterations: int = setting(
        10, integer(1)
    )  #: iterations between checkpoints (checkpoint_every counts PPO steps)

    def check(self, game: Game) -> None:
        super().check(game)
        if isinstance(self.policy_kwargs.get("net_arch"), dict):
            raise ConfigError(
                "policy_kwargs.net_arch: RLlib's masked module takes one list of layer sizes, not {pi, vf}"
            )

    def unused_keys(self) -> list[str]:
        """The sb3 pipeline's keys set in this config that RLlib does not use."""
        defaults = PPOConfig()
        keys = ["n_envs", "vec_env", "normalize_reward", "opponents", "torch_threads"]
        unused = [key for key in keys if getattr(self, key) != getattr(defaults, key)]
        unused += [key for key in ("warm_start", "self_play") if getattr(self, key).enabled]
        return unused
