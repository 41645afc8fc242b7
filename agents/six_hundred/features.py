"""The features of a Six Hundred score sheet, as the turn-value network reads them.

Features of a sheet (:data:`NUM_FEATURES`, 50): per category its open flag (18) and points
written / 36 (18); the four rungs' windows (lowest and highest value each may still hold
with the ladder strictly ascending, / 36; 0 once the ladder is broken) (8); the Numbers
total towards 80 (min(total, 80) / 80); the Numbers bonus earned; the ladder still able to
ascend; the game bonus still possible; the categories still open / 18; and the heuristic's
own estimate of the points still to come (:func:`agents.six_hundred.heuristic.sheet_value`
less the points banked, / 300).

:func:`sheet_features` reads one sheet; the compiled planner
(:mod:`agents.six_hundred.compiled_plan`) writes the same rows for every sheet a turn's
writes could leave, at the indices defined here.
"""

from __future__ import annotations

import numpy as np

from agents.six_hundred.estimate import MUST_SCORE, sheet_value
from envs.games import six_hundred as rules

N = rules.NUM_CATEGORIES
F_OPEN, F_POINTS, F_WINDOWS = slice(0, N), slice(N, 2 * N), slice(2 * N, 2 * N + 8)
F_NUMBERS, F_BONUS, F_LADDER, F_GAME_BONUS, F_OPEN_COUNT, F_ESTIMATE = range(2 * N + 8, 2 * N + 14)
NUM_FEATURES = 2 * N + 14
#: Scale of the heuristic's estimate of the points to come, as a feature.
ESTIMATE_SCALE = 300.0


def sheet_features(sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
    """The feature row (float32) of a sheet: points per category, None while open."""
    row = np.zeros(NUM_FEATURES, np.float32)
    row[F_OPEN] = [v is None for v in sheet]
    row[F_POINTS] = [(v or 0) / rules.MAX_CATEGORY_POINTS for v in sheet]
    windows = rules.rung_windows(sheet[rules.RUNGS.start : rules.RUNGS.stop])
    if windows is not None:
        row[F_WINDOWS] = [w / rules.MAX_CATEGORY_POINTS for window in windows for w in window]
    total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
    row[F_NUMBERS] = min(total, rules.NUMBERS_BONUS_THRESHOLD) / rules.NUMBERS_BONUS_THRESHOLD
    row[F_BONUS] = numbers_bonus
    row[F_LADDER] = windows is not None
    row[F_GAME_BONUS] = windows is not None and not any(sheet[c] == 0 for c in MUST_SCORE)
    row[F_OPEN_COUNT] = sum(v is None for v in sheet) / N
    row[F_ESTIMATE] = points_to_come(sheet, numbers_bonus) / ESTIMATE_SCALE
    return row


def points_to_come(sheet: list[int | None], numbers_bonus: bool) -> float:
    """The heuristic's estimate of the points a sheet has still to earn: its final score less what is banked."""
    return (
        sheet_value(sheet, numbers_bonus) - sum(v or 0 for v in sheet) - (rules.NUMBERS_BONUS if numbers_bonus else 0)
    )
