"""The one PettingZoo AEC adapter that serves every game's rules core.

Observations follow PettingZoo classic: a dict ``{"observation": float32 array,
"action_mask": int8 array}`` per agent. Agents are named ``player_0`` .. ``player_{n-1}``
in seat order. A simultaneous round (Roll Five) is played one agent after another in
seat order; no agent's observation shows another's pending choice, so this is the same
game as the Parallel form.

Rewards (``reward_mode``):

* ``"score"``: every step pays each player the points they gained on it (bonuses when
  earned, end-of-game adjustments at the end). The default for one player.
* ``"win"``: 0 until the end, then +1 / -1 / 0 from :meth:`GameState.returns`. The
  default for several players.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from envs.core import Game, GameState, IllegalActionError

REWARD_MODES = ("score", "win")
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
        import gymnasium

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


def observation_box(game: Game) -> spaces.Box:
    low, high = game.observation_bounds()
    return spaces.Box(low=low, high=high, shape=game.observation_shape, dtype=np.float32)


class GameAECEnv(AECEnv):
    """PettingZoo AEC environment over a :class:`~envs.core.Game`.

    Subclasses only name the game (``game_class``) and the metadata ``name``; keyword
    arguments other than ``render_mode`` and ``reward_mode`` are the game's options.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}
    game_class: ClassVar[type[Game]]

    def __init__(self, render_mode: str | None = None, reward_mode: str | None = None, **game_options):
        super().__init__()
        self.game = self.game_class(**game_options)
        self.render_mode = check_render_mode(render_mode, self.game)
        self.reward_mode = resolve_reward_mode(reward_mode, self.game)
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        observation_space = spaces.Dict(
            {
                "observation": observation_box(self.game),
                "action_mask": spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.state: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.state = self.game.new_initial_state(self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last_scores = self.state.scores()
        self.agent_selection = self.possible_agents[self.state.acting_players()[0]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        return {"observation": self.state.observe(seat), "action_mask": self.state.legal_mask(seat)}

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
                raise IllegalActionError(f"{GAME_OVER} ({agent} is done: step(None) removes it, PettingZoo's convention)")
            self._was_dead_step(action)
            return
        state = self.state
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
        state = self.state
        if self.reward_mode == "score":
            scores = state.scores()
            gained = scores - self._last_scores
            self._last_scores = scores
            return {a: float(gained[i]) for i, a in enumerate(self.possible_agents)}
        if state.is_terminal():
            outcome = state.returns()
            return {a: float(outcome[i]) for i, a in enumerate(self.possible_agents)}
        return dict.fromkeys(self.possible_agents, 0.0)

    def render(self):
        return render_state(self.state, self.render_mode)

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
            "metadata": {**GameAECEnv.metadata, "name": name, "render_modes": list(game_class.render_modes)},
            "__module__": module,
            "__doc__": f"PettingZoo AEC environment of {name} (see the module's env card).",
        },
    )

    def env(**kwargs) -> OrderEnforcingWrapper:
        return GameOrderEnforcingWrapper(raw_env(**kwargs))

    env.__module__ = module
    env.__doc__ = f"{name} wrapped as PettingZoo classic does; keyword arguments go to raw_env."
    return raw_env, env
