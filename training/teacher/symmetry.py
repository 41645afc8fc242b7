"""A game's symmetries as tensors, for turning training minibatches (data augmentation).

:meth:`~envs.core.Game.symmetries` gives index maps of the observation and the actions;
training needs them as tensors, with the identity, and the image of each action (where
a taken action goes) as well as the preimage (where a policy entry comes from).
"""

from __future__ import annotations

import numpy as np
import torch

from envs.core import Game

Symmetry = tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None


def symmetry_maps(game: Game) -> list[Symmetry]:
    """The identity (None) and each of the game's symmetries as ``(observation_index,
    action_index, action_image)`` tensors, ``action_image[a]`` being where action ``a`` goes."""
    maps: list = [None]
    for observation_index, action_index in game.symmetries():
        image = np.empty_like(action_index)
        image[action_index] = np.arange(len(action_index))
        maps.append(tuple(torch.as_tensor(m) for m in (observation_index, action_index, image)))
    return maps


def turned(
    symmetry: Symmetry,
    observations: torch.Tensor,
    masks: torch.Tensor,
    targets: torch.Tensor | None = None,
    actions: torch.Tensor | None = None,
):
    """A minibatch turned by ``symmetry`` (None: as it is): ``(observations, masks, targets, actions)``,
    the per-action columns (masks, target distributions) and the taken actions moved with the board."""
    if symmetry is None:
        return observations, masks, targets, actions
    observation_index, action_index, action_image = symmetry
    return (
        observations[:, observation_index],
        masks[:, action_index],
        None if targets is None else targets[:, action_index],
        None if actions is None else action_image[actions],
    )
