"""The optimal solitaire Inverted Dice player: the exact solver's policy, through the env API.

The agent reads the score sheet and the dice off the observation, looks up (once per
turn) the optimal play of the turn from the solved value table
(:mod:`agents.inverted_dice.solver`), and answers with the action id; ``act_batch``
looks up the plans of a batch's distinct sheets at once. It plays the very
policy whose expected score and standard deviation the solver reports, because both run
:func:`agents.inverted_dice.turn.plan_turn`.

Solitaire only: with opponents, maximising one's own expected score is not the same as
maximising the chance of winning, so a multi-player game is refused.
"""

from __future__ import annotations

import numpy as np

from agents.inverted_dice.solver import Solution, cached_solution, state_index
from agents.inverted_dice.turn import TurnPlan, TurnPlanningAgent
from envs.games import inverted_dice as rules


def sheet_state(open_boxes: np.ndarray, alive: np.ndarray) -> int:
    """The solver's state of a score sheet, from the observation's open-box and live-section flags.

    The open boxes and the "bonus still achievable" flags are all the solver needs: a
    section's flag only matters while it has open boxes, and then it is exactly "no box
    of it crossed out" (the earned-bonus flags are settled history).
    """
    return int(sheet_states(open_boxes[None], alive[None])[0])


def sheet_states(open_boxes: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """``(S,)``: :func:`sheet_state` of each of ``S`` sheets (``open_boxes`` ``(S, boxes)``, ``alive``
    ``(S, sections)``)."""
    return state_index(
        open_boxes @ (1 << np.arange(open_boxes.shape[1], dtype=np.int64)),
        alive @ (1 << np.arange(alive.shape[1], dtype=np.int64)),
    )


class OptimalAgent(TurnPlanningAgent):
    """Plays the policy that maximises the expected final score of a solitaire game.

    Args:
        game: an ``InvertedDice`` game with one player; its ``free_cross_out`` option
            picks the rules the policy is solved for.
        seed: unused (the policy is deterministic); accepted like every agent's.
        cache_dir: folder of the solved tables (see :func:`agents.solution_cache.cache_dir`);
            the first use solves the game (minutes of CPU time) and caches it there.
        solution: a :class:`~agents.inverted_dice.solver.Solution` to play instead, e.g. a
            reduced one covering only the last rounds.
    """

    name = "optimal"
    #: How long its first build takes where the solution is not cached yet: the solve (the
    #: solver's own estimate, 1.5-2 minutes of CPU time); the web page shows it meanwhile.
    preparation = "about 2 min"

    def __init__(self, game, seed: int | None = None, cache_dir: str | None = None, solution: Solution | None = None):
        if game.name == rules.InvertedDice.name and game.num_players != 1:
            raise ValueError(
                f"OptimalAgent is solved for solitaire Inverted Dice; this game has {game.num_players} players "
                "(maximising one's own score is not the same as maximising the chance of winning)"
            )
        if solution is None:
            solution = cached_solution(game.free_cross_out, cache_dir)
        if solution.free_cross_out != game.free_cross_out:
            raise ValueError(
                f"the solution is for free_cross_out={solution.free_cross_out}, "
                f"the game has free_cross_out={game.free_cross_out}"
            )
        super().__init__(game, seed)
        self.solution = solution

    def plan_sheets(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """The solution's plan of each sheet's state, all in one :meth:`~agents.inverted_dice.solver.Solution.plan`."""
        return self.solution.plan(sheet_states(open_boxes, alive))
