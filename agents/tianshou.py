"""A Tianshou run as an agent: the trained masked actor's most likely legal action.

``python -m training.integrations.tianshou_ppo`` leaves a run folder whose
``tianshou_policy.pt`` holds the masked PPO's actor and critic
(:mod:`agents.tianshou_policy`); :meth:`TianshouAgent.load` rebuilds the actor alone and
the agent plays its greedy masked action, as the run's evaluation measured it, so the
run plays in ``training/evaluate.py``, ``training/ladder.py`` and ``training/benchmark.py``
like any other run folder.

Tianshou is an optional extra (``pip install -e ".[tianshou]"``): it is imported only when
a Tianshou run is loaded; without it the load is refused with one line that says what to
install.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.run_folder import (
    TIANSHOU_POLICY_FILE,
    CheckpointError,
    RunLoader,
    check_trained_for,
    checkpoint_file,
    register_loader,
)
from envs.core import Game

ALGORITHM = "tianshou_ppo"  #: what a Tianshou run's ``metadata.json`` records


class TianshouAgent(Agent):
    """Plays a Tianshou actor network (logits over the actions): its most likely legal action."""

    name = "tianshou"

    def __init__(self, game: Game, actor, seed: int | None = None):
        self.actor = actor
        super().__init__(game, seed)

    @classmethod
    def load(cls, path: str | Path, game: Game, seed: int | None = None) -> TianshouAgent:
        """The agent of a Tianshou run folder (or its ``tianshou_policy.pt``), checked against ``game``."""
        policy_file = checkpoint_file(path, TIANSHOU_POLICY_FILE)
        check_trained_for(policy_file, game)
        try:
            from agents.tianshou_policy import load_actor  # noqa: PLC0415 (imports Tianshou: optional, loaded with the first Tianshou run only)
        except ImportError:
            raise CheckpointError(
                f"checkpoint {policy_file.parent} is a Tianshou run ({TIANSHOU_POLICY_FILE}): playing it needs "
                'Tianshou, which is not installed here; install it with pip install -e ".[tianshou]" '
                '(or "tianshou==2.0.1")'
            ) from None
        try:
            actor, observation_shape, actions = load_actor(policy_file)
        except Exception as error:  # pickle, torch and shape errors all mean an unusable file
            raise CheckpointError(f"checkpoint {policy_file} is unreadable: {type(error).__name__}: {error}") from None
        if observation_shape != game.observation_shape or actions != game.num_actions:
            raise CheckpointError(
                f"checkpoint {policy_file} expects observations {observation_shape} and {actions} actions, "
                f"but {game!r} has {game.observation_shape} and {game.num_actions}"
            )
        agent = cls(game, actor, seed=seed)
        agent.path = policy_file
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Many positions in one forward pass (the batched env's opponents)."""
        import torch  # noqa: PLC0415 (loaded with the actor already; not on import, for the agents that need no torch)

        with torch.no_grad():
            logits, _ = self.actor(np.asarray(observations, np.float32))
        logits = logits.double().numpy()
        logits[~(np.asarray(action_masks) > 0)] = -np.inf
        return logits.argmax(axis=1)


register_loader(
    RunLoader(
        "Tianshou",
        (ALGORITHM,),  # python -m training.integrations.tianshou_ppo
        TIANSHOU_POLICY_FILE,
        lambda env_name, path, game, seed: TianshouAgent.load(path, game, seed=seed),
        plays=lambda env: importlib.util.find_spec("tianshou") is not None,  # finds Tianshou without importing it
    )
)
