"""The one-ply greedy Invers bot (``greedy``)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.batched import act_row_by_row
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
        return self._act(observation, action_mask, self.rng)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, as if called on the rows in order: the same pushes, and the
        generator left where ``act`` would leave it; with ``rngs``, row ``k``'s ties are drawn
        from ``rngs[k]`` instead (:mod:`agents.batched`).

        A loop over the rows, each looked at as ``act`` looks at it (through the rules core's
        ``clone``/``apply``, :mod:`agents.invers.board`), not an array computation: that would
        restate the rules' endings, which the bot deliberately takes from the core. It lets the
        bot sit at a table played in batch, where the env and the other seats act in batch."""
        return act_row_by_row(self._act, self.game, self.rng, observations, action_masks, rngs, f"invers {self.name}")

    def _act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """:meth:`act`, equal candidates broken by ``rng``."""
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
        return best[rng.integers(len(best))]

    @staticmethod
    def _rank(child: InversState, me: int) -> tuple:
        outcome = child.returns()[me] if child.is_terminal() else 0.0
        balance = child.flipped_tiles(me) - child.flipped_tiles(1 - me)
        blocking, mobility = edge_features(child, me)
        return outcome, balance, blocking, mobility
