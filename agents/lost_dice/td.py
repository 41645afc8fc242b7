"""The solo Lost Dice turn-value agent: each throw played against a learned ``V(sheet, rolls)``.

Solo Lost Dice (30 rolls, no offers) is a one-player game with chance: a turn is one
roll, and what matters between turns is the sheet and the rolls still to come. A throw
is played (or discarded) to maximise

    the points the write adds to the sheet's score  +  V(the sheet after it, rolls left),

``V`` being a network's estimate of the points still to come (0 once no roll is left);
a discard is worth ``V`` of the same sheet with one roll fewer. Rolling always beats
passing (a throw can be discarded), so the agent always rolls. The **backed-up value**
of a turn, what training fits ``V`` to (:mod:`training.pipelines.td.learner`), is the mean
over the 216 throws of the best of those choices: one-ply expectimax, exact over the dice.

**Lookahead** (``td:lookahead=k``, default :data:`DEFAULT_LOOKAHEAD`; ``td:lookahead=0`` plays
the one-ply planner alone): the ``k`` best choices of a throw by points + ``V`` (plays and the
discard) are ranked again by points + ``W`` of the sheet each leaves, ``W`` the planner's own
backed-up value of the next throw from it (the mean over its 216 throws of the best choice
against ``V``): a search two throws deep along the choices that matter, in batch
(:meth:`LostDiceTD.look_ahead_batch`), ``k`` times ``D + 1`` sheets valued per throw. On the
last throw the planner is exact and is played as is. On 2,000 games (seeds 70000 up, the
shipped network) it added +1.1 ± 0.7 points at ``k`` = 2 and 3, +1.2 at 6, +1.3 at 12:
``V``'s errors are much the same one throw on, so most of the gain is in the first two
candidates; ``k`` = 2 costs about three times the one-ply planner's time a throw.

Features of a sheet (``NUM_FEATURES``): per colour the last number written (one-hot), the
numbers' count and sum, the investments (one-hot), the entries towards the long-column
bonus, the column's points now, whether it may still take an investment, and the chance
that a throw offers a number it can still take; then the rolls to come, the started
columns, the score now, and the heuristic's estimate of the points to come
(:class:`agents.lost_dice.values.SheetModel`, its final-score estimate less the score
now). That estimate is the network's **baseline** (:class:`agents.turn_value.TurnValueNet`):
the untrained agent plays as the heuristic does, and training learns the correction.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from agents.lost_dice.batch import BatchModel, Sheets, read_batch, read_sheets
from agents.lost_dice.values import SheetModel
from agents.turn_value import TurnValueAgent
from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import MAX_VALUE, NUM_COLOURS

#: Per colour: last number one-hot (MAX_VALUE + 1), count, sum, investments one-hot (4),
#: entries, points now, may invest, chance of a takeable number.
COLOUR_FEATURES = MAX_VALUE + 1 + 2 + rules.MAX_INVESTMENTS + 1 + 4
F_ROLLS, F_STARTED, F_SCORE, F_ESTIMATE = range(NUM_COLOURS * COLOUR_FEATURES, NUM_COLOURS * COLOUR_FEATURES + 4)
NUM_FEATURES = F_ESTIMATE + 1
#: Points: the scale of the score and estimate features, and of the baseline.
POINTS_SCALE = 100.0
_MAX_SUM = sum(range(2, MAX_VALUE + 1))
_MAX_COUNT = MAX_VALUE - 1
#: ``td``'s lookahead (``td:lookahead=0``: the one-ply planner alone): the 2 best choices of a
#: throw ranked again one throw deeper; more candidates gained no more (the module docstring)
DEFAULT_LOOKAHEAD = 2


@functools.cache
def _column_points() -> np.ndarray:
    """``points[sum, count, investments]``: :func:`envs.games.lost_dice.lost_dice_column_points` as a table."""
    points = np.zeros((_MAX_SUM + 1, _MAX_COUNT + 1, rules.MAX_INVESTMENTS + 1))
    for total in range(_MAX_SUM + 1):
        for count in range(_MAX_COUNT + 1):
            for investments in range(rules.MAX_INVESTMENTS + 1):
                points[total, count, investments] = rules.lost_dice_column_points(total, count, investments)
    return points


class LostDiceTD(TurnValueAgent):
    """Solo Lost Dice: every throw played one ply deep against the learned sheet value.

    ``act`` and ``act_batch`` play the same moves (the first best action, no draw from
    the generator); ``act`` also records each turn's backed-up value for training.
    """

    env = rules.LostDice.name
    num_features = NUM_FEATURES
    baseline = (F_ESTIMATE, POINTS_SCALE)

    def __init__(
        self, game, seed: int | None = None, path: str | None = None, net=None, lookahead: int = DEFAULT_LOOKAHEAD
    ):
        if game.name != self.env:
            raise ValueError(f"{type(self).__name__} plays {self.env}, not {game.name}")
        super().__init__(game, seed, path, net, lookahead)
        self.model = BatchModel(SheetModel(game))
        self.points = _column_points()

    # -- reading sheets -------------------------------------------------------------------

    @staticmethod
    def _rolls_to_come(observation: np.ndarray, rolls_left: np.ndarray) -> np.ndarray:
        """Rolls still to come counting the turn under way: a throw on the table was one of them."""
        return rolls_left + (observation[..., rules.OBS_PHASE.start + rules.PLAY_THROW] > 0.5)

    def sheet_key(self, observation: np.ndarray) -> bytes:
        block = observation[rules.GLOBAL_SIZE : rules.GLOBAL_SIZE + rules.PLAYER_SIZE]
        rolls_left = np.rint(block[rules.PL_ROLLS_LEFT] * self.game.rolls_per_player)
        return block[rules.PL_COLUMNS].tobytes() + int(self._rolls_to_come(observation, rolls_left)).to_bytes(
            2, "little"
        )

    def sheet_features(self, observation: np.ndarray) -> np.ndarray:
        sheets = self._sheets(observation[None])
        return self.features(self._columns(sheets), sheets.rolls_left)[0]

    def _sheets(self, observations: np.ndarray) -> Sheets:
        batch = read_batch(observations)
        sheets = read_sheets(self.game, batch, np.arange(len(observations)), 0)
        to_come = self._rolls_to_come(observations, sheets.rolls_left)
        return dataclasses.replace(sheets, rolls_left=to_come)

    @staticmethod
    def _columns(sheets: Sheets) -> list[tuple[np.ndarray, ...]]:
        return [
            tuple(a[:, c] for a in (sheets.last, sheets.count, sheets.total, sheets.investments, sheets.direction))
            for c in range(NUM_COLOURS)
        ]

    def score(self, columns) -> np.ndarray:
        """The score of sheets given per colour as ``(last, count, total, investments, direction)`` arrays."""
        return sum(self.points[total, count, investments] for _, count, total, investments, _ in columns)

    def features(self, columns, rolls: np.ndarray) -> np.ndarray:
        """Feature rows (float32, ``(*shape, NUM_FEATURES)``) of sheets given per colour as
        ``(last, count, total, investments, direction)`` arrays of one shape, ``rolls`` to come."""
        shape = np.shape(rolls)
        out = np.zeros((*shape, NUM_FEATURES), np.float32)
        model = self.model
        for c, (last, count, total, investments, _) in enumerate(columns):
            at = c * COLOUR_FEATURES
            block = out[..., at : at + COLOUR_FEATURES]
            np.put_along_axis(block, last[..., None], 1.0, axis=-1)
            k = MAX_VALUE + 1
            block[..., k] = count / _MAX_COUNT
            block[..., k + 1] = total / _MAX_SUM
            np.put_along_axis(block[..., k + 2 : k + 3 + rules.MAX_INVESTMENTS], investments[..., None], 1.0, axis=-1)
            k += 3 + rules.MAX_INVESTMENTS
            block[..., k] = np.minimum(count + investments, rules.LONG_COLUMN) / rules.LONG_COLUMN
            block[..., k + 1] = self.points[total, count, investments] / POINTS_SCALE
            block[..., k + 2] = (count <= rules.MAX_NUMBERS_FOR_INVESTMENT) & (investments < rules.MAX_INVESTMENTS)
            block[..., k + 3] = model.chance[c, last, np.minimum(count, 1), 1]
        score = self.score(columns)
        out[..., F_ROLLS] = rolls / self.game.rolls_per_player
        out[..., F_STARTED] = sum((count + inv > 0) for _, count, _, inv, _ in columns) / NUM_COLOURS
        out[..., F_SCORE] = score / POINTS_SCALE
        no_bonus = np.zeros(shape, np.int64)
        estimate = model.sheet_values(columns, no_bonus, no_bonus, rolls)
        out[..., F_ESTIMATE] = (estimate - score) / POINTS_SCALE
        return out

    def sheet_values(self, columns, rolls: np.ndarray) -> np.ndarray:
        """``V`` of sheets (points still to come), exactly 0 with no roll to come."""
        shape = np.shape(rolls)
        values = self.values(self.features(columns, rolls).reshape(-1, NUM_FEATURES)).reshape(shape)
        return np.where(rolls > 0, values, 0.0)

    # -- planning ----------------------------------------------------------------------------

    def play_values(self, sheets: Sheets, rolls: np.ndarray) -> np.ndarray:
        """``(B, D + 1)``: per sheet, each distinct play's points plus ``V`` of the sheet it
        leaves with ``rolls`` to come (``-inf`` where it cannot be written), and in the last
        column a discard's worth, ``V`` of the same sheet."""
        model = self.model
        plays = np.arange(len(model.colour) - 1)
        after, _, _, writable = model.after_plays(sheets, plays)
        before = self._columns(sheets)
        rolls_after = np.broadcast_to(rolls[:, None], writable.shape)
        # one network call for every sheet a play leaves and the unchanged ones (which also
        # stand in for the sheets no legal play makes, so that every row is a real sheet)
        stacked = [
            tuple(
                np.concatenate([np.where(writable, a, b[:, None]), b[:, None]], axis=1)
                for a, b in zip(col_after, col_before)
            )
            for col_after, col_before in zip(after, before)
        ]
        rolls_all = np.concatenate([rolls_after, rolls[:, None]], axis=1)
        # only the sheets a legal play leaves, and each unchanged one, are valued (V of a row
        # is the same in any batch: agents.inference)
        real = np.concatenate([writable, np.ones((len(rolls), 1), bool)], axis=1)
        values = np.full(real.shape, -np.inf)
        chosen = tuple(tuple(a[real] for a in column) for column in stacked)
        values[real] = (
            self.sheet_values(chosen, rolls_all[real]) + self.score(chosen) - self.score(before)[np.nonzero(real)[0]]
        )
        return values

    def throw_values(self, sheets: Sheets, rolls: np.ndarray) -> np.ndarray:
        """``(B, 216)``: the best of each throw's plays and a discard, for each sheet."""
        values = self.play_values(sheets, rolls)
        slots = self.model.slot_plays  # (216, slots); D (no play) reads the discard column's -inf below
        plays = np.concatenate([values[:, :-1], np.full((len(values), 1), -np.inf)], axis=1)
        return np.maximum(plays[:, slots].max(axis=2), values[:, -1:])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if observation[rules.OBS_PHASE.start + rules.TURN_START] > 0.5:
            sheets = self._sheets(observation[None])
            self.last_turn_value = float(self.throw_values(sheets, sheets.rolls_left - 1).mean())
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        observations = np.asarray(observations, np.float32)
        legal = np.asarray(action_masks).astype(bool)
        batch = read_batch(observations)
        if (batch.phase == rules.OFFER).any() or legal[:, rules.TAKE].any():
            raise ValueError(f"the {self.env} turn-value agent plays solo: no throw is ever offered")
        actions = np.full(len(observations), rules.ROLL, np.int64)
        playing = np.flatnonzero(batch.phase == rules.PLAY_THROW)
        if playing.size:
            sheets = read_sheets(self.game, batch, playing, 0)
            values = self.play_values(sheets, sheets.rolls_left)
            slots = np.concatenate([values[:, :-1], np.full((len(values), 1), -np.inf)], axis=1)
            by_action = np.full((len(playing), rules.NUM_ACTIONS), -np.inf)
            by_action[:, rules.DISCARD] = values[:, -1]
            by_action[:, rules.PLAY :] = np.take_along_axis(slots, self.model.slot_plays[batch.throw[playing]], axis=1)
            by_action = np.where(legal[playing], by_action, -np.inf)
            actions[playing] = by_action.argmax(axis=1)
            if self.lookahead:
                actions[playing] = self.look_ahead_batch(sheets, batch.throw[playing], by_action)
        return actions

    # -- the lookahead -----------------------------------------------------------------------

    looks_ahead = True

    def look_ahead_batch(self, sheets: Sheets, throws: np.ndarray, by_action: np.ndarray) -> np.ndarray:
        """The action of each row: of its ``lookahead`` best choices by ``by_action`` (points +
        ``V`` of the sheet after, ``-inf`` where illegal; ``sheets.rolls_left``: the rolls after
        this throw), the one with the most points + ``W`` of the sheet after, ``W`` the
        planner's backed-up value of the next throw from it (:meth:`next_throw_values`); the
        planner's own on the last throw, which it plays exactly. Ties go to the planner's order."""
        order = np.argsort(-by_action, axis=1, kind="stable")[:, : self.lookahead]
        chosen = np.take_along_axis(by_action, order, axis=1)
        best = order[:, 0].copy()
        # nothing to rank again with one legal choice, nor on the last throw
        deeper_rows = np.flatnonzero((sheets.rolls_left > 0) & np.isfinite(chosen[:, 1:2]).any(axis=1))
        if not deeper_rows.size:
            return best
        order, chosen = order[deeper_rows], chosen[deeper_rows]
        rows = sheets.rows(deeper_rows)
        none = len(self.model.colour) - 1  # the "no play" index: a discard leaves the sheet as it is
        slot = np.clip(order - rules.PLAY, 0, self.model.slot_plays.shape[1] - 1)
        # an illegal choice (fewer than ``lookahead`` legal ones) is valued as a discard, then refused
        offered = self.model.slot_plays[throws[deeper_rows, None], slot]
        plays = np.where((order >= rules.PLAY) & np.isfinite(chosen), offered, none)
        deeper = self.next_throw_values(rows, plays)
        deeper = np.where(np.isfinite(chosen), deeper, -np.inf)
        best[deeper_rows] = np.take_along_axis(order, deeper.argmax(axis=1)[:, None], axis=1)[:, 0]
        return best

    def next_throw_values(self, sheets: Sheets, plays: np.ndarray) -> np.ndarray:
        """``(B, K)``: for each sheet and each of its ``plays`` (``(B, K)`` distinct-play indices,
        ``D`` for a discard), the points the write adds plus ``W`` of the sheet it leaves with
        ``sheets.rolls_left`` rolls to come: the mean over the 216 throws of the next roll of
        the best of its plays and a discard against ``V`` (0 with no roll to come)."""
        model = self.model
        after, stones, vp, _ = model.after_plays(sheets, plays)
        points = self.score(after) - self.score(self._columns(sheets))[:, None]
        size = plays.size
        rolls = np.broadcast_to(sheets.rolls_left[:, None], plays.shape).reshape(size)

        def flat(a):
            return np.broadcast_to(a, plays.shape).reshape(size)

        stacked = Sheets(
            *(np.stack([flat(col[f]) for col in after], axis=1) for f in range(5)),
            stones=flat(stones),
            vp=flat(vp),
            rolls_left=rolls,
        )
        later = np.zeros(size)
        going = np.flatnonzero(rolls > 0)
        if going.size:
            later[going] = self.throw_values(stacked.rows(going), rolls[going] - 1).mean(axis=1)
        return points + later.reshape(plays.shape)
