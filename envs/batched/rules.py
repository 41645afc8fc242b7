"""The batched rules-core interface: one game's rules applied to ``N`` games at once.

A :class:`BatchedGame` is the batched twin of a game's rules core
(:class:`envs.core.GameState`): it holds ``N`` games in progress as arrays (struct of
arrays, one row per game) and applies the rules to many of them in one call, in compiled
code (Numba kernels over the rows), so that no Python loop over the games runs on the
hot path. It knows nothing of Gymnasium; :class:`envs.batched.vector_env.BatchedVectorEnv`
is the one adapter that turns any of them into a Gymnasium ``VectorEnv``.

The single-game rules core stays the reference. A batched game must play the very games
the core plays: the same chance from the same stream (:meth:`start` draws exactly what
``Game.new_initial_state(rng)`` draws, from :mod:`envs.batched.streams`), the same legal
masks, observations, scores and ends. ``tests/batched_check.py`` plays random games on
both and compares them after every action; :meth:`state` rebuilds any one game as a core
state (by replaying its recorded actions), for ``render`` and for those checks.

Two calls go the other way, from the core to the rows: :meth:`load_state` writes a core
state into rows (a chosen position and chance for a test, the position of a real game for
a rollout), and :meth:`resample` redraws the chance still to come of rows from their
streams, as the core's ``clone_resampled`` redraws it. Neither is a hot path.

A twin builds its tables from its core's own (private ones included: the twin is the
one module outside a core that may read them), so that a table is never written twice.

Calls name the games they act on by ``rows``, an ``int64`` array of row indices (each row
at most once), so that one seat's opponents can act on just the games waiting for them.
Outputs go into arrays the caller allocated once (``out``), never into per-step
allocations of ``(N, ...)`` arrays.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import numba
import numpy as np

from envs.batched import streams as random_streams
from envs.core import Game, GameState


@numba.njit(cache=True)
def _record(history, length, rows, seats, actions):
    """Append ``(seats[k], actions[k])`` to game ``rows[k]``'s history (what :meth:`BatchedGame.state` replays)."""
    for k in range(rows.shape[0]):
        row = rows[k]
        history[row, length[row], 0] = seats[k]
        history[row, length[row], 1] = actions[k]
        length[row] += 1


class BatchedGame(abc.ABC):
    """``num_games`` games of ``game`` (its options fixed), held as arrays.

    Subclasses set :attr:`game_class` and implement the abstract methods with Numba
    kernels, which keep the base's ``_acting``, ``_terminal`` and ``_totals`` arrays up to
    date. This base records where every game comes from (its stream at its start, or the
    core state loaded into it, and the stream of a resample) and its actions since, which
    is all :meth:`state` needs.
    """

    #: The rules core this class batches (``Keldice`` may reuse ``LostDice``'s twin).
    game_class: ClassVar[type[Game]]

    def __init__(self, game: Game, num_games: int) -> None:
        if not isinstance(game, self.game_class):
            raise TypeError(
                f"{type(self).__name__} batches {self.game_class.__name__} games, got {type(game).__name__}"
            )
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.game = game
        self.num_games = int(num_games)
        self.num_players = game.num_players
        # The state every game has, kept up to date by the kernels (views of these are handed out):
        self._acting = np.zeros((self.num_games, self.num_players), bool)  #: who must act
        self._terminal = np.ones(self.num_games, bool)  #: over (a row is over until its first start)
        self._totals = np.zeros((self.num_games, self.num_players), np.float64)  #: the running scores
        self._start_streams = random_streams.new_streams(self.num_games)
        self._loaded = np.full(self.num_games, None, object)  #: the core state a row was loaded from, or None
        self._resampled = np.zeros(self.num_games, bool)  #: the row's chance was redrawn after its start or load
        self._resample_streams = random_streams.new_streams(self.num_games)
        self._history = np.zeros((self.num_games, game.max_game_length, 2), np.int64)
        self._history_length = np.zeros(self.num_games, np.int64)

    # --- what the base does around the kernels ---------------------------------------

    def start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Start a new game in every row of ``rows``; its chance comes from ``streams[row]``,
        drawn exactly as ``Game.new_initial_state`` draws it from a numpy ``Generator`` in
        that state (the streams advance as that generator would)."""
        self._start_streams[rows] = streams[rows]
        self._loaded[rows] = None
        self._resampled[rows] = False
        self._history_length[rows] = 0
        self._start(rows, streams)

    def load_state(self, rows: np.ndarray, state: GameState) -> None:
        """Every game in ``rows`` becomes ``state``: the same position and the same chance
        to come, so that each plays on exactly as ``state.clone()`` would.

        Tests load positions random play seldom reaches, on chance chosen with the core's
        own means (``new_state_from_tape``, ``from_position``); a rollout copies a real
        game's position into many rows and redraws their futures with :meth:`resample`.
        ``state`` must be a game of this twin's rules and options; it is copied, not changed.
        """
        rows = self._checked_rows(rows)
        if type(state.game) is not type(self.game) or state.game.options() != self.game.options():
            raise ValueError(f"{type(self).__name__} holds {self.game!r} games, got a state of {state.game!r}")
        self._acting[rows] = np.isin(np.arange(self.num_players), state.acting_players())
        self._terminal[rows] = state.is_terminal()
        self._totals[rows] = state.scores()
        self._load(rows, state)
        self._loaded[rows] = state.clone()
        self._resampled[rows] = False
        self._history_length[rows] = 0

    def resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Redraw the chance still to come of every game in ``rows`` from ``streams[row]``,
        as ``GameState.clone_resampled`` draws it from a numpy ``Generator`` in that state
        (the streams advance as that generator would); what is on the table stays.

        A rollout's fresh futures for a loaded position; :meth:`state` follows.
        """
        rows = self._checked_rows(rows)
        # state() replays one redraw, at the start of the history: fold an earlier one in.
        for row in rows[self._resampled[rows] | (self._history_length[rows] > 0)].tolist():
            self._loaded[row] = self.state(row)
            self._history_length[row] = 0
        self._resample_streams[rows] = streams[rows]
        self._resampled[rows] = True
        self._resample(rows, streams)

    def apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """Player ``seats[k]`` takes ``actions[k]`` in game ``rows[k]``.

        The caller has checked the seats and actions against :meth:`acting` and
        :meth:`legal_masks`: kernels may assume every action is legal.
        """
        _record(self._history, self._history_length, rows, seats, actions)
        self._apply(rows, seats, actions)

    def state(self, row: int) -> GameState:
        """Game ``row`` as a rules-core state: its start (or the state loaded into it, its
        chance redrawn if it was resampled) replayed with its actions.

        For ``render`` of one game, for opponents that act on one game at a time, and for
        the checks against the core. Not a hot path.
        """
        if not 0 <= row < self.num_games:
            raise IndexError(f"game {row} is outside 0..{self.num_games - 1}")
        loaded = self._loaded[row]
        if loaded is None:
            state = self.game.new_initial_state(random_streams.to_generator(self._start_streams, row))
        else:
            state = loaded.clone()
        if self._resampled[row]:
            state = state.clone_resampled(random_streams.to_generator(self._resample_streams, row))
        for seat, action in self._history[row, : self._history_length[row]]:
            state.apply(int(seat), int(action))
        return state

    def history(self, row: int) -> tuple[tuple[int, int], ...]:
        """The ``(seat, action)`` pairs game ``row`` has played since its start or load: what
        :func:`agents.match.play_game` returns as the game's identity."""
        return tuple((int(seat), int(action)) for seat, action in self._history[row, : self._history_length[row]])

    def acting(self) -> np.ndarray:
        """``(N, P)`` bool: ``acting[row, p]`` when player ``p`` must act in game ``row``
        (the core's ``acting_players()``); all False where the game is over. The kernels'
        own array, not a copy: callers do not write to it."""
        return self._acting

    def terminal(self) -> np.ndarray:
        """``(N,)`` bool: the game is over (the core's ``is_terminal()``); the kernels' array."""
        return self._terminal

    def scores(self) -> np.ndarray:
        """``(N, P)`` float64: every player's running score (the core's ``scores()``); the kernels' array."""
        return self._totals

    def returns(self) -> np.ndarray:
        """``(N, P)`` outcome per player where the game is over (+1 win, -1 loss, 0 draw),
        read off the scores as :func:`envs.core.outcome_from_scores` reads them. Games
        whose core overrides ``returns`` override this too."""
        scores = self.scores()
        winners = scores == scores.max(axis=1, keepdims=True)
        outcome = np.where(winners, 1.0, -1.0)
        outcome[winners.all(axis=1)] = 0.0
        return outcome

    def truncated(self) -> np.ndarray:
        """``(N,)`` bool: the game was cut short by a length limit (the core's ``is_truncated``)."""
        return np.zeros(self.num_games, bool)

    def _checked_rows(self, rows) -> np.ndarray:
        """``rows`` as an ``int64`` array of distinct games of this batch, or a one-line error."""
        checked = np.asarray(rows, np.int64)
        if checked.ndim != 1 or len(np.unique(checked)) != len(checked):
            raise ValueError(f"rows must be a 1-d array of distinct row indices, got {rows!r}")
        if len(checked) and not (0 <= checked.min() and checked.max() < self.num_games):
            raise IndexError(f"rows {checked.tolist()} leave 0..{self.num_games - 1}")
        return checked

    # --- the rules, one game's twin kernels ----------------------------------------------

    @abc.abstractmethod
    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Set up new games in ``rows`` (see :meth:`start`)."""

    @abc.abstractmethod
    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """Apply legal actions (see :meth:`apply`)."""

    @abc.abstractmethod
    def _load(self, rows: np.ndarray, state: GameState) -> None:
        """Write ``state``'s position and chance to come into ``rows`` (see :meth:`load_state`);
        the base has written acting, terminal and scores."""

    @abc.abstractmethod
    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Redraw the chance to come of ``rows`` (see :meth:`resample`)."""

    @abc.abstractmethod
    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """``out[k]`` (``int8``, ``num_actions`` wide) := the legal mask of player ``seats[k]``
        in game ``rows[k]`` (the core's ``legal_mask``: zeros where that player may not act)."""

    @abc.abstractmethod
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """``out[k]`` (``float32``, ``observation_shape``) := what player ``seats[k]`` sees of
        game ``rows[k]`` (the core's ``observe``), bit for bit."""
