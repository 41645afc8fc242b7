"""What the Invers bots read off a position: the tiles at the far ends of the pushes.

The greedy bot rebuilds the full position from the observation (:func:`read_position`;
Invers hides nothing) and looks ahead with the rules core's own ``clone``/``apply``; the
search bot (:mod:`agents.invers.compiled_search`) pushes with the position kernel the batched
env runs (:mod:`envs.batched.invers_kernel`), which the tests hold to the rules core after every
action. Neither can disagree with the env about the rules.
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from envs.core import Game
from envs.games.invers import FAR_END, OBS_TO_MOVE, InversState, flipped

#: The 24 far-end tiles of a board, in action order: ``far_ends(board)[a]`` falls out on push ``a``.
far_ends = itemgetter(*FAR_END)


def read_position(game: Game, observation: np.ndarray, bot: str) -> InversState:
    """The position behind ``observation``, which must be the observer's turn to move."""
    state = InversState.from_observation(game, observation)
    if state.is_terminal() or not observation[OBS_TO_MOVE] > 0.5:
        raise ValueError(f"invers {bot}: asked to move when it is not this player's turn")
    return state


def edge_features(state: InversState, player: int) -> tuple[int, int]:
    """What the border means for ``player``, read off the 24 far ends.

    Returns ``(blocking, mobility)``: the pushes the opponent cannot make because
    ``player``'s flipped tile would fall out, and the pushes ``player`` can make.
    """
    far = far_ends(state.board)
    return far.count(flipped(player)), 24 - far.count(flipped(1 - player))
