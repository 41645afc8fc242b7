"""Trained policies as agents: a MaskablePPO checkpoint (or a live policy) behind the Agent interface."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from agents.base import Agent
from envs.core import Game


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, or trained for another game."""


class PolicyAgent(Agent):
    """Plays a MaskablePPO policy: the most likely legal action, or a sample when not deterministic.

    The policy network runs bare (:class:`~agents.network.PolicyValueNetwork`), without
    sb3's distribution objects, which cost several times the network itself per move.
    Sampling uses the agent's own generator (not torch's), so seeded games repeat.
    """

    name = "trained"

    def __init__(self, game: Game, policy, deterministic: bool = True, seed: int | None = None):
        from agents.network import PolicyValueNetwork  # torch: loaded by the first network agent, not on import

        self.policy = policy
        self.network = PolicyValueNetwork(policy)
        self.deterministic = deterministic
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        logits = self.network.logits(np.asarray(observation, np.float32)[None])[0].astype(np.float64)
        legal = np.asarray(action_mask) > 0
        logits[~legal] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())  # exact zeros for illegal actions
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The actions of many games in one forward pass (the batched env's opponents,
        :mod:`envs.batched.vector_env`): each row's most likely legal action, or a sample
        of each row's legal policy drawn with the agent's generator."""
        logits = self.network.logits(np.asarray(observations, np.float32)).astype(np.float64)
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
        model_path = model_file(path)
        model = load_model(model_path, game)
        agent = cls(game, model.policy, deterministic=deterministic, seed=seed)
        agent.path = model_path
        return agent


#: What a run folder's trained agent is loaded from, by the kind of run that wrote it:
#: ``model.zip`` (MaskablePPO's format: ``training/train.py`` and
#: ``training/expert_iteration.py``), ``value.pt`` (``training/train_td.py``) and
#: ``rllib_checkpoint.zip`` (``training/train_rllib.py``). The first one present decides.
RUN_FILES = {"model.zip": "sb3", "value.pt": "td", "rllib_checkpoint.zip": "rllib"}


def run_kind(path: str | Path) -> str:
    """``"sb3"``, ``"td"`` or ``"rllib"``: which loader plays the run folder (or checkpoint file) ``path``.

    A folder that holds none of :data:`RUN_FILES` raises :class:`CheckpointError` naming
    what a run folder holds; a file is told by its name (any other ``.zip``: sb3).
    """
    path = Path(path)
    if path.is_dir():
        for name, kind in RUN_FILES.items():
            if (path / name).is_file():
                return kind
        raise CheckpointError(
            f"checkpoint {path} holds no trained agent: a run folder holds model.zip (PPO, expert iteration), "
            "value.pt (turn-value TD) or rllib_checkpoint.zip (RLlib); an interrupted run may not have saved one yet"
        )
    if path.suffix == ".pt":
        return "td"
    return RUN_FILES.get(path.name, "sb3")


def model_file(path: str | Path) -> Path:
    """The model file of ``path``: a run directory (its ``model.zip``) or a ``.zip`` file."""
    path = Path(path)
    return path / "model.zip" if path.is_dir() else path


def check_trained_for(checkpoint: Path, game: Game) -> None:
    """A checkpoint file that exists and, where its run's ``config.yaml`` says, was trained on ``game``'s env."""
    if not checkpoint.is_file():
        raise CheckpointError(f"checkpoint {checkpoint} does not exist")
    config_path = checkpoint.parent / "config.yaml"
    if config_path.is_file():
        env = (yaml.safe_load(config_path.read_text()) or {}).get("env")
        if env != game.name:
            raise CheckpointError(f"checkpoint {checkpoint} was trained on {env!r}, not {game.name!r}")


def load_model(path: str | Path, game: Game):
    """The MaskablePPO model at ``path`` (run directory or ``.zip``), checked against ``game``.

    Checks that the model was trained for this game: same env name when the run's
    config is at hand, and always the same observation and action spaces.
    """
    from sb3_contrib import MaskablePPO  # sb3 and torch: loaded with the first checkpoint, not on import

    model_path = model_file(path)
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
