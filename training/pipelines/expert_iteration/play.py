"""Expert iteration's games: the learner (a network inside the search) and the bots, and the targets
their positions get."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from agents.network import PolicyValueNetwork
from agents.search import mover, network_search
from envs.core import Game, GameState
from training.pipelines.expert_iteration.config import ExpertIterationConfig
from training.teacher.labels import softmax


@dataclass
class Record:
    """One position the learner moved in, before the game's outcome is known."""

    seat: int
    observation: np.ndarray
    mask: np.ndarray
    policy: np.ndarray  #: target distribution over all actions (zero where illegal)
    search_value: float | None  #: the search's value for the mover, in [-1, 1] (None: not searched)


class Learner:
    """The network inside the search, choosing moves and recording targets."""

    def __init__(self, network: PolicyValueNetwork, config: ExpertIterationConfig, game: Game):
        self.search = network_search(game, network, depth=config.search_depth, exact_root=True)
        self.config = config
        self.num_actions = game.num_actions

    def move(self, state: GameState, ply: int, rng: np.random.Generator) -> tuple[int, Record]:
        """The move to play at the game's ``ply`` (sampled early on), and its record."""
        me = mover(state)
        result = self.search.search(state, rng)
        moves = np.fromiter(result.move_values, int)
        values = np.clip(np.fromiter(result.move_values.values(), float), -1.0, 1.0)
        policy = np.zeros(self.num_actions)
        policy[moves] = softmax(values / self.config.policy_temperature)
        if ply < self.config.explore_plies:
            action = int(rng.choice(moves, p=softmax(values / self.config.explore_temperature)))
        else:
            action = result.action
        record = Record(me, state.observe(me), state.legal_mask(me).copy(), policy, float(np.clip(result.value, -1, 1)))
        return action, record


def play_training_game(
    game: Game,
    seats: list[Learner | Agent],
    rng: np.random.Generator,
    random_opening_plies: int,
    recorded: set[int],
    random_move_rate: float = 0.0,
) -> tuple[GameState, list[Record]]:
    """One game; a seat is a :class:`Learner` or any agent. The positions of the seats in
    ``recorded`` are kept: a learner's with its search targets, an agent's with its move
    as the policy target (imitation) and no search value. After the opening, a share
    ``random_move_rate`` of the moves are uniformly random (their positions are kept too,
    for a teacher to label, with the random move as the imitation target)."""
    state = game.new_initial_state(rng)
    records: list[Record] = []
    plies = 0
    while not state.is_terminal():
        player = mover(state)
        mask = state.legal_mask(player)
        seat = seats[player]
        if plies < random_opening_plies:
            action = int(rng.choice(np.flatnonzero(mask)))
        elif random_move_rate and rng.random() < random_move_rate:
            action = int(rng.choice(np.flatnonzero(mask)))
            if player in recorded:
                records.append(
                    Record(player, state.observe(player), mask.copy(), _one_hot(action, game.num_actions), None)
                )
        elif isinstance(seat, Learner):
            action, record = seat.move(state, plies, rng)
            if player in recorded:
                records.append(record)
        else:
            observation = state.observe(player)
            action = seat.act(observation, mask)
            if player in recorded:
                records.append(Record(player, observation, mask.copy(), _one_hot(action, game.num_actions), None))
        state.apply(player, action)
        plies += 1
    return state, records


def _one_hot(action: int, num_actions: int) -> np.ndarray:
    policy = np.zeros(num_actions, np.float32)
    policy[action] = 1.0
    return policy


def learner_targets(records: list[Record], final: GameState, value_mix: float) -> list[tuple]:
    """``(observation, mask, policy, value)`` per record. The value target is the outcome
    of the record's own seat (``final.returns()[seat]``, never another seat's), mixed
    with the search value where the record has one."""
    outcome = final.returns()
    targets = []
    for r in records:
        value = float(outcome[r.seat])
        if r.search_value is not None:
            value = value_mix * r.search_value + (1.0 - value_mix) * value
        targets.append((r.observation, r.mask, r.policy, value))
    return targets
