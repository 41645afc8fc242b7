"""The game loop: agents playing a game from a seed, and the games of a pairing.

Everything that plays whole games goes through here: the evaluation harness
(:mod:`training.evaluation.harness`), the rating ladder's worker processes
(:mod:`training.ladder`) and bots that sample games of their own (Roll Five's table
model). So a game numbered ``g`` of a pairing is the same game wherever it is played.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import copy as shallow_copy
from dataclasses import dataclass

import numpy as np
from gymnasium.utils import seeding

from agents.base import Agent, acts_in_batch, draws_per_row
from envs.batched import streams as random_streams
from envs.core import Game, GameState
from envs.registry import get_entry

OUTCOMES = {1: "You win.", 0: "A draw.", -1: "You lose."}
CUT_OFF = "the game reached its length limit, where the scores do not count"


def outcome_words(state: GameState, seat: int | None) -> str:
    """How a finished game of several players ended, in words: for ``seat``'s player ("You
    win."), or for a spectator (None: "Won by P0."). A game cut off by a length limit says
    so, for its scores alone would seem to name a winner."""
    returns = state.returns()
    if seat is not None:
        words = OUTCOMES[int(np.sign(returns[seat]))]
    else:
        winners = [f"P{p}" for p in np.flatnonzero(returns > 0)]
        words = f"Won by {', '.join(winners)}." if winners else "A draw."
    return f"{words[:-1]}: {CUT_OFF}." if state.is_truncated() else words


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


@dataclass(frozen=True)
class GameEnd:
    """How a game played in batch ended, read off the batched twin's arrays (bit for bit the
    rules core's): its ``scores()`` and ``returns()``, for callers that need no more of the
    final state and should not pay for replaying the game on the rules core."""

    final_scores: np.ndarray
    final_returns: np.ndarray

    def scores(self) -> np.ndarray:
        return self.final_scores

    def returns(self) -> np.ndarray:
        return self.final_returns


def play_games_in_batch(
    game: Game,
    tables: Sequence[Sequence[Agent]],
    seeds: Sequence[int],
    random_opening_plies: int = 0,
    states: bool = True,
    on_ended: Callable[[int], None] | None = None,
) -> list[tuple[GameState | GameEnd, tuple]]:
    """:func:`play_game` of every ``(tables[k], seeds[k])``, all the games at once, as rows of
    the game's batched twin (:mod:`envs.batched`): at each step one ``act_batch`` call per
    agent and seat over every game where that seat waits for it. ``on_ended(n)``, if given,
    is told after each step how many games that step ended (a progress line as they end).

    Every agent must act in batch (:func:`agents.base.acts_in_batch`). Each game starts
    from its seed's chance and its agents are reset from it as :func:`play_game` resets
    them; an agent whose choices draw on its generator (:func:`agents.base.draws_per_row`)
    draws each game's from that game's own copy of it. Agents whose ``act_batch`` is ``act``
    row by row (the tests check every bot and shipped agent; a network computes each row the
    same in any batch, :func:`agents.inference.row_blocks`) play the very games
    :func:`play_game` plays.

    Each game comes back as ``(final state, history)``, the state rebuilt on the rules core
    by replaying the game (its statistics, a record of it); with ``states=False`` as
    ``(GameEnd, history)``, the scores and returns alone, without the replay (a fifth of the
    time of a benchmark's table).
    """
    if len(tables) != len(seeds):
        raise ValueError(f"one seed per table: {len(tables)} tables, {len(seeds)} seeds")
    draws = {}  # id(agent) -> whether it draws per row
    for agent in {id(a): a for table in tables for a in table}.values():
        if not acts_in_batch(agent):
            raise ValueError(f"{agent!r} cannot act in batch (it has no act_batch): play its games with play_game")
        draws[id(agent)] = draws_per_row(agent)
    twin = get_entry(game.name).batched_class()(game, len(seeds))
    streams = random_streams.new_streams(len(seeds))
    games = np.arange(len(seeds))
    openings, players = [], []  # per game: its opening generator, and per seat the agent that acts (a copy if it draws)
    for row, (table, seed) in enumerate(zip(tables, seeds)):
        opening_seed, *agent_seeds = np.random.SeedSequence(seed).spawn(len(table) + 1)
        openings.append(np.random.default_rng(opening_seed))
        copies: dict[int, Agent] = {}
        for agent, agent_seed in zip(
            table, agent_seeds
        ):  # reset in seat order: an agent in several seats keeps the last
            own = copies.setdefault(id(agent), shallow_copy(agent) if draws[id(agent)] else agent)
            own.reset(int(agent_seed.generate_state(1)[0]))
        players.append([copies[id(agent)] for agent in table])
        random_streams.load_generator(streams, row, seeding.np_random(seed)[0].bit_generator)
    twin.start(games, streams)
    observations = np.zeros((len(seeds), *game.observation_shape), np.float32)
    masks = np.zeros((len(seeds), game.num_actions), np.int8)
    moves = np.zeros(len(seeds), np.int64)
    ended = int(twin.terminal().sum())
    while ended < len(seeds):
        for seat in range(game.num_players):
            rows = np.flatnonzero(twin.acting()[:, seat])
            if rows.size == 0:
                continue
            twin.legal_masks(rows, np.full(rows.size, seat), masks[: rows.size])
            actions = np.empty(rows.size, np.int64)
            opening = moves[rows] < random_opening_plies
            for k in np.flatnonzero(opening).tolist():
                actions[k] = int(openings[rows[k]].choice(np.flatnonzero(masks[k])))
            by_agent: dict[int, list[int]] = {}
            for k in np.flatnonzero(~opening).tolist():
                by_agent.setdefault(id(tables[rows[k]][seat]), []).append(k)
            for chosen in by_agent.values():
                agent = tables[rows[chosen[0]]][seat]
                picked = rows[chosen]
                twin.observe(picked, np.full(len(chosen), seat), observations[: len(chosen)])
                own = {"rngs": [players[row][seat].rng for row in picked.tolist()]} if draws[id(agent)] else {}
                actions[chosen] = agent.act_batch(observations[: len(chosen)], masks[chosen], **own)
            illegal = ~masks[np.arange(rows.size), actions].astype(bool)
            if illegal.any():
                k = int(np.flatnonzero(illegal)[0])
                raise RuntimeError(
                    f"{tables[rows[k]][seat]!r} chose illegal action {actions[k]} in game seed {seeds[rows[k]]}"
                )
            twin.apply(rows, np.full(rows.size, seat), actions)
            moves[rows] += 1
        now_ended = int(twin.terminal().sum())
        if on_ended is not None and now_ended > ended:
            on_ended(now_ended - ended)
        ended = now_ended
    if not states:
        scores, returns = twin.scores(), twin.returns()
        return [(GameEnd(scores[row].copy(), returns[row].copy()), twin.history(row)) for row in range(len(seeds))]
    return [(twin.state(row), twin.history(row)) for row in range(len(seeds))]


def pairing_games(
    game: Game, candidate: Agent, opponent: Agent, numbers: Iterable[int], base_seed: int, random_opening_plies: int = 0
) -> Iterator[tuple[int, GameState, tuple]]:
    """The games ``numbers`` of a pairing, one at a time, in seat-paired openings
    (:func:`pairing_seat`, :func:`pairing_seed`). A game depends only on its number, so a
    pairing split into ranges (over processes) plays the same games.

    Yields ``(candidate's seat, final state, history)`` per game, as :func:`play_game`.
    """
    for g in numbers:
        yield pairing_game(game, candidate, opponent, g, base_seed, random_opening_plies)


def pairing_game(
    game: Game, candidate: Agent, opponent: Agent, number: int, base_seed: int, random_opening_plies: int = 0
) -> tuple[int, GameState, tuple]:
    """Game ``number`` of a pairing (:func:`pairing_games`): ``(candidate's seat, final state, history)``."""
    seed = pairing_seed(game, base_seed, number)
    state, history = play_game(game, pairing_seats(game, candidate, opponent, number), seed, random_opening_plies)
    return pairing_seat(game, number), state, history


def pairing_seat(game: Game, number: int) -> int:
    """The candidate's seat in game ``number`` of a pairing: ``number % num_players``, so that
    the ``num_players`` games of an opening (:func:`pairing_seed`) seat it once in every seat."""
    return number % game.num_players


def pairing_seed(game: Game, base_seed: int, number: int) -> int:
    """The seed of game ``number`` of a pairing: ``base_seed + number // num_players``.

    **Seat-paired openings**, as chess engines are tested (fastchess's ``-games 2``, fishtest's
    game pairs): the games of a pairing come in rounds of ``num_players``, one *opening* each,
    and every game of a round has the round's seed: the same dice, the same random opening
    plies, the same draws of the agents, with the candidate in each seat in turn. What the
    deal and the seat give one side cancels within the round, and two copies of one
    deterministic agent score exactly ½. The rounds, not the games, are the independent
    samples: intervals are taken over them (:func:`training.evaluation.harness.opening_scores`).
    """
    return base_seed + number // game.num_players


def pairing_seats(game: Game, candidate: Agent, opponent: Agent, number: int) -> list[Agent]:
    """The seats of game ``number`` of a pairing: the candidate in :func:`pairing_seat`, the opponent in every other."""
    players = [opponent] * game.num_players
    players[pairing_seat(game, number)] = candidate
    return players
