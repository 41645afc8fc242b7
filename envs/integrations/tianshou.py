"""Any env of the collection for Tianshou's multi-agent classes, with every reward delivered.

Tianshou's ``PettingZooEnv`` returns with each step the rewards that step paid every
player, and its multi-agent algorithms (``MultiAgentOnPolicyAlgorithm``,
``MultiAgentOffPolicyAlgorithm``) give each player the rows of its own turns only, with
its own entry of that vector. A reward paid to a player on another player's turn is
lost: a two-player game of Lost Dice pays its result with its last move, which is
player 1's, so over 100 random games player 0 was paid 98 times on player 1's turns and
never on its own, and a learner in seat 0 saw no reward at all (in Invers, at
``max_plies=100``, 29 times on its own turns and 18 on the other's). A player whose
opponent ends the game is also never shown the end.

:class:`TianshouAECEnv` keeps what each player has been paid since its last row and
pays it on that player's next row, as PettingZoo's ``last()`` does at its next turn,
together with what the player's own move pays (so a move's own reward is not put off,
and a solitaire game is the single-agent episode it was). When the game ends, every
other player is given one closing row, in seat order after the last mover: its final
observation with a single legal action (0, which the wrapper ignores), paying it the
rest; the last closing row ends the episode. Each player's rows then add up to what
PettingZoo pays it over the game: its final score, lead or result.

Tianshou marks only an episode's last row done, so each row's ``info["final"]`` says
whether it is its player's last row of the game: a learner that follows one player's
rows (the masked PPO of ``training/integrations/tianshou_ppo.py``) ends that player's
episode there.

    from envs.integrations.tianshou import make_tianshou_env
    env = make_tianshou_env("lost_dice")           # obs: Batch(obs=..., mask=..., agent_id=...)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tianshou.env import PettingZooEnv

from envs.registry import get_entry

#: The info key of a player's last row of a game.
FINAL = "final"


class TianshouAECEnv(PettingZooEnv):
    """Tianshou's ``PettingZooEnv`` over one of our AEC envs, paying each player on its own rows."""

    def reset(self, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
        self._owed = dict.fromkeys(self.agents, 0.0)  # paid to each player since its last row
        self._closing: list[str] = []  # the players still to be shown the end of the game
        self._done = (False, False)
        self.env.reset(*args, **kwargs)
        observation, _, _, _, info = self.env.last()
        return self._observation(self.env.agent_selection, observation), {**info, FINAL: False}

    def step(self, action: Any) -> tuple[dict, list[float], bool, bool, dict]:
        if self._closing:
            return self._closing_row()  # a closing row's action is ignored
        mover = self.env.agent_selection
        self.env.step(action)
        for agent, reward in self.env.rewards.items():
            self._owed[agent] += reward
        observation, _, terminated, truncated, info = self.env.last()
        rewards = self._pay(mover)
        if not (terminated or truncated):
            next_row = self._observation(self.env.agent_selection, observation)
            return next_row, rewards, False, False, {**info, FINAL: False}
        seat = self.agent_idx[mover]
        self._closing = [self.agents[(seat + k) % len(self.agents)] for k in range(1, len(self.agents))]
        self._done = (terminated, truncated)
        if not self._closing:  # solitaire: the mover's row is the last
            return self._observation(mover, observation), rewards, terminated, truncated, {**info, FINAL: True}
        return self._closing_observation(self._closing[0]), rewards, False, False, {**info, FINAL: True}

    def _closing_row(self) -> tuple[dict, list[float], bool, bool, dict]:
        agent = self._closing.pop(0)
        rewards = self._pay(agent)
        if self._closing:
            return self._closing_observation(self._closing[0]), rewards, False, False, {FINAL: True}
        return self._closing_observation(agent), rewards, *self._done, {FINAL: True}

    def _closing_observation(self, agent: str) -> dict:
        """``agent``'s final observation, with action 0 as its only move (a closing row's)."""
        mask = np.zeros(self.action_space.n, np.int8)
        mask[0] = 1
        return self._observation(agent, {"observation": self.env.observe(agent)["observation"], "action_mask": mask})

    def _pay(self, agent: str) -> list[float]:
        """The row's rewards: what ``agent`` is owed, in its entry; nothing for the others."""
        rewards = [0.0] * len(self.agents)
        rewards[self.agent_idx[agent]] = self._owed[agent]
        self._owed[agent] = 0.0
        return rewards

    @staticmethod
    def _observation(agent: str, observation: dict[str, np.ndarray]) -> dict:
        return {"agent_id": agent, "obs": observation["observation"], "mask": observation["action_mask"] == 1}


def make_tianshou_env(env: str, **options: Any) -> TianshouAECEnv:
    """Env ``env`` of the collection (e.g. ``"lost_dice"``), options to its ``env()``, for Tianshou."""
    return TianshouAECEnv(get_entry(env).load_module().env(**options))
