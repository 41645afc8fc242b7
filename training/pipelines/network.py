"""The policy-value network the pipelines train, from a config's ``policy_kwargs`` to the network and its file.

PPO, expert iteration and RLlib all train an MLP whose settings a config gives as
``policy_kwargs``. This module holds those settings and what becomes of them:

* :data:`POLICY_SETTINGS`, the keys ``policy_kwargs`` may set for sb3's masked
  actor-critic (PPO, expert iteration), and :data:`MLP_SETTINGS`, the ones any MLP has
  (RLlib's masked module takes one list of layers and the activation);
* :func:`policy_kwargs`, the settings as sb3's arguments (the activation by class);
* :func:`build_policy`, the network itself (sb3-contrib's ``MaskableActorCriticPolicy``,
  what MaskablePPO trains), seeded as MaskablePPO seeds it, without a PPO model around it;
* :func:`save_policy`, the network written as the run folder's ``model.zip`` (SB3's
  MaskablePPO format, which :func:`agents.trained.load_model` reads), again without one.

torch and sb3 are imported by the functions that build or save (they take seconds to
import): a config is read and checked without them.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from envs.aec import observation_box
from envs.core import Game
from envs.spaces import LegalActionSpace
from training.framework.schema import BOOL, LAYERS, NET_ARCH, Check, one_of

#: ``policy_kwargs.activation_fn``: the names a config may give, each with its class in ``torch.nn``.
ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "gelu": "GELU"}

#: What every MLP's settings are: its hidden layers, one list of sizes, and their activation by name.
MLP_SETTINGS: dict[str, Check] = {
    "net_arch": Check("a list of layer sizes (integers > 0)", LAYERS.accepts),
    "activation_fn": one_of(*ACTIVATIONS),
}

#: The settings of sb3's masked actor-critic: an MLP's, the layers optionally as separate towers
#: (``{pi: [...], vf: [...]}``), its orthogonal initialization and whether the towers share the features extractor.
POLICY_SETTINGS: dict[str, Check] = {
    **MLP_SETTINGS,
    "net_arch": NET_ARCH,
    "ortho_init": BOOL,
    "share_features_extractor": BOOL,
}


def policy_kwargs(settings: dict[str, Any]) -> dict[str, Any]:
    """A config's ``policy_kwargs`` as sb3's: the activation's name turned into its torch class."""
    from torch import nn  # noqa: PLC0415 (torch takes seconds to import; configs are checked without it)

    kwargs = dict(settings)
    if "activation_fn" in kwargs:
        kwargs["activation_fn"] = getattr(nn, ACTIVATIONS[kwargs["activation_fn"]])
    return kwargs


def build_policy(game: Game, settings: dict[str, Any], seed: int):
    """A new masked actor-critic for ``game`` with the config's ``settings``, its weights drawn as
    ``MaskablePPO(..., seed=seed, policy_kwargs=...)`` draws them: the same network for the same seed.

    Its spaces are those of the game's Gymnasium env; its own optimizer (unused by a learner with
    its own) is MaskablePPO's default, so that a saved network reads as a MaskablePPO model's.
    """
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 (sb3 takes seconds to import; for its defaults only)
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: PLC0415 (as above)
    from stable_baselines3.common.utils import FloatSchedule, set_random_seed  # noqa: PLC0415 (as above)

    learning_rate = inspect.signature(MaskablePPO.__init__).parameters["learning_rate"].default
    set_random_seed(seed)  # python's, numpy's and torch's generators, as MaskablePPO seeds them before its policy
    return MaskableActorCriticPolicy(
        observation_box(game),
        LegalActionSpace(game.num_actions),
        FloatSchedule(learning_rate),
        **policy_kwargs(settings),
    )


def save_policy(path: str | Path, policy, seed: int) -> None:
    """Write ``policy`` (a masked actor-critic) to ``path`` in SB3's MaskablePPO format.

    The file holds what ``MaskablePPO.load`` needs to rebuild the network (its class, spaces
    and :data:`POLICY_SETTINGS`, read off the policy) and its weights and optimizer state; the
    algorithm's other settings are MaskablePPO's defaults when loaded, and ``seed`` is recorded as
    a MaskablePPO model records the seed it was built with.
    """
    from stable_baselines3.common.save_util import save_to_zip_file  # noqa: PLC0415 (sb3 takes seconds to import)

    data = {
        "policy_class": type(policy),
        "policy_kwargs": {key: getattr(policy, key) for key in POLICY_SETTINGS},
        "observation_space": policy.observation_space,
        "action_space": policy.action_space,
        "n_envs": 1,
        "seed": seed,
    }
    params = {"policy": policy.state_dict(), "policy.optimizer": policy.optimizer.state_dict()}
    save_to_zip_file(path, data=data, params=params)
