"""The compiled Six Hundred planner (agents/six_hundred/compiled_plan.py) against its specifications.

* the heuristic's write tables are :func:`~agents.six_hundred.estimate.sheet_value` of every
  written sheet, bit for bit, and the ladder's gap values are :func:`gap_value`'s;
* the lock values are the numpy planner's sums, bit for bit (that planner is kept below as
  the reference), and the exact expectimax of :func:`~envs.games.dice_math.expect_after_lock`
  up to rounding;
* ``td``'s write tables are the points now plus the torch network's values of the Python
  feature rows, up to float32 rounding, and its settlement exact on the last write;
* ``td`` plays the moves it played before the planner was compiled on 10,578 decisions from
  play (the recorded moves of ``tests/fixtures/six_hundred_td_moves.json``, with the network it
  played them with), but for near ties.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from agents.six_hundred import compiled_plan
from agents.six_hundred.estimate import KEEP_TABLES, ROLL_POINTS, gap_value, ladder_value, sheet_value
from agents.six_hundred.heuristic import SixHundredHeuristic, lock_values, read_sheet, read_sheets, sheet_key
from agents.six_hundred.td import CATEGORY_POINTS, SixHundredTD, settlement
from agents.turn_value import TurnValueNet
from benchmarks.six_hundred_speed import agreement
from envs.games import six_hundred as rules
from envs.games.dice_math import expect_after_lock, lock_groups
from tests.test_act_batch import bot_positions


@pytest.fixture(scope="module")
def sheets():
    """One observation per distinct sheet met in 300 positions of half-random play."""
    observations, _ = bot_positions(rules.SixHundred(), SixHundredHeuristic, 300, seed=7)
    return list({sheet_key(o): o for o in observations}.values())


def numpy_lock_values(roll_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The numpy lock values the compiled ones replaced (``(462, S)`` in, ``(924, S)`` out)."""
    one_left = np.concatenate([KEEP_TABLES.expected_partial(roll_values), roll_values])
    two_left = np.empty_like(one_left)
    for lock_rows, extended, fresh in lock_groups(rules.NUM_DICE):
        values = one_left[extended]
        padding = np.full((len(lock_rows), 1, values.shape[2]), -np.inf)
        best = np.concatenate([values, padding], axis=1)[:, fresh.keeps_of_roll].max(axis=2)
        if fresh.num_partial_keeps == 0:
            two_left[lock_rows] = best[:, 0]
        else:
            two_left[lock_rows] = fresh.expected_partial(best.transpose(1, 0, 2))[fresh.keep_index[()]]
    return one_left, two_left


def test_the_heuristic_tables_are_the_sheet_values_of_every_write_bit_for_bit(sheets):
    tables = compiled_plan.heuristic_tables(*read_sheets(np.array(sheets)))
    for observation, table in zip(sheets, tables):
        sheet, earned = read_sheet(observation), bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5)
        expected = np.full(table.shape, -np.inf)
        for c in [c for c, v in enumerate(sheet) if v is None]:
            for points in CATEGORY_POINTS[c]:
                expected[c, points] = sheet_value(sheet[:c] + [int(points)] + sheet[c + 1 :], earned)
        np.testing.assert_array_equal(table, expected)
    assert len(sheets) > 50


def test_the_gap_values_are_the_heuristics_for_every_ladder_it_values():
    tables = compiled_plan.sheet_tables()
    rng = np.random.default_rng(0)
    gaps = [(5, 37, 4), (5, 37, 1), (20, 22, 1), (6, 30, 3)]
    gaps += [(b, a, c) for b, a, c in zip(rng.integers(5, 30, 200), rng.integers(12, 38, 200), rng.integers(1, 5, 200))]
    for below, above, count in gaps:
        if above > below:
            expected = gap_value(int(below), int(above), int(count))
            assert (tables.gap_chance[below, above, count], tables.gap_points[below, above, count]) == expected


def test_the_compiled_ladder_is_the_heuristics_ladder_value():
    rungs = [None, *range(rules.MIN_TOTAL, rules.MAX_TOTAL + 1)]
    windows = np.zeros((4, 2), np.int64)
    tables = compiled_plan.sheet_tables()
    rng = np.random.default_rng(1)
    ladders = [tuple(rungs[i] for i in rng.integers(len(rungs), size=4)) for _ in range(3000)]
    ladders += list(itertools.product([None, 10, 20, 30], repeat=4))
    for ladder in ladders:
        written = np.array([-1 if v is None else v for v in ladder], np.int64)
        got = compiled_plan._ladder_value(written, tables.gap_chance, tables.gap_points, windows)
        assert got == ladder_value(ladder), ladder


def test_the_lock_values_are_the_numpy_sums_bit_for_bit_and_the_exact_expectimax(sheets):
    tables = compiled_plan.heuristic_tables(*read_sheets(np.array(sheets)))
    roll_values = tables[:, np.arange(rules.NUM_CATEGORIES), ROLL_POINTS].max(axis=2).T  # (462, S)
    one_left, two_left = lock_values(roll_values)
    expected_one, expected_two = numpy_lock_values(roll_values)
    np.testing.assert_array_equal(one_left, expected_one)
    np.testing.assert_array_equal(two_left, expected_two)
    np.testing.assert_allclose(two_left, expect_after_lock(rules.NUM_DICE, expected_one), rtol=1e-12)
    # each sheet alone is planned as in the batch
    alone = lock_values(roll_values[:, 3:4])
    np.testing.assert_array_equal(alone[1][:, 0], two_left[:, 3])


def test_the_turn_values_are_the_mean_of_the_best_first_keep():
    roll_values = np.random.default_rng(2).random((len(ROLL_POINTS), 3)) * 100
    _, two_left = lock_values(roll_values)
    expected = KEEP_TABLES.first_roll @ KEEP_TABLES.best_over_keeps(two_left, include_full_keep=True)
    np.testing.assert_allclose(compiled_plan.turn_values(two_left.T), expected, rtol=1e-12)


@pytest.mark.parametrize("hidden", [(), (16,)], ids=["linear", "mlp"])
def test_td_tables_are_the_networks_values_of_the_python_feature_rows(sheets, hidden):
    game = rules.SixHundred()
    torch_net = TurnValueNet(SixHundredTD.num_features, hidden, baseline=SixHundredTD.baseline)
    generator = torch.Generator().manual_seed(3)
    for parameter in torch_net.parameters():  # a correction that is not zero
        parameter.data.uniform_(-0.05, 0.05, generator=generator)
    agent = SixHundredTD(game, net=torch_net)
    tables = agent.write_tables_of(np.array(sheets))
    for observation, table in zip(sheets, tables):
        sheet, earned = read_sheet(observation), bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5)
        open_categories = [c for c, v in enumerate(sheet) if v is None]
        numbers_total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
        writes = [(c, int(p)) for c in open_categories for p in CATEGORY_POINTS[c]]
        now = np.array([p + (35 if c < 6 and not earned and numbers_total + p >= 80 else 0) for c, p in writes])
        if len(open_categories) == 1:
            after = [settlement([p if i == c else v for i, v in enumerate(sheet)]) for c, p in writes]
            np.testing.assert_array_equal([table[c, p] for c, p in writes], now + after)
            continue
        expected = now + torch_net.values(agent._after_features(sheet, earned, numbers_total, writes))
        np.testing.assert_allclose([table[c, p] for c, p in writes], expected, rtol=0, atol=2e-4)
        closed = np.ones(table.shape, bool)
        closed[tuple(np.array(writes).T)] = False
        assert np.all(table[closed] == -np.inf)


def test_td_plays_the_moves_it_played_before_it_was_compiled_but_for_near_ties():
    decisions, differ, near_ties = agreement("td")
    assert decisions == 10_578
    assert differ == near_ties  # every move that changed was a tie to within rounding
    assert differ <= 10  # 2 when recorded


def test_a_network_of_another_width_is_refused_by_name():
    agent = SixHundredTD(rules.SixHundred(), net=TurnValueNet(12, ()))
    observations, _ = bot_positions(rules.SixHundred(), SixHundredHeuristic, 3, seed=1)
    with pytest.raises(ValueError, match="the network reads 12 features, not 50"):
        agent.write_tables_of(observations)
