"""Any env of the collection as an RLlib ``MultiAgentEnv`` (new API stack), masks included.

RLlib's PettingZoo wrapper passes our observations through unchanged, but its
action-masking module (``ActionMaskingTorchRLModule``) reads the keys
``"observations"`` and ``"action_mask"``, where PettingZoo classic says
``"observation"``. :class:`RLlibAECEnv` renames the key, once, here, and gives the mask
as ``float32`` (the module takes its logarithm), and lists the agents in seat order
(RLlib's wrapper takes them from a set). Turn order, rewards and episode ends
are RLlib's ``PettingZooEnv``: each ``step`` is one move of the agent to act.

    from envs.integrations.rllib import RLlibEnv
    config = PPOConfig().environment(RLlibEnv, env_config={"env": "invers", "max_plies": 200})

or by name, registered with Ray Tune (after ``ray.init``, and once per job: Tune keys its
registry by the process's first job, so a second run in the same process would not find
the name; the class has no such catch, and ``training/train_rllib.py`` uses it):

    from envs.integrations.rllib import register_envs
    register_envs()                      # names "tabletop/<env>", e.g. "tabletop/invers"
    config = PPOConfig().environment("tabletop/invers", env_config={"max_plies": 200})
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

from envs.registry import ENVS, PETTINGZOO_NAMESPACE, get_entry

#: The observation keys RLlib's action-masking RLModule reads.
OBSERVATIONS = "observations"
ACTION_MASK = "action_mask"


def _rename_space(space: gymnasium.spaces.Dict) -> gymnasium.spaces.Dict:
    mask = space["action_mask"]
    return gymnasium.spaces.Dict(
        {OBSERVATIONS: space["observation"], ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, mask.shape, np.float32)}
    )


def _rename(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {OBSERVATIONS: observation["observation"], ACTION_MASK: observation["action_mask"].astype(np.float32)}


class RLlibAECEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over one of our AEC envs, with RLlib's observation keys."""

    def __init__(self, aec_env):
        super().__init__(aec_env)
        # RLlib lists the agents from a set, in an order that changes between processes.
        self.agents = list(aec_env.possible_agents)
        self.possible_agents = list(aec_env.possible_agents)
        self.observation_spaces = {agent: _rename_space(space) for agent, space in self.observation_spaces.items()}
        self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        return {agent: _rename(obs) for agent, obs in observations.items()}, infos

    def step(self, action):
        observations, rewards, terminateds, truncateds, infos = super().step(action)
        return {agent: _rename(obs) for agent, obs in observations.items()}, rewards, terminateds, truncateds, infos


def rllib_env_name(env: str) -> str:
    """The name under which :func:`register_envs` registers env ``env`` with Ray Tune."""
    get_entry(env)
    return f"{PETTINGZOO_NAMESPACE}/{env}"


class RLlibEnv(RLlibAECEnv):
    """The env built from RLlib's ``env_config``, ``{"env": name, **options}`` (the options go to
    the env module's ``env()``): a class RLlib can be handed as the env itself, with no name
    registered with Ray Tune."""

    def __init__(self, env_config: dict[str, Any]):
        options = dict(env_config)
        module = get_entry(options.pop("env")).load_module()
        super().__init__(module.env(**options))


def make_rllib_env(env_config: dict[str, Any]) -> RLlibEnv:
    """The creator :func:`register_envs` registers: ``env_config`` as :class:`RLlibEnv` takes it."""
    return RLlibEnv(env_config)


def register_envs() -> None:
    """Register every env of the collection with Ray Tune as ``tabletop/<name>``.

    Runs in each process that builds an algorithm; the env runners receive the creator
    with the config, so a cluster's other machines need only the package installed.
    """
    for name in ENVS:
        register_env(rllib_env_name(name), lambda config, name=name: make_rllib_env({"env": name, **config}))
