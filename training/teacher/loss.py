"""The soft-target cross-entropy: a policy pulled towards a target distribution over legal moves.

Behaviour cloning of a search teacher (the warm start) and expert iteration's policy
targets both train the policy head towards a distribution (the softmax of a search's
move values); illegal moves have target 0 and drop out of the loss and its gradient.
"""

from __future__ import annotations

import torch

#: The logit given to an illegal move: its probability underflows to exactly 0.
ILLEGAL_LOGIT = -1e9


def soft_target_cross_entropy(logits: torch.Tensor, masks: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``-sum_a target(a) log pi(a)``, ``pi`` the softmax of ``logits``
    over the legal moves (``masks``)."""
    log_probs = torch.log_softmax(logits.masked_fill(~masks, ILLEGAL_LOGIT), dim=1)
    return -(targets * log_probs).sum(dim=1).mean()
