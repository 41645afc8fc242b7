"""The game loop: agents playing a game from a seed, and the games of a pairing.

Everything that plays whole games goes through here: the evaluation harness
(:mod:`training.evaluation.harness`), the rating ladder's worker processes
(:mod:`training.ladder`) and bots that sample games of their own (Roll Five's table
model). So a game numbered ``g`` of a pairing is the same game wherever it is played.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
from gymnasium.utils import seeding

from agents.base import Agent
from envs.core import Game, GameState


def start_game(game: Game, seats: Sequence[Agent | None], seed: int) -> tuple[GameState, np.random.Generator]:
    """The first state of game ``seed`` with every agent of ``seats`` reset for it, and the
    generator of its random opening plies: how :func:`play_game` starts, for callers that
    step a game themselves (the web page plays one move per request; None: a seat that a
    person plays)."""
    opening_seed, *agent_seeds = np.random.SeedSequence(seed).spawn(len(seats) + 1)
    for agent, agent_seed in zip(seats, agent_seeds):
        if agent is not None:
            agent.reset(int(agent_seed.generate_state(1)[0]))
    return game.new_initial_state(seeding.np_random(seed)[0]), np.random.default_rng(opening_seed)


def play_game(game: Game, seats: Sequence[Agent], seed: int, random_opening_plies: int = 0) -> tuple[GameState, tuple]:
    """Play one game with ``seats[i]`` in seat ``i``; chance seeded as ``env.reset(seed=seed)``.

    Every agent is reset with a seed of its own drawn from ``seed``. The first
    ``random_opening_plies`` actions are uniformly random legal ones drawn from a
    generator of their own (also from ``seed``). Returns the final state and the sequence
    of ``(player, action)`` played, which identifies the game.
    """
    state, opening_rng = start_game(game, seats, seed)
    history = []
    while not state.is_terminal():
        for player in state.acting_players():
            mask = state.legal_mask(player)
            if len(history) < random_opening_plies:
                action = int(opening_rng.choice(np.flatnonzero(mask)))
            else:
                action = seats[player].act(state.observe(player), mask)
            state.apply(player, action)
            history.append((player, action))
    return state, tuple(history)


def pairing_games(
    game: Game, candidate: Agent, opponent: Agent, numbers: Iterable[int], base_seed: int, random_opening_plies: int = 0
) -> Iterator[tuple[int, GameState, tuple]]:
    """The games ``numbers`` of a pairing, one at a time: in game ``g`` the candidate sits in
    seat ``g % num_players`` (so seats rotate evenly) and the opponent in every other seat,
    and the game is seeded ``base_seed + g``. A game depends only on its number, so a
    pairing split into ranges (over processes) plays the same games.

    Yields ``(candidate's seat, final state, history)`` per game, as :func:`play_game`.
    """
    for g in numbers:
        yield pairing_game(game, candidate, opponent, g, base_seed, random_opening_plies)


def pairing_game(
    game: Game, candidate: Agent, opponent: Agent, number: int, base_seed: int, random_opening_plies: int = 0
) -> tuple[int, GameState, tuple]:
    """Game ``number`` of a pairing (:func:`pairing_games`): ``(candidate's seat, final state, history)``."""
    n = game.num_players
    seat = number % n
    players = [opponent] * n
    players[seat] = candidate
    state, history = play_game(game, players, base_seed + number, random_opening_plies)
    return seat, state, history
