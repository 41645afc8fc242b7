"""Trained policies as agents: a MaskablePPO checkpoint (or a live policy) behind the Agent interface."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.run_folder import (
    MODEL_FILE,
    CheckpointError,
    RunLoader,
    check_trained_for,
    checkpoint_file,
    register_loader,
)
from envs.core import Game


class PolicyAgent(Agent):
    """Plays a MaskablePPO policy: the most likely legal action, or a sample when not deterministic.

    The policy network runs bare (:class:`~agents.network.PolicyValueNetwork`), without
    sb3's distribution objects, which cost several times the network itself per move.
    Sampling uses the agent's own generator (not torch's), so seeded games repeat.
    """

    name = "trained"

    def __init__(self, game: Game, policy, deterministic: bool = True, seed: int | None = None):
        from agents.network import PolicyValueNetwork  # noqa: PLC0415 (torch: loaded by the first network agent, not on import)

        self.policy = policy
        self.network = PolicyValueNetwork(policy)
        self.deterministic = deterministic
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        logits = self.network.logits(np.asarray(observation, np.float32)[None], row_independent=True)[0].astype(
            np.float64
        )
        legal = np.asarray(action_mask) > 0
        logits[~legal] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())  # exact zeros for illegal actions
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The actions of many games in one forward pass (the batched env's opponents,
        :mod:`envs.batched.vector_env`, the evaluation's games in batch): each row's most likely
        legal action, or a sample of each row's legal policy drawn with the agent's generator.
        Each row's logits are those :meth:`act` computes for it, bit for bit
        (:func:`agents.inference.row_blocks`), so the deterministic policy plays the same moves
        either way."""
        logits = self.network.logits(np.asarray(observations, np.float32), row_independent=True).astype(np.float64)
        legal = np.asarray(action_masks) > 0
        logits[~legal] = -np.inf
        if self.deterministic:
            return logits.argmax(axis=1)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(probs, axis=1)
        draws = self.rng.random(len(probs))[:, None] * cumulative[:, -1:]
        chosen = (cumulative <= draws).sum(axis=1)
        # a draw that rounding puts past the last legal action's bound takes that action
        last_legal = legal.shape[1] - 1 - legal[:, ::-1].argmax(axis=1)
        return np.minimum(chosen, last_legal)


class TrainedAgent(PolicyAgent):
    """A trained run loaded from disk."""

    @classmethod
    def load(cls, path: str | Path, game: Game, seed: int | None = None, deterministic: bool = True) -> TrainedAgent:
        """Load ``path``: a run directory (with ``model.zip``) or a model ``.zip`` file."""
        model_path = checkpoint_file(path, MODEL_FILE)
        model = load_model(model_path, game)
        agent = cls(game, model.policy, deterministic=deterministic, seed=seed)
        agent.path = model_path
        return agent


register_loader(
    RunLoader(
        "PPO, expert iteration",
        ("ppo", "expert_iteration"),  # training/train.py (the PPO and expert-iteration pipelines)
        MODEL_FILE,
        lambda env_name, path, game, seed: TrainedAgent.load(path, game, seed=seed),
        suffixes=(".zip",),
    )
)


def load_model(path: str | Path, game: Game):
    """The MaskablePPO model at ``path`` (run directory or ``.zip``), checked against ``game``.

    Checks that the model was trained for this game: same env name when the run's
    config is at hand, and always the same observation and action spaces.
    """
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 (sb3 and torch: loaded with the first checkpoint, not on import)

    model_path = checkpoint_file(path, MODEL_FILE)
    check_trained_for(model_path, game)
    try:
        model = MaskablePPO.load(str(model_path), device="cpu")
    except Exception as error:  # zip, pickle and torch errors all mean an unusable file
        raise CheckpointError(f"checkpoint {model_path} is unreadable: {type(error).__name__}: {error}") from None
    obs_shape = tuple(model.observation_space.shape)
    if obs_shape != game.observation_shape or model.action_space.n != game.num_actions:
        raise CheckpointError(
            f"checkpoint {model_path} expects observations {obs_shape} and {model.action_space.n} actions, "
            f"but {game!r} has {game.observation_shape} and {game.num_actions}"
        )
    return model
