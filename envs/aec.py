"""The one PettingZoo AEC adapter that serves every game's rules core.

Observations follow PettingZoo classic: a dict ``{"observation": float32 array,
"action_mask": int8 array}`` per agent. Agents are named ``player_0`` .. ``player_{n-1}``
in seat order. A simultaneous round (Roll Five) is played one agent after another in
seat order; no agent's observation shows another's pending choice, so this is the same
game as the Parallel form (:mod:`envs.parallel`), as PettingZoo's ``parallel_to_aec``
plays it, and such a game's env is marked ``is_parallelizable``.

``state()`` is the global, full-information state of PettingZoo's contract (centralised
critics, MAPPO): :meth:`GameState.state_tensor`, within ``state_space``. The rules-core
state itself is ``env.unwrapped.game_state``.

Rewards (``reward_mode``):

* ``"score"``: every step pays each player the points they gained on it (bonuses when
  earned, end-of-game adjustments at the end), and the first step also pays the points
  a game starts with (Keldice's −4 for no wishing stones, Invers's tile in hand), so a
  game's rewards add up to the final score. The default for one player.
* ``"win"``: 0 until the end, then +1 / -1 / 0 from :meth:`GameState.returns`. The
  default for several players.
* ``"margin"``: every step pays each player the change of their lead, their points
  minus the best of the other players' (solo: the points). A game's rewards add up to
  the final lead (a lead the game starts with is paid with the first step), so this is
  a dense signal aligned with winning: points that the opponents gain count against the
  player.

Every adapter pays from :func:`start_basis`, zero, not from the scores the game starts
with: the rewards of an episode add up to the final score (``"score"``), the final lead
(``"margin"``) or :meth:`GameState.returns` (``"win"``), which ``tests/fuzz.py`` checks.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from envs.core import Game, GameState, IllegalActionError
from envs.spaces import LegalActionSpace

REWARD_MODES = ("score", "win", "margin")
#: What stepping a finished game raises (:class:`IllegalActionError`) says, in every form.
GAME_OVER = "the game is over; call reset() to start a new one"


def resolve_reward_mode(reward_mode: str | None, game: Game) -> str:
    """The reward mode to use: the given one, or the default for the player count."""
    if reward_mode is None:
        return "score" if game.num_players == 1 else "win"
    if reward_mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
    return reward_mode


def check_render_mode(render_mode: str | None, game: Game) -> str | None:
    if render_mode is not None and render_mode not in game.render_modes:
        raise ValueError(f"{game.name}: render_mode must be one of {list(game.render_modes)}, got {render_mode!r}")
    return render_mode


def render_state(state: GameState, render_mode: str | None):
    """What ``render()`` returns in each mode: text (ansi), an image (rgb_array), or None."""
    if render_mode is None:
        gymnasium.logger.warn(
            "You are calling render without specifying render_mode; pass one of "
            f"{list(state.game.render_modes)} when creating the env."
        )
        return None
    if render_mode == "rgb_array":
        return state.render_rgb()
    text = state.render()
    if render_mode == "human":
        print(text)
        return None
    return text


def leads(scores: np.ndarray) -> np.ndarray:
    """Each player's points minus the best of the others' (one player: the points).

    ``scores`` holds the players on its last axis: one game's ``(P,)`` or many games' ``(N, P)``.
    """
    scores = np.asarray(scores, np.float64)
    if scores.shape[-1] == 1:
        return scores.copy()
    second, best = np.split(np.sort(scores, axis=-1)[..., -2:], 2, axis=-1)
    # the top player's best other is the runner-up (equal to it when the top is shared)
    return scores - np.where(scores == best, second, best)


def reward_basis(state: GameState, reward_mode: str) -> np.ndarray:
    """What a step's rewards are the change of: scores (``"score"``) or leads (``"margin"``).

    ``"win"`` pays no increments; its basis is unused and is the scores.
    """
    scores = state.scores()
    return leads(scores) if reward_mode == "margin" else scores


def start_basis(game: Game) -> np.ndarray:
    """The basis that a game's first step is paid against: zero for every seat.

    Not the starting scores: a game that starts with points (Keldice's −4, Invers's
    tile in hand) pays them with the first step, so that an episode's rewards add up to
    the final score or lead and not to what was gained since the start.
    """
    return np.zeros(game.num_players)


def step_rewards(state: GameState, reward_mode: str, last_basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's reward for the step just played, and the basis the next step compares with.

    ``"score"`` / ``"margin"``: the change of :func:`reward_basis` since ``last_basis``;
    ``"win"``: the outcome at the end, else 0.
    """
    if reward_mode != "win":
        basis = reward_basis(state, reward_mode)
        return basis - last_basis, basis
    if state.is_terminal():
        return state.returns(), last_basis
    return np.zeros(state.game.num_players), last_basis


def observation_box(game: Game) -> spaces.Box:
    low, high = game.observation_bounds()
    return spaces.Box(low=low, high=high, shape=game.observation_shape, dtype=np.float32)


def agent_observation_space(game: Game) -> spaces.Dict:
    """PettingZoo classic's per-agent space: ``{"observation", "action_mask"}``."""
    return spaces.Dict(
        {
            "observation": observation_box(game),
            "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
        }
    )


def state_box(game: Game) -> spaces.Box:
    """The ``state_space`` of PettingZoo's ``state()``: :meth:`GameState.state_tensor`'s range."""
    low, high = game.state_bounds()
    return spaces.Box(low=low, high=high, shape=game.state_shape, dtype=np.float32)


class GameAgentsMixin:
    """What the AEC and the Parallel adapter share once they hold ``game_state``.

    Per-agent spaces whose ``sample()`` draws the agent's legal moves (and keep doing so
    in pickled or deep-copied envs), and PettingZoo's global ``state()``.
    """

    def _link_action_spaces(self) -> None:
        """Let each agent's ``action_space(agent).sample()`` draw from that agent's legal moves."""
        for agent, space in self.action_spaces.items():
            space.link(functools.partial(self._sampling_mask, agent))

    def _sampling_mask(self, agent: str) -> np.ndarray | None:
        state = self.game_state
        seat = self._seat[agent]
        if state is None or seat not in state.acting_players():
            return None
        return state.legal_mask(seat)

    def __setstate__(self, state: dict) -> None:
        # A pickled or deep-copied space lost its link to the env (see LegalActionSpace).
        self.__dict__.update(state)
        self._link_action_spaces()

    def state(self) -> np.ndarray:
        """The global state (PettingZoo API): every player's part of the position, see the env card."""
        if self.game_state is None:
            raise RuntimeError("call reset() before state()")
        return self.game_state.state_tensor()

    def _unknown_agent(self, agent: Any) -> KeyError:
        """The error for an agent name the game does not have (``player_9`` at a table of two)."""
        return KeyError(f"{self.game.name}: no agent {agent!r}; its agents are {', '.join(self.possible_agents)}")

    def observation_space(self, agent: str) -> spaces.Space:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None


class GameAECEnv(GameAgentsMixin, AECEnv):
    """PettingZoo AEC environment over a :class:`~envs.core.Game`.

    Subclasses only name the game (``game_class``) and the metadata ``name``; keyword
    arguments other than ``render_mode`` and ``reward_mode`` are the game's options.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_class: ClassVar[type[Game]]

    def __init__(self, render_mode: str | None = None, reward_mode: str | None = None, **game_options):
        super().__init__()
        self.game = self.game_class(**game_options)
        self.render_mode = check_render_mode(render_mode, self.game)
        self.reward_mode = resolve_reward_mode(reward_mode, self.game)
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        observation_space = agent_observation_space(self.game)
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: LegalActionSpace(self.game.num_actions) for a in self.possible_agents}
        self._link_action_spaces()
        self.state_space = state_box(self.game)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state: GameState | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.game_state = self.game.new_initial_state(self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last_basis = start_basis(self.game)
        self.agent_selection = self.possible_agents[self.game_state.acting_players()[0]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        return {"observation": self.game_state.observe(seat), "action_mask": self.game_state.legal_mask(seat)}

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection``.

        Once the game is over, each agent's ``step(None)`` removes it (PettingZoo's
        convention for done agents); any other action then, or any step once every agent
        is removed, raises :class:`IllegalActionError`, as the Gymnasium form does.
        """
        if not self.agents:
            raise IllegalActionError(GAME_OVER)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{GAME_OVER} ({agent} is done: step(None) removes it, PettingZoo's convention)"
                )
            self._was_dead_step(action)
            return
        state = self.game_state
        seat = self._seat[agent]
        state.apply(seat, action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = self._step_rewards()
        if state.is_terminal():
            truncated = state.is_truncated()
            for a in self.agents:
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            self.agent_selection = self.possible_agents[(seat + 1) % self.game.num_players]
        else:
            self.agent_selection = self.possible_agents[state.acting_players()[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _step_rewards(self) -> dict[str, float]:
        rewards, self._last_basis = step_rewards(self.game_state, self.reward_mode, self._last_basis)
        return {a: float(rewards[i]) for i, a in enumerate(self.possible_agents)}

    def render(self):
        return render_state(self.game_state, self.render_mode)

    def close(self) -> None:
        pass


class GameOrderEnforcingWrapper(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, except that a step once every agent is done
    raises :class:`IllegalActionError` (as the Gymnasium form does) instead of only warning."""

    def step(self, action) -> None:
        if self._has_reset and not self.agents:
            raise IllegalActionError(GAME_OVER)
        super().step(action)


def aec_api(game_class: type[Game], name: str, module: str) -> tuple[type[GameAECEnv], Any]:
    """The PettingZoo-style ``raw_env`` class and ``env`` factory of a game's env module.

    ``env(**kwargs)`` is ``raw_env(**kwargs)`` wrapped in PettingZoo's
    ``OrderEnforcingWrapper`` (as in PettingZoo classic; stepping a finished game raises). Illegal actions raise
    :class:`~envs.core.IllegalActionError` instead of being punished, so no
    ``TerminateIllegalWrapper`` is applied.
    """
    raw_env = type(
        "raw_env",
        (GameAECEnv,),
        {
            "game_class": game_class,
            "metadata": {
                **GameAECEnv.metadata,
                "name": name,
                "render_modes": list(game_class.render_modes),
                "is_parallelizable": game_class.simultaneous,
            },
            "__module__": module,
            "__doc__": f"PettingZoo AEC environment of {name} (see the module's env card).",
        },
    )

    def env(**kwargs) -> OrderEnforcingWrapper:
        return GameOrderEnforcingWrapper(raw_env(**kwargs))

    env.__module__ = module
    env.__doc__ = f"{name} wrapped as PettingZoo classic does; keyword arguments go to raw_env."
    return raw_env, env
