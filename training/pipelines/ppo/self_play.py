"""Self-play for every multi-player game: the learner against a pool of opponents.

The pool holds fixed agents (``self_play.pool`` in the config: bots such as ``random``
or ``heuristic``) and frozen snapshots of the learner, one added every
``snapshot_every`` steps (the oldest leaves beyond ``max_snapshots``). Each episode,
each opponent seat draws a member: a snapshot with probability ``snapshot_weight`` when
there is one, else a fixed agent. Seats are random each episode (the Gymnasium env's
``learner_seat=None``), and the reward is always the learner's own seat's (the env
pays ``returns()[learner]``), never an opponent's. In the batched env each game holds its
own copy of each seat's :class:`PoolOpponent` (its member), and the games that wait for a
member are played by it in one call where it acts in batch.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, acts_in_batch
from agents.trained import PolicyAgent
from envs.core import Game
from training.framework.config import build_agent
from training.pipelines.ppo.config import PPOConfig


class SelfPlay:
    """The opponent pool shared by every env of the (single-process) vectorized env."""

    def __init__(self, config: PPOConfig, game: Game):
        self.env_name = config.env
        self.settings = config.self_play
        self.game = game
        self.snapshots: list[PolicyAgent] = []
        self._last_snapshot = 0

    def opponent(self) -> list[PoolOpponent]:
        """Opponents for the other seats of one env."""
        return [PoolOpponent(self) for _ in range(self.game.num_players - 1)]

    def on_rollout_start(self, model, num_timesteps: int, logger) -> None:
        """Freeze a snapshot when due (the policy only changes between rollouts)."""
        if num_timesteps - self._last_snapshot >= self.settings.snapshot_every:
            self.add_snapshot(model.policy)
            self._last_snapshot = num_timesteps
            logger.record("self_play/snapshots", len(self.snapshots))

    def add_snapshot(self, policy) -> None:
        frozen = type(policy)(**policy._get_constructor_parameters())  # a new network: deepcopy trips over
        frozen.load_state_dict(policy.state_dict())  # the distribution cached by the last update
        self.snapshots.append(PolicyAgent(self.game, frozen.eval(), deterministic=False))
        del self.snapshots[: -self.settings.max_snapshots]

    def state(self) -> dict:
        """What a checkpoint keeps of the pool: the snapshots' weights and the step of the last one."""
        return {
            "last_snapshot": self._last_snapshot,
            "snapshots": [agent.policy.state_dict() for agent in self.snapshots],
        }

    def restore(self, state: dict, policy) -> None:
        """The pool of :meth:`state`, its snapshots rebuilt on copies of ``policy``."""
        self.snapshots = []
        for weights in state["snapshots"]:
            self.add_snapshot(policy)
            self.snapshots[-1].policy.load_state_dict(weights)
        self._last_snapshot = state["last_snapshot"]


class PoolOpponent(Agent):
    """One opponent seat: at every episode start it becomes a member drawn from the pool."""

    name = "pool"

    def __init__(self, pool: SelfPlay):
        self.pool = pool
        self.fixed = [build_agent(pool.env_name, spec, pool.game) for spec in pool.settings.pool]
        self.member: Agent | None = None
        super().__init__(pool.game)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        snapshots = self.pool.snapshots
        if snapshots and self.rng.random() < self.pool.settings.snapshot_weight:
            self.member = snapshots[self.rng.integers(len(snapshots))]
        else:
            self.member = self.fixed[self.rng.integers(len(self.fixed))]
        self.member.reset(int(self.rng.integers(2**63)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.member.act(observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, games: list[PoolOpponent]) -> np.ndarray:
        """The batched env's call: row ``k`` is a game whose own copy of this seat is ``games[k]``.

        Each row is played by its game's member: the rows of one member in one ``act_batch``
        call where the member has one (a snapshot's forward pass, a bot written over arrays),
        else one ``act`` per row.
        """
        actions = np.empty(len(observations), np.int64)
        by_member: dict[int, list[int]] = {}
        for row, game in enumerate(games):
            by_member.setdefault(id(game.member), []).append(row)
        for rows in by_member.values():
            member = games[rows[0]].member
            if acts_in_batch(member):
                actions[rows] = member.act_batch(observations[rows], action_masks[rows])
            else:
                actions[rows] = [member.act(observations[k], action_masks[k]) for k in rows]
        return actions
