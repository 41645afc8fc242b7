"""The one single-agent Gymnasium adapter that serves every game's rules core.

For a one-player game the env is the game itself. With more players the learner sits in
one seat and the other seats are played by opponent policies passed in (default: uniform
random over legal actions). Opponents act inside ``step`` until it is the learner's turn
again or the game ends, so each ``step`` is one decision of the learner. In a
simultaneous round the learner may commit before opponents of the same round; the rules
core never shows a pending choice, so each opponent decides on its own observation only.

Action masking follows sb3-contrib's convention (``action_masks()``, a boolean array) and
the mask is also given in ``info["action_mask"]`` (``int8``) for other libraries.
``action_space.sample()`` draws from the learner's legal actions of the current state.

An illegal action (an id of the action space that the rules forbid now) ends the episode
by default (``illegal_action="terminate"``): ``step`` returns ``terminated=True``, the
reward ``illegal_reward`` (default -1), the unchanged observation, an all-zero mask and
``info["illegal_action"]``, the error's message, with a warning. The game is not
played on and the action is not replaced by a legal one. This is the behaviour
Gymnasium's contract asks for (every element of ``action_space`` is a valid argument of
``step``; ``check_env`` samples its action before its seeded ``reset``, so from the mask
of another state) and PettingZoo classic's ``TerminateIllegalWrapper`` has.
``illegal_action="raise"`` raises :class:`~envs.core.IllegalActionError` instead and
leaves the state unchanged. Either way an id outside the action space, a non-integer or
a step once the episode is over raises.

An opponent is any object with ``act(observation, action_mask) -> int``; if it also has
``reset(seed=...)`` it is reseeded from the env's seed at every ``reset``, so the same
seed gives the same game. An opponent may also be given by a bot's name (``"heuristic"``)
once ``agents`` is imported: envs knows no bots, the agents layer lends them through the
hook in :mod:`envs.opponents`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from envs.aec import (
    GAME_OVER,
    check_render_mode,
    observation_box,
    render_state,
    resolve_reward_mode,
    reward_basis,
    start_basis,
)
from envs.core import Game, GameState, IllegalActionError
from envs.opponents import Policy, opponent_list
from envs.spaces import LegalActionSpace

#: What the Gymnasium env does with an illegal action (its ``illegal_action`` option).
ILLEGAL_ACTION_MODES = ("terminate", "raise")


def check_learner_options(game: Game, learner_seat, illegal_action: str, illegal_reward) -> None:
    """The learner's options of a Gymnasium env (single or batched), or an error naming the bad one."""
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
    if (
        isinstance(illegal_reward, bool)
        or not isinstance(illegal_reward, (int, float, np.integer, np.floating))
        or not np.isfinite(illegal_reward)
    ):
        raise ValueError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
    n = game.num_players
    if learner_seat is not None and (
        isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) or not 0 <= learner_seat < n
    ):
        raise ValueError(f"learner_seat must be in 0..{n - 1} or None, got {learner_seat!r}")


class SingleAgentEnv(gymnasium.Env):
    """Gymnasium env: the learner plays one seat of a game, opponents play the others.

    Args:
        render_mode: ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it), or
            ``"rgb_array"`` (an image) for games that draw one.
        reward_mode: ``"score"`` (points gained each step), ``"margin"`` (the change of
            the lead over the best other player each step) or ``"win"`` (+1/-1/0 at the
            end); default ``"score"`` for one player and ``"win"`` for more. The first
            step also pays the points the game starts with, so an episode's rewards add
            up to the learner's final score, final lead or outcome.
        opponents: one policy for every other seat, or a list with one per other seat in
            seat order (skipping the learner's); ``None`` plays uniformly random legal moves.
            A policy is an object with ``act(observation, action_mask)`` or, once ``agents``
            is imported, the name of a bot of the game (an agent spec such as
            ``"heuristic"``, see ``agents/registry.py`` and :mod:`envs.opponents`).
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        illegal_action: ``"terminate"`` (default: an illegal action ends the episode
            with ``illegal_reward``, see above) or ``"raise"`` (``IllegalActionError``).
        illegal_reward: the reward of the step that an illegal action ends (default -1).
        **game_options: the game's own options (``num_players`` and its rulings).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 1}
    game_class: ClassVar[type[Game]]

    def __init__(
        self,
        render_mode: str | None = None,
        reward_mode: str | None = None,
        opponents: Policy | Sequence[Policy] | None = None,
        learner_seat: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **game_options,
    ):
        self.game = self.game_class(**game_options)
        check_learner_options(self.game, learner_seat, illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = check_render_mode(render_mode, self.game)
        self.reward_mode = resolve_reward_mode(reward_mode, self.game)
        n = self.game.num_players
        self.learner_seat_option = learner_seat
        self.opponents = opponent_list(self.game, opponents, n - 1)
        self.observation_space = observation_box(self.game)
        self.action_space = LegalActionSpace(self.game.num_actions, self._sampling_mask)
        self.game_state: GameState | None = None
        self.learner = 0
        self._ended_by_illegal_action = False

    def __setstate__(self, state: dict) -> None:
        # A pickled or deep-copied space lost its link to the env (see LegalActionSpace).
        self.__dict__.update(state)
        self.action_space.link(self._sampling_mask)

    def set_opponents(self, opponents: Policy | Sequence[Policy] | None) -> None:
        """Replace the opponents from the next step on (self-play swaps them in here)."""
        self.opponents = opponent_list(self.game, opponents, self.game.num_players - 1)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        n = self.game.num_players
        self.learner = int(rng.integers(n)) if self.learner_seat_option is None else self.learner_seat_option
        # Opponents draw from their own stream so their choices never shift the game's chance.
        self._opponent_rng = np.random.default_rng(rng.integers(2**63))
        for opponent in self.opponents:
            if opponent is not None and hasattr(opponent, "reset"):
                opponent.reset(seed=int(self._opponent_rng.integers(2**63)))
        self.game_state = self.game.new_initial_state(rng)
        self._ended_by_illegal_action = False
        self._last_basis = start_basis(self.game)[self.learner]  # the first step pays the starting points too
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action):
        state = self.game_state
        if state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self._ended_by_illegal_action or state.is_terminal():
            raise IllegalActionError(GAME_OVER)
        try:
            state.apply(self.learner, action)  # refused actions leave the state as it was
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self.game.check_action(action)  # not an id of the action space: that still raises
            return self._end_by_illegal_action(error)
        self._play_opponents()
        terminated = state.is_terminal()
        truncated = terminated and state.is_truncated()
        terminated = terminated and not truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._reward(), terminated, truncated, self._info()

    def _end_by_illegal_action(self, error: IllegalActionError):
        """The step that an illegal action ends (``illegal_action="terminate"``): nothing played."""
        self._ended_by_illegal_action = True
        gymnasium.logger.warn(
            f"{self.game.name}: an illegal action ended the episode with reward {self.illegal_reward} "
            "(info['illegal_action'] names it; illegal_action='raise' raises instead)"
        )
        info = {
            "action_mask": np.zeros(self.game.num_actions, np.int8),
            "seat": self.learner,
            "illegal_action": str(error),
        }
        if self.render_mode == "human":
            self.render()
        return self._observation(), self.illegal_reward, True, False, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib ``MaskablePPO``); all False
        once the episode is over."""
        if self._ended_by_illegal_action:
            return np.zeros(self.game.num_actions, bool)
        return self.game_state.legal_mask(self.learner).astype(bool)

    def _sampling_mask(self) -> np.ndarray | None:
        """What ``action_space.sample()`` draws from: the learner's legal actions, None when
        there are none (before ``reset``, once the episode is over)."""
        if self.game_state is None or self._ended_by_illegal_action or self.game_state.is_terminal():
            return None
        return self.game_state.legal_mask(self.learner)

    def render(self):
        return render_state(self.game_state, self.render_mode)

    def _play_opponents(self) -> None:
        state = self.game_state
        while not state.is_terminal():
            acting = state.acting_players()
            if self.learner in acting:
                return
            seat = acting[0]
            mask = state.legal_mask(seat)
            opponent = self.opponents[seat if seat < self.learner else seat - 1]
            if opponent is None:
                action = int(self._opponent_rng.choice(np.flatnonzero(mask)))
            else:
                action = opponent.act(state.observe(seat), mask)
            state.apply(seat, action)

    def _observation(self) -> np.ndarray:
        return self.game_state.observe(self.learner)

    def _info(self) -> dict[str, Any]:
        # A copy: a core may hand out a shared read-only mask, and Gymnasium requires
        # fresh data in every returned info.
        return {"action_mask": self.game_state.legal_mask(self.learner).copy(), "seat": self.learner}

    def _reward(self) -> float:
        state = self.game_state
        if self.reward_mode != "win":
            basis = reward_basis(state, self.reward_mode)[self.learner]
            gained = basis - self._last_basis
            self._last_basis = basis
            return float(gained)
        if state.is_terminal():
            return float(state.returns()[self.learner])
        return 0.0


def single_agent_api(game_class: type[Game], module: str) -> type[SingleAgentEnv]:
    """The Gymnasium env class of a game's env module (the registered entry point)."""
    return type(
        "gym_env",
        (SingleAgentEnv,),
        {
            "game_class": game_class,
            "metadata": {**SingleAgentEnv.metadata, "render_modes": list(game_class.render_modes)},
            "__module__": module,
            "__doc__": f"Single-agent Gymnasium env of {game_class.name} (see the module's env card).",
        },
    )
