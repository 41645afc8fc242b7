"""The one-ply greedy Invers bot (``greedy``)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.invers.board import edge_features, read_position
from envs.games.invers import InversState


class InversGreedy(Agent):
    """One-ply greedy: the push after which the position looks best for the mover.

    Candidates are ranked by, in order: a win now (or a loss to avoid), the balance of
    flipped tiles (own minus opponent's), the pushes the opponent is blocked from by
    the mover's flipped tiles on the border, and the mover's own mobility. Equal
    candidates are broken by the bot's generator.
    """

    name = "greedy"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        state = read_position(self.game, observation, self.name)
        me = state.to_move
        best_key, best = None, []
        for action in np.flatnonzero(action_mask).tolist():
            child = state.clone()
            child.apply(me, action)
            key = self._rank(child, me)
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return best[self.rng.integers(len(best))]

    @staticmethod
    def _rank(child: InversState, me: int) -> tuple:
        outcome = child.returns()[me] if child.is_terminal() else 0.0
        balance = child.flipped_tiles(me) - child.flipped_tiles(1 - me)
        blocking, mobility = edge_features(child, me)
        return outcome, balance, blocking, mobility
