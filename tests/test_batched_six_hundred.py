"""The batched Six Hundred twin (envs/batched/six_hundred.py) against its rules core.

Random play (``tests.batched_check.compare``) covers the dice, the locks, the masks and most of
the sheet, but it almost never earns the Numbers bonus or the game bonus, nor keeps a ladder
alive to the end. The scripted games here deal chosen dice tapes to both sides (the core's
``new_state_from_tape``, loaded into the twin with ``load_state``) and play them out, comparing
everything after every action: a 599 game, the bonus at exactly 80, a Sextet as the only zero, rungs written out
of order, equal rungs (the strict ladder), an early zero, and ties between players.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.six_hundred import BatchedSixHundred
from envs.games.six_hundred import CATEGORY_NAMES, SixHundred, lock_action, score_action
from tests.batched_check import Lockstep, compare


@pytest.mark.parametrize(
    "players,games,steps", [(1, 16, 120), (2, 16, 120), (3, 12, 150), (4, 8, 200), (5, 8, 220), (6, 8, 240)]
)
def test_matches_core(players, games, steps):
    assert compare(BatchedSixHundred, SixHundred(players), num_games=games, steps=steps, seed=players) == games * steps


SIX = {v: (v,) * 6 for v in range(1, 7)}
SERIES = (1, 2, 3, 4, 5, 6)
#: One write per round, in round order: (the six dice, the category).
PERFECT = [(SIX[v], name) for v, name in zip(range(1, 7), CATEGORY_NAMES[:6])] + [
    ((6, 6, 6, 6, 6, 3), "Rung 1"), ((6, 6, 6, 6, 6, 4), "Rung 2"), ((6, 6, 6, 6, 6, 5), "Rung 3"), (SIX[6], "Rung 4"),
    (SIX[6], "Four of a Kind"), (SIX[6], "Five of a Kind"), (SIX[5], "Odds"), (SIX[6], "Evens"),
    (SERIES, "Series"), (SIX[6], "Pairs"), (SIX[6], "Triplets"), (SIX[6], "Sextet"),
]  # fmt: skip
#: The Numbers bonus at exactly 80 (3 + 8 + 9 + 16 + 20 + 24), rungs written 3, 1, 4, 2 and the
#: Sextet the only zero: the game bonus stays.
EXACT_80 = [
    ((1, 1, 1, 2, 3, 4), "Ones"), ((2, 2, 2, 2, 1, 3), "Twos"), ((3, 3, 3, 1, 2, 4), "Threes"),
    ((4, 4, 4, 4, 1, 2), "Fours"), ((5, 5, 5, 5, 1, 2), "Fives"), ((6, 6, 6, 6, 1, 2), "Sixes"),
    ((5, 5, 5, 5, 5, 5), "Rung 3"), ((1, 1, 1, 1, 2, 4), "Rung 1"), ((6, 6, 6, 6, 6, 5), "Rung 4"),
    ((3, 3, 3, 3, 3, 4), "Rung 2"), ((2, 2, 2, 2, 1, 1), "Four of a Kind"), ((3, 3, 3, 3, 3, 1), "Five of a Kind"),
    ((1, 1, 3, 3, 5, 5), "Odds"), ((2, 2, 4, 4, 6, 6), "Evens"), (SERIES, "Series"), ((1, 1, 2, 2, 3, 3), "Pairs"),
    ((4, 4, 4, 6, 6, 6), "Triplets"), (SERIES, "Sextet"),
]  # fmt: skip


def _variant(script, **changes):
    """``script`` with the dice of some categories replaced (``{"Rung 4": dice}``)."""
    return [(changes.get(name.replace(" ", "_"), dice), name) for dice, name in script]


SEXTET_ZERO = _variant(PERFECT, Sextet=SERIES)  # 599 - 36: the game bonus stays
EQUAL_RUNGS = _variant(PERFECT, Rung_3=SIX[6])  # Rung 3 = Rung 4 = 36: the rungs score 0
EARLY_ZERO = _variant(PERFECT, Ones=SIX[2])  # the game bonus is lost on the first write


def _tape(scripts, locking, rng):
    """A tape whose turns end on the scripted dice: written at once from roll 1, or (``locking``)
    roll 1 shows the three lowest scripted dice and three 6s, the three lowest are locked and
    roll 2 brings the other three."""
    tape = rng.integers(1, 7, size=(len(scripts), 18, 3, 6))
    for p, script in enumerate(scripts):
        for r, (dice, _) in enumerate(script):
            dice = sorted(dice)
            if locking:
                tape[p, r, 0] = dice[:3] + [6, 6, 6]
                tape[p, r, 1, :3] = dice[3:]
            else:
                tape[p, r, 0] = dice
    return tape


def _play_scripted(tables, locking=False):
    """Play every table (one script per seat) on both sides, compared after every action; the
    finished core states."""
    players = len(tables[0])
    game = SixHundred(players)
    rng = np.random.default_rng(7)
    pair = Lockstep.loaded(
        BatchedSixHundred, [game.new_state_from_tape(_tape(scripts, locking, rng)) for scripts in tables]
    )
    category = {name: c for c, name in enumerate(CATEGORY_NAMES)}
    for _ in range(18 * players * (2 if locking else 1)):
        seats = np.array([core.acting_players()[0] for core in pair.cores])
        actions = []
        for core, scripts, seat in zip(pair.cores, tables, seats):
            if locking and core.roll == 1:
                actions.append(lock_action([0, 1, 2]))
            else:
                actions.append(score_action(category[scripts[seat][core._round][1]]))
        pair.play(pair.rows, seats, actions)
    assert all(core.is_terminal() for core in pair.cores)
    return pair.cores


@pytest.mark.parametrize("locking", [False, True])
def test_scripted_solitaire_games(locking):
    scripts = [PERFECT, EXACT_80, SEXTET_ZERO, EQUAL_RUNGS, EARLY_ZERO]
    cores = _play_scripted([[s] for s in scripts], locking)
    assert [core.scores()[0] for core in cores] == [599, 403, 563, 425, 557]
    stats = [core.stats(0) for core in cores]
    assert [s["numbers_bonus"] for s in stats] == [1, 1, 1, 1, 1]
    assert [s["game_bonus"] for s in stats] == [1, 1, 1, 0, 0]
    assert [s["rung_penalty"] for s in stats] == [0, 0, 0, 1, 0]


def test_scripted_ties_and_wins():
    two = _play_scripted([[PERFECT, SEXTET_ZERO], [PERFECT, PERFECT]])
    assert [core.returns().tolist() for core in two] == [[1.0, -1.0], [0.0, 0.0]]
    three = _play_scripted([[PERFECT, EARLY_ZERO, PERFECT]], locking=True)
    assert three[0].returns().tolist() == [1.0, -1.0, 1.0]
