"""The one native Gymnasium ``VectorEnv`` of every game: ``N`` games stepped per call.

``gymnasium.make_vec("SixHundred-v0", num_envs=4096)`` (Gymnasium's default
``vectorization_mode="vector_entry_point"`` for the ids of this collection) returns a
:class:`BatchedVectorEnv`: the single-agent env of :mod:`envs.single_agent`, batched. The
games are held as arrays by the game's batched twin (:class:`envs.batched.rules.BatchedGame`)
and every call steps all of them in compiled code: no Python loop over the games.

It is the single env, ``N`` times, game for game:

* **The same games.** ``reset(seed=s)`` seeds game ``i`` with ``s + i`` (Gymnasium's
  convention for vector envs), and game ``i`` is then the game ``gymnasium.make(id)``
  plays after ``reset(seed=s + i)``: the same learner seat, the same dice or cards, the
  same random opponents' moves, step for step, through every autoreset
  (``tests/test_batched.py`` checks observations, masks, rewards and ends against
  Gymnasium's ``SyncVectorEnv`` of the single envs). The streams are numpy's own
  (:mod:`envs.batched.streams`).
* **The same options**: ``reward_mode``, ``opponents``, ``learner_seat``,
  ``illegal_action`` / ``illegal_reward``, ``render_mode`` and the game's options.
* **Masks**: ``info["action_mask"]`` is ``(N, num_actions)`` ``int8``; :meth:`action_masks`
  gives the same as ``bool`` for sb3-contrib; ``action_space.sample()`` draws each game's
  legal action.
* **Autoreset**: Gymnasium 1.x's three modes (``autoreset_mode``; the default
  ``NEXT_STEP``: the step after a game ends resets it and ignores its action). With
  ``SAME_STEP`` the last observation of a finished game is ``info["final_obs"][i]`` where
  ``info["_final_obs"][i]``, and its last info is in ``info["final_info"]``. With
  ``DISABLED`` call ``reset(options={"reset_mask": ...})``.
* **Opponents**: ``None`` (uniform random, drawn inside the kernels from each game's
  opponent stream, as the single env draws it); a policy with
  ``act_batch(observations, action_masks) -> actions`` acts for all its games in one call
  (a trained network: one batched forward pass; its ``reset(seed=)``, if any, is called
  once per ``reset`` of the vector env); one whose ``act_batch`` also takes ``rngs`` (the
  random agent, bots that break ties at random) draws each game's choices from that game's
  own generator, kept and reseeded per game as below, so it plays the single env's moves
  exactly, in one call; one whose ``act_batch`` takes ``games`` (an opponent that is more
  than a generator per game: a self-play pool that draws a member per game) gets, for each
  row, that game's own shallow copy, reseeded per game as below, and reads its per-game
  state off it; a policy with only
  ``act(observation, action_mask)`` (a bot, or a bot's name) plays each game through its
  own shallow copy, reseeded at every game's start as the single env reseeds it, so
  even a bot that breaks ties at random plays the single env's moves. That is a Python
  loop over the games waiting for it: correct, at the single env's speed.
* **Rendering**: ``render()`` draws game :attr:`render_index` (default 0) in the env's
  ``render_mode``; :meth:`render_game` draws any one.

What differs from a ``SyncVectorEnv`` of single envs is only the form of two info
entries: ``info["illegal_action"]`` is a ``bool`` array (the single env's message is one
game's; an illegal action raises with the message under ``illegal_action="raise"``) and
``info["final_obs"]`` is one array rather than an object array.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from copy import copy as shallow_copy
from typing import Any

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs.aec import GAME_OVER, check_render_mode, leads, observation_box, render_state, resolve_reward_mode
from envs.batched import streams as random_streams
from envs.batched.rules import BatchedGame
from envs.core import Game, IllegalActionError
from envs.opponents import opponent_list
from envs.registry import get_entry
from envs.single_agent import check_learner_options
from envs.vector import LegalBatchSpace


@numba.njit(cache=True)
def _draw_starts(rows, streams, opponent_streams, learners, fixed_seat, num_players, opponent_seeds):
    """The draws a single env's ``reset`` makes before the game's own, for every row:
    the learner's seat (``rng.integers(n)`` unless fixed), the seed of the opponents'
    ``default_rng`` and, from that stream, one seed per opponent with a ``reset``
    (``opponent_seeds[row]``, as many columns as there are such opponents)."""
    for row in rows:
        if fixed_seat < 0:
            learners[row] = random_streams.bounded(streams, row, 0, num_players)
        else:
            learners[row] = fixed_seat
        seed = random_streams.seed_draw(streams, row)
        if num_players > 1:
            random_streams.seed_row(opponent_streams, row, seed)
            for k in range(opponent_seeds.shape[1]):
                opponent_seeds[row, k] = random_streams.seed_draw(opponent_streams, row)


@numba.njit(cache=True)
def _random_actions(rows, masks, opponent_streams, out):
    """``out[k]``: a uniform legal action of ``masks[k]`` drawn from game ``rows[k]``'s
    opponent stream, as the single env's random opponent draws it."""
    for k in range(rows.shape[0]):
        out[k] = random_streams.choose_legal(opponent_streams, rows[k], masks[k])


def _call_of(agent) -> str:
    """How the env calls a bot: ``"act"`` (it has no ``act_batch``), ``"games"`` (its ``act_batch``
    takes each row's per-game copy), ``"rngs"`` (one generator per row: agents.base.draws_per_row's
    rule, restated here, as envs do not import the agents layer) or ``"batch"``."""
    if not hasattr(agent, "act_batch"):
        return "act"
    parameters = inspect.signature(agent.act_batch).parameters
    return next((name for name in ("games", "rngs") if name in parameters), "batch")


class BatchedVectorEnv(VectorEnv):
    """``num_envs`` games of env ``name`` in one native Gymnasium vector env (see the module doc).

    Args:
        name: the collection's env name (``"inverted_dice"``, ...; see ``envs/registry.py``).
        num_envs: how many games are stepped per call.
        autoreset_mode: Gymnasium's ``AutoresetMode`` (or its value), default ``NEXT_STEP``.
        copy: return copies of the observation and mask buffers (default); ``False``
            returns the buffers themselves, overwritten by the next call.
        render_mode: as for the single env (:class:`envs.single_agent.SingleAgentEnv`), and so
            are ``reward_mode``, ``opponents``, ``learner_seat``, ``illegal_action``,
            ``illegal_reward`` and the game's own options (``**game_options``).
    """

    def __init__(
        self,
        name: str,
        num_envs: int,
        *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        render_mode: str | None = None,
        reward_mode: str | None = None,
        opponents=None,
        learner_seat: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **game_options,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        entry = get_entry(name)
        self.game: Game = entry.game_class()(**game_options)
        check_learner_options(self.game, learner_seat, illegal_action, illegal_reward)
        self.num_envs = n = int(num_envs)
        self.batched: BatchedGame = entry.batched_class()(self.game, n)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.copy = bool(copy)
        self.render_mode = check_render_mode(render_mode, self.game)
        self.metadata = {"render_modes": list(self.game.render_modes), "autoreset_mode": self.autoreset_mode}
        self.render_index = 0
        self.reward_mode = resolve_reward_mode(reward_mode, self.game)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        players = self.game.num_players
        self.learner_seat_option = learner_seat
        self.opponents = opponent_list(self.game, opponents, players - 1, methods=("act", "act_batch"))
        self._resettable = [o for o in self.opponents if o is not None and hasattr(o, "reset")]
        self._opponent_seeds = np.zeros((int(num_envs), len(self._resettable)), np.int64)
        # one shallow copy per game of each bot that acts one game at a time, or whose batched
        # choices draw on a generator per game (see the module doc)
        # how each bot acts: "act" (a copy per game), "games" / "rngs" (act_batch, given the
        # games' copies / their generators) or "batch" (act_batch alone); read once, not per step
        self._calls = {id(o): _call_of(o) for o in self.opponents if o is not None}
        self._per_game = {
            id(o): [shallow_copy(o) for _ in range(int(num_envs))]
            for o in self.opponents
            if o is not None and self._calls[id(o)] != "batch"
        }

        self.single_observation_space = observation_box(self.game)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.action_space = LegalBatchSpace(self.game.num_actions, n, self._sampling_masks)

        self._rows = np.arange(n)
        self._streams = random_streams.new_streams(n)
        self._opponent_streams = random_streams.new_streams(n)
        self._seeded = False
        self._learners = np.zeros(n, np.int64)
        self._observations = np.zeros((n, *self.game.observation_shape), np.float32)
        self._masks = np.zeros((n, self.game.num_actions), np.int8)
        self._scratch_masks = np.zeros_like(self._masks)
        self._scratch_observations = np.zeros_like(self._observations)
        self._scratch_actions = np.zeros(n, np.int64)
        self._last_basis = np.zeros(n)
        self._rewards = np.zeros(n)
        self._ended = np.zeros(n, bool)  # the episode is over (its game, or an illegal action)
        self._illegal = np.zeros(n, bool)
        self._started = False
        self._all_rows_info = np.ones(n, bool)  # the "_action_mask" / "_seat" entries: every game, every step
        self._all_rows_info.flags.writeable = False

    # --- Gymnasium's VectorEnv -------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Start new games: all of them, or those of ``options["reset_mask"]`` (a bool array).

        ``seed``: ``None`` (fresh entropy the first time, then the streams go on), an int
        (game ``i`` gets ``seed + i``) or one seed (or ``None``) per game.
        """
        rows = self._rows
        options = options or {}
        if "reset_mask" in options:
            reset_mask = np.asarray(options["reset_mask"])
            if reset_mask.shape != (self.num_envs,) or reset_mask.dtype != np.bool_:
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got {reset_mask!r}"
                )
            rows = np.flatnonzero(reset_mask)
        seeds = self._seed_list(seed)
        if seeds is not None:
            chosen = [seeds[row] for row in rows]
            random_streams.seed_rows(self._streams, rows, chosen)
        elif not self._seeded:
            random_streams.seed_rows(self._streams, self._rows, [None] * self.num_envs)
        self._seeded = True
        if seed is not None:
            self._reset_opponents(seed)
        self._start_games(rows)
        self._started = True
        self._observe()
        return self._output(self._observations), self._info()

    def _seed_list(self, seed) -> list | None:
        if seed is None:
            return None
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"seed must be None, an int or a list of {self.num_envs} seeds, got {len(seeds)}")
        return seeds

    def _reset_opponents(self, seed) -> None:
        """Batched opponents with a ``reset`` are reseeded once per seeded ``reset``."""
        first = seed if isinstance(seed, (int, np.integer)) else next((s for s in seed if s is not None), None)
        for opponent in dict.fromkeys(self._resettable):
            if id(opponent) not in self._per_game:
                opponent.reset(seed=first)

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        self._rewards[:] = 0.0
        self._illegal[:] = False
        finished = self._ended
        if finished.any():
            if self.autoreset_mode == AutoresetMode.NEXT_STEP:
                resetting = np.flatnonzero(finished)
            else:
                raise IllegalActionError(
                    f"games {np.flatnonzero(finished)[:8].tolist()}: {GAME_OVER} "
                    "(reset them with options={'reset_mask': ...})"
                )
        else:
            resetting = None
        playing = np.flatnonzero(~finished) if resetting is not None else self._rows
        played = self._play_learner(playing, actions[playing])
        if resetting is not None:
            self._start_games(resetting)
        self._pay(played)
        terminated = self._ended.copy()
        truncated = np.zeros(self.num_envs, bool)
        if terminated.any():
            truncated = terminated & self.batched.truncated() & ~self._illegal
            terminated &= ~truncated
        self._observe()
        infos = self._info()
        if self._illegal.any():
            self._masks[self._illegal] = 0
            infos["action_mask"] = self._output(self._masks)
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal.copy()
        observations = self._output(self._observations)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and self._ended.any():
            done = np.flatnonzero(self._ended)
            ended = self._ended.copy()
            final_info = {**infos, "action_mask": self._masks.copy(), "_action_mask": ended, "_seat": ended}
            infos["final_obs"] = observations if self.copy else observations.copy()
            infos["_final_obs"] = ended
            infos["final_info"] = final_info
            infos["_final_info"] = ended
            self._start_games(done)
            self._observe(done)
            observations = self._output(self._observations)
            infos["action_mask"] = self._output(self._masks)
            infos["seat"] = self._learners.copy()
        if self.render_mode == "human":
            self.render()
        return observations, self._rewards.copy(), terminated, truncated, infos

    def _check_actions(self, actions) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), got {actions.dtype} {actions.shape}"
            )
        outside = (actions < 0) | (actions >= self.game.num_actions)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise IllegalActionError(
                f"{self.game.name}: game {row}: action {actions[row]} is outside the action space "
                f"0..{self.game.num_actions - 1}"
            )
        return actions.astype(np.int64, copy=False)

    def _play_learner(self, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The learner's actions in ``rows``; illegal ones end their episode (or raise). Returns the rows played."""
        legal = self._masks[rows, actions].astype(bool)
        if not legal.all():
            illegal_rows = rows[~legal]
            if self.illegal_action == "raise":
                row = int(illegal_rows[0])
                raise self.batched.state(row).illegal_action_error(
                    int(self._learners[row]), int(actions[~legal][0])
                ) or IllegalActionError(f"{self.game.name}: game {row}: action {int(actions[~legal][0])} is not legal")
            self._illegal[illegal_rows] = True
            self._ended[illegal_rows] = True
            self._rewards[illegal_rows] = self.illegal_reward
            gymnasium.logger.warn(
                f"{self.game.name}: an illegal action ended {len(illegal_rows)} episode(s) "
                f"with reward {self.illegal_reward} "
                "(info['illegal_action'] marks them; illegal_action='raise' raises instead)"
            )
            rows, actions = rows[legal], actions[legal]
        self.batched.apply(rows, self._learners[rows], actions)
        self._play_opponents(rows)
        self._ended[rows] = self.batched.terminal()[rows]
        return rows

    def _start_games(self, rows: np.ndarray) -> None:
        """New episodes in ``rows``, drawn as the single env's ``reset`` draws them."""
        if rows.size == 0:
            return
        fixed = -1 if self.learner_seat_option is None else int(self.learner_seat_option)
        _draw_starts(
            rows,
            self._streams,
            self._opponent_streams,
            self._learners,
            fixed,
            self.game.num_players,
            self._opponent_seeds,
        )
        for k, opponent in enumerate(self._resettable):
            copies = self._per_game.get(id(opponent))
            if copies is not None:
                for row in rows:
                    copies[row].reset(seed=int(self._opponent_seeds[row, k]))
        self.batched.start(rows, self._streams)
        self._last_basis[rows] = 0.0
        self._ended[rows] = False
        self._play_opponents(rows)
        self._ended[rows] = self.batched.terminal()[rows]

    def _play_opponents(self, rows: np.ndarray) -> None:
        """Opponents act in ``rows`` until each game waits for its learner or is over."""
        learners = self._learners
        while rows.size:
            acting = self.batched.acting()
            waiting = ~self.batched.terminal()[rows] & ~acting[rows, learners[rows]]
            rows = rows[waiting]
            if rows.size == 0:
                return
            seats = acting[rows].argmax(axis=1)
            opponent_index = seats - (seats > learners[rows])
            for index in np.unique(opponent_index) if len(self.opponents) > 1 else (0,):
                chosen = opponent_index == index if len(self.opponents) > 1 else slice(None)
                self._opponent_moves(self.opponents[index], rows[chosen], seats[chosen])

    def _opponent_moves(self, opponent, rows: np.ndarray, seats: np.ndarray) -> None:
        count = rows.size
        masks = self._scratch_masks[:count]
        actions = self._scratch_actions[:count]
        self.batched.legal_masks(rows, seats, masks)
        if opponent is None:
            _random_actions(rows, masks, self._opponent_streams, actions)
        else:
            observations = self._scratch_observations[:count]
            self.batched.observe(rows, seats, observations)
            copies, call = self._per_game.get(id(opponent)), self._calls[id(opponent)]
            if call == "act":
                actions[:] = [copies[row].act(observations[k], masks[k]) for k, row in enumerate(rows)]
            elif call == "games":  # each game's state from its own copy
                actions[:] = opponent.act_batch(observations, masks, games=[copies[row] for row in rows.tolist()])
            elif call == "rngs":  # each game's choices from its own copy's generator
                actions[:] = opponent.act_batch(observations, masks, rngs=[copies[row].rng for row in rows.tolist()])
            else:
                actions[:] = opponent.act_batch(observations, masks)
            legal = masks[np.arange(count), actions].astype(bool)
            if not legal.all():
                k = int(np.flatnonzero(~legal)[0])
                raise IllegalActionError(
                    f"{self.game.name}: game {rows[k]}: opponent {opponent!r} chose illegal action {actions[k]}"
                )
        self.batched.apply(rows, seats, actions)

    def _pay(self, rows: np.ndarray) -> None:
        """The learner's rewards in ``rows`` (games just played), as the single env pays them."""
        if rows.size == 0:
            return
        learners = self._learners[rows]
        if self.reward_mode == "win":
            ended = self.batched.terminal()[rows]
            if ended.any():
                done = rows[ended]
                self._rewards[done] = self.batched.returns()[done, self._learners[done]]
            return
        scores = self.batched.scores()[rows]
        basis = (leads(scores) if self.reward_mode == "margin" else scores)[np.arange(rows.size), learners]
        self._rewards[rows] = basis - self._last_basis[rows]
        self._last_basis[rows] = basis

    def _observe(self, rows: np.ndarray | None = None) -> None:
        """The learners' observations and masks into the env's buffers: every game, or ``rows`` only."""
        if rows is None:
            self.batched.observe(self._rows, self._learners, self._observations)
            self.batched.legal_masks(self._rows, self._learners, self._masks)
            return
        count = rows.size
        self.batched.observe(rows, self._learners[rows], self._scratch_observations[:count])
        self.batched.legal_masks(rows, self._learners[rows], self._scratch_masks[:count])
        self._observations[rows] = self._scratch_observations[:count]
        self._masks[rows] = self._scratch_masks[:count]

    def _output(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._output(self._masks),
            "_action_mask": self._all_rows_info,
            "seat": self._learners.copy(),
            "_seat": self._all_rows_info,
        }

    def action_masks(self) -> np.ndarray:
        """``(N, num_actions)`` bool: every game's legal actions for its learner (sb3-contrib)."""
        masks = self._masks.astype(bool)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            masks[self._ended] = False
        return masks

    def _sampling_masks(self) -> np.ndarray:
        """What ``action_space.sample()`` draws from: each game's legal mask, zeros where
        the next step takes no action (a game that resets on it) or before ``reset``."""
        if not self._started:
            return np.zeros((self.num_envs, self.game.num_actions), np.int8)
        masks = self._masks.copy()
        masks[self._ended] = 0
        return masks

    def render(self):
        """Game :attr:`render_index` drawn in ``render_mode`` (text, an image, or printed)."""
        return self.render_game(self.render_index)

    def render_game(self, index: int):
        """Game ``index`` drawn in ``render_mode``."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        return render_state(self.batched.state(int(index)), self.render_mode)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.action_space.link(self._sampling_masks)
