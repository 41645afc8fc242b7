"""A game's symmetries as tensors, for turning training minibatches (data augmentation).

:meth:`~envs.core.Game.symmetries` gives index maps of the observation and the actions;
training needs them as tensors, with the identity, and the image of each action (where
a taken action goes) as well as the preimage (where a policy entry comes from).
"""

from __future__ import annotations

import numpy as np
import torch

from envs.core import Game


def symmetry_maps(game: Game) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None]:
    """The identity (None) and each of the game's symmetries as ``(observation_index,
    action_index, action_image)`` tensors, ``action_image[a]`` being where action ``a`` goes."""
    maps: list = [None]
    for observation_index, action_index in game.symmetries():
        image = np.empty_like(action_index)
        image[action_index] = np.arange(len(action_index))
        maps.append(tuple(torch.as_tensor(m) for m in (observation_index, action_index, image)))
    return maps
