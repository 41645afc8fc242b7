"""A trained policy-value network as plain functions of observation batches, for search.

Search asks the network about many small batches of positions (the children of one
node), where calling sb3's modules (distributions, masks, module hooks) costs more
than the arithmetic. So the layers of a MaskablePPO policy (two MLP towers, a policy
head and a value head, as sb3 builds them) are read once into a list of weight tensors
and activations, and :meth:`PolicyValueNetwork.values` / :meth:`logits` run them bare.
The tensors are the policy's own parameters, so training that updates the policy in
place is seen at once. An agent's logits are row-independent (:func:`agents.inference.row_blocks`):
a position gets the same move alone as in any batch. Every forward pass runs on one thread (:mod:`agents.inference`),
whatever the caller's ``torch.set_num_threads``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from agents.inference import one_thread, row_blocks

_ACTIVATIONS = {torch.nn.ReLU: torch.relu, torch.nn.Tanh: torch.tanh, torch.nn.ELU: F.elu, torch.nn.GELU: F.gelu}


def layers_of(modules) -> list:
    """``[(weight, bias) | activation, ...]`` of MLP modules (Linear and activation layers), as
    :func:`_run` and :mod:`agents.compiled_network` read them."""
    layers = []
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            layers.append((module.weight, module.bias))
        elif type(module) in _ACTIVATIONS:
            layers.append(_ACTIVATIONS[type(module)])
        else:
            raise TypeError(f"policy-value network: unsupported layer {module!r} (Linear, ReLU, Tanh, ELU, GELU)")
    return layers


def _run(layers: list, observations: np.ndarray, row_independent: bool = False) -> np.ndarray:
    x = row_blocks(observations) if row_independent else torch.from_numpy(np.asarray(observations, np.float32))
    with one_thread():
        for layer in layers:
            x = F.linear(x, *layer) if isinstance(layer, tuple) else layer(x)
    return x[: len(observations)].numpy()


class PolicyValueNetwork:
    """The policy logits and value of a MaskablePPO actor-critic on flat observations.

    Values are the critic's estimate of the observer's return, clipped to [-1, 1] (the
    range of a two-player game's outcome).
    """

    def __init__(self, policy):
        self.policy = policy
        extractor = policy.mlp_extractor
        #: each head's layers in order: ``(weight, bias)`` of a Linear layer, or an activation
        self.policy_layers = layers_of([*extractor.policy_net, policy.action_net])
        self.value_layers = layers_of([*extractor.value_net, policy.value_net])

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The observer's value of each observation (a batch), in [-1, 1]."""
        return np.clip(_run(self.value_layers, observations)[:, 0], -1.0, 1.0)

    def logits(self, observations: np.ndarray, row_independent: bool = False) -> np.ndarray:
        """Unmasked policy logits of each observation (a batch). ``row_independent``: each row's
        logits the same bit for bit in any batch (:func:`agents.inference.row_blocks`), as an
        agent's moves need to be the same played alone or as rows of a batch; search, which only
        ranks the children of one node, leaves it off and pays for no padding."""
        return _run(self.policy_layers, observations, row_independent)
