"""An RLlib run as an agent: the trained module's most likely legal action.

``training/train_rllib.py`` saves ``rllib_checkpoint.zip``, RLlib's checkpoint folder of
the whole algorithm zipped into one file. Every seat there is played by one shared
policy, an ``ActionMaskingTorchRLModule``; :meth:`RLlibAgent.load` unzips the file and
loads that module alone (``learner_group/learner/rl_module/shared``, with RLlib's
``RLModule.from_checkpoint``: no Ray cluster, no env runners), and the agent plays its
greedy masked action, as the run's own returns were measured.

Ray is an optional extra (``pip install -e ".[rllib]"``): it is imported only when an
RLlib run is loaded, so the other agents never need it; without it the load is refused
with one line that says what to install.
"""

from __future__ import annotations

import importlib.util
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.run_folder import (
    RLLIB_CHECKPOINT_FILE,
    CheckpointError,
    RunLoader,
    check_trained_for,
    checkpoint_file,
    register_loader,
)
from envs.core import Game

SHARED_POLICY = "shared"  #: the policy id every seat maps to
#: Where the shared policy's module lies inside RLlib's checkpoint folder.
MODULE_PATH = ("learner_group", "learner", "rl_module", SHARED_POLICY)
#: The observation keys of RLlib's action-masking module (envs/integrations/rllib.py).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


class RLlibAgent(Agent):
    """Plays an RLlib ``RLModule`` (of an action-masking module): its most likely legal action."""

    name = "rllib"

    def __init__(self, game: Game, module, seed: int | None = None):
        self.module = module
        super().__init__(game, seed)

    @classmethod
    def load(cls, path: str | Path, game: Game, seed: int | None = None) -> RLlibAgent:
        """The agent of an RLlib run folder (or its ``rllib_checkpoint.zip``), checked against ``game``."""
        archive = checkpoint_file(path, RLLIB_CHECKPOINT_FILE)
        check_trained_for(archive, game)
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: PLC0415 (Ray: optional, slow to import; loaded with the first RLlib run only)
        except ImportError:
            raise CheckpointError(
                f"checkpoint {archive.parent} is an RLlib run ({RLLIB_CHECKPOINT_FILE}): playing it needs Ray RLlib, "
                'which is not installed here; install it with pip install -e ".[rllib]" (or "ray[rllib]>=2.60,<3")'
            ) from None
        with tempfile.TemporaryDirectory() as folder:
            try:
                with zipfile.ZipFile(archive) as opened:
                    opened.extractall(folder)
                module = RLModule.from_checkpoint(str(Path(folder, *MODULE_PATH)))
            except Exception as error:  # zip, pickle, torch and Ray's own errors all mean an unusable file
                raise CheckpointError(f"checkpoint {archive} is unreadable: {type(error).__name__}: {error}") from None
        observation_shape, actions = _spaces(module)
        if observation_shape not in (None, game.observation_shape) or actions not in (None, game.num_actions):
            raise CheckpointError(
                f"checkpoint {archive} expects observations {observation_shape} and {actions} actions, "
                f"but {game!r} has {game.observation_shape} and {game.num_actions}"
            )
        agent = cls(game, module, seed=seed)
        agent.path = archive
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(masked_greedy_actions(self.module, np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Many games in one forward pass (the batched env's opponents)."""
        return masked_greedy_actions(self.module, observations, action_masks)


register_loader(
    RunLoader(
        "RLlib",
        ("rllib",),  # training/train_rllib.py
        RLLIB_CHECKPOINT_FILE,
        lambda env_name, path, game, seed: RLlibAgent.load(path, game, seed=seed),
        plays=lambda env: importlib.util.find_spec("ray") is not None,  # finds Ray without importing it
    )
)


def masked_greedy_actions(module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """An RLlib action-masking module's most likely legal action for each row of a batch."""
    import torch  # noqa: PLC0415 (loaded with the module already; not on import, for the agents that need no torch)
    from ray.rllib.core.columns import Columns  # noqa: PLC0415 (Ray: optional; loaded with the module already)

    legal = np.asarray(masks) > 0
    batch = {
        Columns.OBS: {
            OBSERVATIONS: torch.as_tensor(np.asarray(observations, np.float32)),
            ACTION_MASK: torch.as_tensor(legal.astype(np.float32)),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].double().numpy()
    logits[~legal] = -np.inf
    return logits.argmax(axis=1)


def _spaces(module) -> tuple[tuple[int, ...] | None, int | None]:
    """The observation shape and number of actions the module was built for (None where it does not say)."""
    space = getattr(module, "observation_space", None)
    try:
        space = space[OBSERVATIONS]
    except (KeyError, TypeError):
        pass
    shape = tuple(space.shape) if getattr(space, "shape", None) is not None else None
    actions = getattr(getattr(module, "action_space", None), "n", None)
    return shape, None if actions is None else int(actions)
