"""The batched Lost Dice / Keldice twin (envs/batched/lost_dice.py) against the rules core.

Random games on both sides for every player count of both envs, short games (so that
many end and restart within the steps), Lost Dice's ``variant="keldice"`` and custom dice
files; then games steered towards discards and takes, to reach the offer rules random
play rarely reaches: a lone taker who is not next in turn (asked out of turn, not folded
into a turn start) and a Keldice extra roll discarded by a player whose turn it is not.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.lost_dice import BATCHED_GAME
from envs.games.lost_dice import DISCARD, OFFER, TAKE, Keldice, LostDice
from tests.batched_check import Lockstep, compare

BIG_DICE = """variant: lost_dice
dice:
  - [$/K, 6/Y, 6/G, 1/R, $/W, 2/B]
  - [6/K, 4/B, $/G, 2/Y, 1/W, 6/R]
  - [1/Y, 6/G, 2/R, 6/W, $/K, 3/B]
"""
EXTRA_ROLL_DICE = """variant: keldice
dice:
  - [1/W/E, 6/K/E, 2/R/S, 3/B/E, 4/G/E, 6/Y/V]
  - [1/B/E, 2/Y/E, 6/G/E, 3/K/-, 4/R/S, 5/W/E]
  - [1/Y/E, 2/G/E, 3/R/E, 6/W/E, 4/K/S, 5/B/V]
"""


@pytest.mark.parametrize("game_class", [LostDice, Keldice])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_short_games(game_class, players):
    assert compare(BATCHED_GAME, game_class(num_players=players, rolls_per_player=3), 16, 120) == 16 * 120


@pytest.mark.parametrize("game_class", [LostDice, Keldice])
def test_default_rolls(game_class):
    compare(BATCHED_GAME, game_class(num_players=2), 8, 300, seed=5)


def test_keldice_variant_of_lost_dice():
    compare(BATCHED_GAME, LostDice(num_players=3, variant="keldice", rolls_per_player=4), 16, 100, seed=7)


@pytest.mark.parametrize(("text", "game_class"), [(BIG_DICE, LostDice), (EXTRA_ROLL_DICE, Keldice)])
def test_custom_dice_file(tmp_path, text, game_class):
    path = tmp_path / "dice.yaml"
    path.write_text(text)
    compare(BATCHED_GAME, game_class(num_players=3, rolls_per_player=5, dice_file=path), 16, 100, seed=3)


def _steered_games(game, num_games, steps, seed):
    """Play games that discard and take often on both sides, compared after every action
    (a finished game restarts from its stream); the counts of the rare offer situations
    the core went through."""
    pair = Lockstep(BATCHED_GAME, game, num_games, seed)
    chooser = np.random.default_rng(seed)
    lone_out_of_turn = discard_out_of_turn = 0
    for _ in range(steps):
        ended = np.flatnonzero(pair.batched.terminal())
        if ended.size:
            pair.start(ended)
        seats = pair.batched.acting().argmax(axis=1)
        actions = []
        for core, seat in zip(pair.cores, seats):
            legal = np.flatnonzero(core.legal_mask(seat))
            if DISCARD in legal and chooser.random() < 0.6:
                actions.append(DISCARD)
            elif TAKE in legal and chooser.random() < 0.8:
                actions.append(TAKE)
            else:
                actions.append(int(chooser.choice(legal)))
        turns = [core._turn for core in pair.cores]
        pair.play(pair.rows, seats, actions)
        for core, seat, action, turn in zip(pair.cores, seats, actions, turns):
            if action == DISCARD:
                discard_out_of_turn += seat != turn
                lone_out_of_turn += core.phase == OFFER and not core._asked
    return lone_out_of_turn, discard_out_of_turn


def test_offer_to_a_lone_player_out_of_turn():
    """One player could take the discard, and it is not their turn next (the next player
    skips a turn, or cannot use it): they are asked take / decline out of turn order."""
    lone, _ = _steered_games(LostDice(num_players=3, rolls_per_player=20), 16, 120, seed=11)
    assert lone > 0


def test_extra_roll_discarded_out_of_turn(tmp_path):
    """A Keldice player who took an offer out of turn earns an extra roll and discards it:
    the offer goes round from their left while the turn stays with the original player."""
    path = tmp_path / "dice.yaml"
    path.write_text(EXTRA_ROLL_DICE)
    _, out_of_turn = _steered_games(Keldice(num_players=4, rolls_per_player=5, dice_file=path), 16, 120, seed=13)
    assert out_of_turn > 0
