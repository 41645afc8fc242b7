"""OpenSpiel's search algorithms as agents: ``openspiel:mcts`` and ``openspiel:ismcts``.

Both search the game as OpenSpiel sees it (:mod:`envs.integrations.openspiel`), chance nodes and all,
from the position the agent is in. An agent sees only its observation, so the search
starts from :meth:`envs.core.Game.sample_state` (what it cannot see, and the chance to
come, drawn from the agent's generator) made explicit-chance:

* ``openspiel:mcts`` (``simulations``, ``rollouts``, ``uct_c``): OpenSpiel's ``MCTSBot``
  with a random-rollout evaluator; it samples chance nodes by their probabilities. For
  games of perfect information (every game but Roll Five).
* ``openspiel:ismcts`` (``simulations``, ``rollouts``, ``uct_c``): OpenSpiel's
  ``ISMCTSBot``, which keys its tree by information states and redraws a full position
  behind them for every simulation (from ``sample_state``). For games with hidden
  information (Roll Five, played ``turn_based``); OpenSpiel's bot refuses a game of
  perfect information.

OpenSpiel is an optional extra (``pip install -e ".[openspiel]"``): it is imported when
such an agent is made, and without it the agent is refused with one line saying what to
install.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs.core import Game

ALGORITHMS = ("mcts", "ismcts")


def _pyspiel_modules():
    """``(pyspiel, envs.integrations.openspiel, mcts, ismcts)``, or an ImportError that says what to install."""
    try:
        import pyspiel  # noqa: PLC0415 (OpenSpiel: optional, loaded by the first OpenSpiel agent only)
        from open_spiel.python.algorithms import ismcts, mcts  # noqa: PLC0415 (OpenSpiel: optional, as above)

        import envs.integrations.openspiel as adapter  # noqa: PLC0415 (registers the games; needs pyspiel)
    except ImportError:
        raise ImportError(
            'openspiel agents need OpenSpiel: install it with pip install -e ".[openspiel]" (open_spiel==2.0.2)'
        ) from None
    return pyspiel, adapter, mcts, ismcts


class OpenSpielAgent(Agent):
    """One of OpenSpiel's tree searches playing a seat (see the module docstring).

    Args:
        algorithm: ``"mcts"`` or ``"ismcts"``.
        simulations: simulations per move (default 200).
        rollouts: random rollouts per leaf evaluation (default 1).
        uct_c: the UCT exploration constant (default 2, OpenSpiel's examples'; the returns
            are the env's default rewards: the outcome, or solo the score).
    """

    name = "openspiel"

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        algorithm: str = "mcts",
        simulations: int = 200,
        rollouts: int = 1,
        uct_c: float = 2.0,
    ):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"openspiel agent: algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
        for option, value in (("simulations", simulations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"openspiel agent: {option} must be a positive integer, got {value!r}")
        if algorithm == "mcts" and game.hidden_information:
            raise ValueError(
                f"openspiel:mcts cannot play {game.name}: it has hidden information, and MCTS would search one "
                "sampled deal as if it were known; use openspiel:ismcts"
            )
        if algorithm == "ismcts" and not game.hidden_information:
            raise ValueError(
                f"openspiel:ismcts cannot play {game.name}: it is a game of perfect information, which OpenSpiel's "
                "ISMCTSBot refuses; use openspiel:mcts"
            )
        pyspiel, self._adapter, self._mcts, self._ismcts = _pyspiel_modules()
        params = self._adapter.parameters(game)
        if game.simultaneous:
            params["turn_based"] = True
        self.spiel_game = pyspiel.load_game(self._adapter.PREFIX + game.name, params)
        self.algorithm, self.simulations, self.rollouts, self.uct_c = algorithm, simulations, rollouts, float(uct_c)
        super().__init__(game, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        random_state = np.random.RandomState(self.rng.integers(2**31))
        evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        if self.algorithm == "mcts":
            self.bot = self._mcts.MCTSBot(
                self.spiel_game, self.uct_c, self.simulations, evaluator, random_state=random_state
            )
        else:
            self.bot = self._ismcts.ISMCTSBot(
                self.spiel_game,
                evaluator,
                self.uct_c,
                self.simulations,
                random_state=random_state,
                final_policy_type=self._ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
            )
            self.bot.set_resampler(self._resample)

    def _root(self, observation: np.ndarray):
        self._observation = observation
        return self._adapter.from_core(self.spiel_game, self.game.sample_state(observation, self.rng))

    def _resample(self, state, player):
        """ISMCTS: another full position behind the root's information state."""
        return self._root(self._observation)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The search's best action among those the mask allows: MCTS's own order (a proven
        win, then visits, then reward), ISMCTS's visits.

        The mask has the last word: a view may not show all that decides what is legal
        (Lost Dice's taken throw, which may not be discarded), so the sampled position can
        allow more than the real one; the search's choice is made among the real moves.
        """
        root = self._root(np.asarray(observation))
        if self.algorithm == "mcts":
            rank = {child.action: child.sort_key() for child in self.bot.mcts_search(root).children}
        else:
            rank = dict(self.bot.run_search(root))
        legal = [action for action in rank if action_mask[action]]
        if not legal:
            raise RuntimeError(
                f"openspiel:{self.algorithm} searched {sorted(rank)}, none of which the action mask allows"
            )
        return int(max(legal, key=rank.__getitem__))
