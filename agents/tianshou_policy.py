"""A masked categorical policy for Tianshou, and the networks it is trained and saved with.

Tianshou's PPO (any ``ProbabilisticActorPolicy``) makes its action distribution from the
actor's logits alone and never reads the mask its multi-agent observations carry
(``Batch(obs=..., mask=..., agent_id=...)``), so it samples moves our envs refuse.
:class:`MaskedActorPolicy` draws from the categorical distribution over the legal
actions only (the logits of the others set to the lowest float, so their probability
is 0 and the entropy stays finite): sampling and ``log_prob`` in PPO's ratio both see
the mask. It always samples: Tianshou's multi-agent policy tells a training step only
to itself, not to the policies it dispatches to, so a deterministic evaluation mode
would also play greedily while collecting. The trained actor's greedy play is
:mod:`agents.tianshou`'s.

The actor and critic are Tianshou's ``DiscreteActor`` and ``DiscreteCritic`` over
:class:`PlayerObservationNet`, an MLP that reads ``obs.obs`` of such an observation.
:func:`save_policy` writes both with their shapes to one file (``tianshou_policy.pt`` of a
run folder), which :func:`load_actor` reads back for :mod:`agents.tianshou`.

Imports Tianshou: reached only where Tianshou is installed (``pip install -e ".[tianshou]"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.data import Batch
from tianshou.utils.net.common import Net
from tianshou.utils.net.discrete import DiscreteActor, DiscreteCritic

FORMAT = "tianshou-masked-ppo/1"  #: what a saved policy file says it holds


class PlayerObservationNet(Net):
    """Tianshou's MLP ``Net`` that reads a player's observation from a multi-agent ``Batch`` (its ``obs``)."""

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        return super().forward(obs.obs if isinstance(obs, Batch) else obs, state, info)


class MaskedActorPolicy(DiscreteActorPolicy):
    """A discrete actor policy whose categorical distribution covers ``obs.mask``'s legal actions only."""

    def forward(self, batch: Batch, state: Any = None) -> Batch:
        logits, hidden = self.actor(batch.obs, state=state, info=batch.info)
        dist = torch.distributions.Categorical(logits=mask_logits(logits, batch.obs.mask))
        return Batch(logits=logits, act=dist.sample(), state=hidden, dist=dist)


def mask_logits(logits: torch.Tensor, mask: Any) -> torch.Tensor:
    """``logits`` with the illegal actions' set to the lowest float (probability 0, finite entropy)."""
    legal = torch.as_tensor(np.asarray(mask, bool), device=logits.device)
    if not legal.any(dim=-1).all():
        raise ValueError("masked policy: an action mask allows no action")
    return logits.masked_fill(~legal, torch.finfo(logits.dtype).min)


def build_networks(
    observation_shape: Sequence[int], num_actions: int, hidden_sizes: Sequence[int]
) -> tuple[DiscreteActor, DiscreteCritic]:
    """A fresh actor (logits) and critic (value), each its own MLP of ``hidden_sizes``."""

    def body() -> PlayerObservationNet:
        return PlayerObservationNet(state_shape=tuple(observation_shape), hidden_sizes=list(hidden_sizes))

    actor = DiscreteActor(preprocess_net=body(), action_shape=num_actions, softmax_output=False)
    return actor, DiscreteCritic(preprocess_net=body())


def masked_policy(actor: DiscreteActor, num_actions: int) -> MaskedActorPolicy:
    """The masked policy over ``actor`` (it samples, in training and out of it)."""
    return MaskedActorPolicy(actor=actor, action_space=gymnasium.spaces.Discrete(num_actions))


def save_policy(
    path: str | Path, actor: DiscreteActor, critic: DiscreteCritic, observation_shape, num_actions, hidden_sizes
) -> None:
    """Write both networks and their shapes to ``path`` (a ``torch.save`` file)."""
    torch.save(
        {
            "format": FORMAT,
            "observation_shape": list(observation_shape),
            "num_actions": int(num_actions),
            "hidden_sizes": list(hidden_sizes),
            "actor": actor.state_dict(),
            "critic": critic.state_dict(),
        },
        path,
    )


def load_actor(path: str | Path) -> tuple[DiscreteActor, tuple[int, ...], int]:
    """The actor saved in ``path`` (in eval mode), with the observation shape and action count it was built for."""
    saved = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise ValueError(f"{path} is not a policy saved by agents.tianshou_policy.save_policy")
    actor, _ = build_networks(saved["observation_shape"], saved["num_actions"], saved["hidden_sizes"])
    actor.load_state_dict(saved["actor"])
    return actor.eval(), tuple(saved["observation_shape"]), saved["num_actions"]
