"""An agent whose thinking time and moves are added up, whether it plays one game at a time or many in batch.

The ladder times every agent (:mod:`training.evaluation.ladder`) and the benchmark referees
the agent under test (:class:`training.evaluation.referee.GuardedAgent`, a subclass).
Both wrap the agent in a :class:`TimedAgent`, which acts as the agent does:

* ``act`` is the agent's, timed;
* ``act_batch`` exists only when the agent has one (:func:`agents.base.acts_in_batch`), and
  takes ``rngs`` only when the agent's does (:func:`agents.base.draws_per_row`), so the game
  loop (:mod:`agents.match`) treats the wrapper exactly as the agent; a batch call's time is
  shared evenly among the moves it decided;
* a copy (the game loop copies an agent that draws per row, one per game) wraps a copy of
  the agent and adds to the same :class:`Tally`, so the time of every game is counted once.
"""

from __future__ import annotations

import time
from copy import copy as shallow_copy
from dataclasses import dataclass

import numpy as np

from agents.base import Agent, acts_in_batch, draws_per_row
from agents.registry import make_agent
from envs.registry import make_game


@dataclass
class Tally:
    """Thinking time and moves added up over every game (and every copy of the agent)."""

    seconds: float = 0.0
    moves: int = 0

    @property
    def ms_per_move(self) -> float:
        return 1000.0 * self.seconds / max(self.moves, 1)


class TimedAgent(Agent):
    """``agent``, its thinking time and moves added up in :attr:`tally` (see the module docstring).

    Subclasses judge every move through :meth:`judge` (after the agent has chosen it) and turn
    the agent's exceptions into their own through :meth:`failed`.
    """

    def __init__(self, agent: Agent, tally: Tally | None = None):
        self.agent, self.game = agent, agent.game
        self.name = getattr(agent, "name", "agent")
        self.tally = tally if tally is not None else Tally()  # no reset here (Agent.__init__'s): the first game's
        self._bind_batch()

    def _bind_batch(self) -> None:
        """Offer ``act_batch`` as the agent does: absent, without ``rngs``, or with them."""
        if acts_in_batch(self.agent):
            self.act_batch = self._act_rows_drawing if draws_per_row(self.agent) else self._act_rows

    def __copy__(self) -> TimedAgent:
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.agent = shallow_copy(self.agent)
        clone._bind_batch()
        return clone

    @property
    def rng(self) -> np.random.Generator:
        """The agent's generator (the game loop hands it to ``act_batch`` as the row's)."""
        return self.agent.rng

    @property
    def seconds(self) -> float:
        return self.tally.seconds

    @property
    def moves(self) -> int:
        return self.tally.moves

    @property
    def ms_per_move(self) -> float:
        return self.tally.ms_per_move

    def reset(self, seed: int | None = None) -> None:
        try:
            self.agent.reset(seed)
        except Exception as error:  # the agent may fail in any way: a subclass says what that means
            raise self.failed("reset()", error) from None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        started = time.perf_counter()
        try:
            action = self.agent.act(observation, action_mask)
        except Exception as error:  # as in reset()
            raise self.failed("act()", error) from None
        spent = time.perf_counter() - started
        self.tally.seconds += spent
        self.tally.moves += 1
        return self.judge(action, action_mask, spent)

    def _act_rows(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self._timed_rows(observations, action_masks, {})

    def _act_rows_drawing(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        return self._timed_rows(observations, action_masks, {} if rngs is None else {"rngs": rngs})

    def _timed_rows(self, observations: np.ndarray, action_masks: np.ndarray, own: dict) -> np.ndarray:
        started = time.perf_counter()
        try:
            actions = np.asarray(self.agent.act_batch(observations, action_masks, **own))
        except Exception as error:  # as in reset()
            raise self.failed("act_batch()", error) from None
        spent = time.perf_counter() - started
        self.tally.seconds += spent
        self.tally.moves += len(action_masks)
        if actions.shape != (len(action_masks),):
            raise self.failed("act_batch()", ValueError(f"returned shape {actions.shape}, not ({len(action_masks)},)"))
        per_move = spent / max(len(action_masks), 1)
        return np.array([self.judge(a, m, per_move) for a, m in zip(actions.tolist(), action_masks)], np.int64)

    def judge(self, action, action_mask: np.ndarray, seconds: float) -> int:
        """The move the agent chose, as played (a subclass may refuse it); ``seconds``: its thinking time."""
        return action

    def failed(self, call: str, error: Exception) -> Exception:
        """What an exception of the agent's ``call`` becomes: here, itself."""
        return error


def random_positions(env: str, count: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` positions of seeded random games, each as a player to act sees it
    (observation, mask): what the speed benchmarks time an agent's moves on."""
    game, rng, found = make_game(env), np.random.default_rng(seed), []
    while len(found) < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and len(found) < count:
            for player in state.acting_players():
                mask = state.legal_mask(player)
                found.append((state.observe(player), mask))
                state.apply(player, int(rng.choice(np.flatnonzero(mask))))
    return found[:count]


def ms_per_move(env: str, spec: str, moves: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The agent ``spec``'s mean milliseconds per ``act`` over ``moves``, after one move
    untimed (loading and first-call costs are not a move's)."""
    agent = make_agent(env, spec, make_game(env), seed=0)
    agent.act(*moves[0])
    started = time.perf_counter()
    for observation, mask in moves:
        agent.act(observation, mask)
    return 1000 * (time.perf_counter() - started) / len(moves)
