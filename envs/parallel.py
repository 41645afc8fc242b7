"""The one PettingZoo Parallel adapter, for every game whose rounds are simultaneous.

A game that declares ``simultaneous = True`` (see :class:`envs.core.Game`) gets this form
besides the AEC one: each ``step`` takes one action from every agent that is to act,
and the rules core resolves the round when the last of them is applied. Observations,
agent names and rewards are those of the AEC adapter (:mod:`envs.aec`): a dict
``{"observation", "action_mask"}`` per agent, ``player_0`` .. ``player_{n-1}``, and the
``reward_mode`` of that module. Agents that are done leave ``agents`` after the step
that ends them, as PettingZoo requires.

All actions of a step are checked before any is applied, so an illegal one raises
:class:`~envs.core.IllegalActionError` and leaves the game unchanged. An agent that is
not to act may be left out of the actions or given ``None``.

The action spaces sample legal actions (:class:`envs.spaces.LegalActionSpace`),
so ``env.action_space(agent).sample()`` plays a legal move, as PettingZoo's
``parallel_seed_test`` expects, copies of the env included. ``state()`` is the global
state of the AEC form (:meth:`envs.core.GameState.state_tensor`, within ``state_space``);
the rules-core state itself is ``env.game_state``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from envs.aec import (
    GameAgentsMixin,
    agent_observation_space,
    check_render_mode,
    render_state,
    resolve_reward_mode,
    start_basis,
    state_box,
    step_rewards,
)
from envs.core import Game, GameState, IllegalActionError
from envs.spaces import LegalActionSpace


class GameParallelEnv(GameAgentsMixin, ParallelEnv):
    """PettingZoo Parallel environment over a simultaneous :class:`~envs.core.Game`.

    Subclasses only name the game (``game_class``) and the metadata ``name``; keyword
    arguments other than ``render_mode`` and ``reward_mode`` are the game's options.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "is_parallelizable": True, "render_fps": 1}
    game_class: ClassVar[type[Game]]

    def __init__(self, render_mode: str | None = None, reward_mode: str | None = None, **game_options):
        self.game = self.game_class(**game_options)
        self.render_mode = check_render_mode(render_mode, self.game)
        self.reward_mode = resolve_reward_mode(reward_mode, self.game)
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        observation_space = agent_observation_space(self.game)
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {agent: LegalActionSpace(self.game.num_actions) for agent in self.possible_agents}
        self._link_action_spaces()
        self.state_space = state_box(self.game)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state: GameState | None = None

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.game_state = self.game.new_initial_state(self.np_random)
        self.agents = self.possible_agents[:]
        self._last_basis = start_basis(self.game)
        return self._observations(self.agents), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        state = self.game_state
        if state is None or not self.agents:
            raise IllegalActionError(f"{self.game.name}: the episode is over or not started; call reset() first")
        if not isinstance(actions, Mapping):
            raise IllegalActionError(
                f"{self.game.name}: step() takes a dict of every acting agent's action, e.g. {{'player_0': 3, ...}}; "
                f"got {type(actions).__name__} {actions!r}"
            )
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise IllegalActionError(f"{self.game.name}: actions for agents not in the game: {sorted(unknown)}")
        moves = self._checked_moves(state, actions)
        for seat, action in moves:
            state.apply(seat, action)
        agents = self.agents
        rewards, self._last_basis = step_rewards(state, self.reward_mode, self._last_basis)
        done = state.is_terminal()
        truncated = done and state.is_truncated()
        observations = self._observations(agents)
        reward_of = {a: float(rewards[self._seat[a]]) for a in agents}
        terminations = dict.fromkeys(agents, done and not truncated)
        truncations = dict.fromkeys(agents, truncated)
        infos = {a: {} for a in agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, reward_of, terminations, truncations, infos

    def _checked_moves(self, state: GameState, actions: dict[str, Any]) -> list[tuple[int, int]]:
        """``(seat, action)`` of every acting agent in seat order, all checked legal first."""
        acting = state.acting_players()
        moves = []
        for seat, agent in enumerate(self.possible_agents):
            action = actions.get(agent)
            if seat not in acting:
                if action is not None:
                    raise IllegalActionError(
                        f"{self.game.name}: {agent} is not to act now but was given action {action!r}"
                    )
                continue
            if action is None:
                raise IllegalActionError(
                    f"{self.game.name}: {agent} is to act but has no action (acting: {self._names(acting)})"
                )
            error = state.illegal_action_error(seat, action)
            if error is not None:
                raise error
            moves.append((seat, self.game.check_action(action)))
        return moves

    def _names(self, seats) -> list[str]:
        return [self.possible_agents[s] for s in seats]

    def _observations(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        state, seat = self.game_state, self._seat
        return {a: {"observation": state.observe(seat[a]), "action_mask": state.legal_mask(seat[a])} for a in agents}

    def render(self):
        return render_state(self.game_state, self.render_mode)

    def close(self) -> None:
        pass


def parallel_api(game_class: type[Game], name: str, module: str):
    """The ``parallel_env`` factory of a simultaneous game's env module.

    Raises ``TypeError`` for a game that does not declare ``simultaneous = True``: its
    turns are sequential, and the AEC form is its natural one.
    """
    if not game_class.simultaneous:
        raise TypeError(f"{game_class.name} is turn-based (Game.simultaneous is False): it has no Parallel form")
    cls = type(
        "parallel_raw_env",
        (GameParallelEnv,),
        {
            "game_class": game_class,
            "metadata": {**GameParallelEnv.metadata, "name": name, "render_modes": list(game_class.render_modes)},
            "__module__": module,
            "__doc__": f"PettingZoo Parallel environment of {name} (see the module's env card).",
        },
    )

    def parallel_env(**kwargs) -> GameParallelEnv:
        return cls(**kwargs)

    parallel_env.__module__ = module
    parallel_env.__doc__ = f"{name} in PettingZoo's Parallel API; keyword arguments as for env()."
    return parallel_env
