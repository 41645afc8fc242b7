"""The solo turn-value agents of Lost Dice and Keldice: each throw played against a learned ``V(sheet, rolls)``.

Solo Lost Dice (30 rolls, no offers) and solo Keldice (20 rolls) are one-player games
with chance: a turn is one roll, and what matters between turns is the sheet and the
rolls still to come. A throw is played (or discarded) to maximise

    the points the write adds to the sheet's score  +  V(the sheet after it, rolls to come),

``V`` being a network's estimate of the points still to come (0 once no roll is left);
a discard is worth ``V`` of the same sheet with one roll fewer. Rolling always beats
passing (a throw can be discarded), so the agent always rolls. The **backed-up value**
of a turn, what training fits ``V`` to (:mod:`training.pipelines.td.learner`), is the mean
over the 216 throws of the best of those choices: one-ply expectimax, exact over the dice.

One code path serves both variants (:class:`LostDiceTD`; :class:`KeldiceTD` is it with
Keldice's score and features). What a play does to the sheet is the heuristic's sheet
model's (:meth:`agents.lost_dice.batch.BatchModel.after_plays`: a Keldice column's
direction, the wishing stones and VP a play's symbol adds); a Keldice play with the
extra-roll symbol is followed at once by a throw that costs no roll, so the sheet it
leaves is valued with one roll more to come, and that throw starts a turn of its own
(a sheet and rolls to come that no turn start showed).

Features of a Lost Dice sheet (``LostDiceTD.num_features``): per colour the last number
written (one-hot), the numbers' count and sum, the investments (one-hot), the entries
towards the long-column bonus, the column's points now, whether it may still take an
investment, and the chance that a throw offers a number it can still take; then the
rolls to come, the started columns, the score now, and the heuristic's estimate of the
points to come.

Features of a Keldice sheet (``KeldiceTD.num_features``): per colour the last number
(one-hot), the count of numbers (one-hot up to the table's top, ``rules.KELDICE_COLUMN_POINTS``),
the direction (up, down), the column's points now and what its next number would add,
the chance that a throw offers a number it can still take and how many it can still
take; then the rolls to come, the started columns, the wishing stones (one-hot up to
``rules.KELDICE_STONE_POINTS``' top), the VP symbols, the score now (columns, stones and
VP as the game scores them) and the heuristic's estimate of the points to come.

In both the estimate (:class:`agents.lost_dice.values.SheetModel`, its final-score
estimate less the score now) is the network's **baseline**
(:class:`agents.turn_value.TurnValueNet`): the untrained agent plays as the heuristic
does, and training learns the correction.

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
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from agents.lost_dice.batch import EXTRA_ROLL_BONUS, BatchModel, Sheets, read_batch, read_sheets
from agents.lost_dice.values import SheetModel
from agents.turn_value import TurnValueAgent
from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import MAX_VALUE, NUM_COLOURS

#: Points: the scale of the score and estimate features, and of the baseline.
POINTS_SCALE = 100.0
_MAX_SUM = sum(range(2, MAX_VALUE + 1))
_MAX_COUNT = MAX_VALUE - 1
#: ``td``'s lookahead (``td:lookahead=0``: the one-ply planner alone): the 2 best choices of a
#: throw ranked again one throw deeper; more candidates gained no more (the module docstring)
DEFAULT_LOOKAHEAD = 2

# Lost Dice's layout. Per colour: last number one-hot (MAX_VALUE + 1), count, sum,
# investments one-hot (4), entries, points now, may invest, chance of a takeable number.
COLOUR_FEATURES = MAX_VALUE + 1 + 2 + rules.MAX_INVESTMENTS + 1 + 4
F_ROLLS, F_STARTED, F_SCORE, F_ESTIMATE = range(NUM_COLOURS * COLOUR_FEATURES, NUM_COLOURS * COLOUR_FEATURES + 4)
NUM_FEATURES = F_ESTIMATE + 1

# Keldice's layout. Per colour: last number one-hot, count one-hot (0 .. the table's top),
# up, down, points now, the next number's points, chance of a takeable number, numbers
# still takeable; then rolls, started columns, stones one-hot, VP, score, estimate.
KELDICE_TOP_COUNT = len(rules.KELDICE_COLUMN_POINTS) - 1  #: more numbers than this score as many
KELDICE_TOP_STONES = len(rules.KELDICE_STONE_POINTS) - 1
KELDICE_COLOUR_FEATURES = MAX_VALUE + 1 + KELDICE_TOP_COUNT + 1 + 6
K_ROLLS = NUM_COLOURS * KELDICE_COLOUR_FEATURES
K_STARTED = K_ROLLS + 1
K_STONES = slice(K_STARTED + 1, K_STARTED + 2 + KELDICE_TOP_STONES)
K_VP, K_SCORE, K_ESTIMATE = range(K_STONES.stop, K_STONES.stop + 3)
KELDICE_NUM_FEATURES = K_ESTIMATE + 1
_VP_SCALE = 10.0  #: VP symbols, as the observation scales them


@functools.cache
def _column_points() -> np.ndarray:
    """``points[sum, count, investments]``: :func:`envs.games.lost_dice.lost_dice_column_points` as a table."""
    points = np.zeros((_MAX_SUM + 1, _MAX_COUNT + 1, rules.MAX_INVESTMENTS + 1))
    for total in range(_MAX_SUM + 1):
        for count in range(_MAX_COUNT + 1):
            for investments in range(rules.MAX_INVESTMENTS + 1):
                points[total, count, investments] = rules.lost_dice_column_points(total, count, investments)
    return points


#: Keldice's tables by count of numbers (0 .. _MAX_COUNT) and of stones (0 .. a player's most).
_KELDICE_POINTS = np.array([rules.keldice_column_points(n) for n in range(_MAX_COUNT + 2)], np.float64)
_STONE_POINTS = np.array([rules.keldice_stone_points(n) for n in range(rules.MAX_PLAYS + 1)], np.float64)


class LostDiceTD(TurnValueAgent):
    """Solo Lost Dice: every throw played one ply deep against the learned sheet value.

    ``act`` and ``act_batch`` play the same moves (the first best action, no draw from
    the generator); ``act`` also records each turn's backed-up value for training.
    A sheet is handed round as ``(columns, stones, vp)``: per colour ``(last, count,
    total, investments, direction)`` arrays, then the stones and VP, all of one shape.
    """

    env = rules.LostDice.name
    keldice = False  #: the variant whose sheets the features and the score read
    num_features = NUM_FEATURES
    baseline = (F_ESTIMATE, POINTS_SCALE)

    def __init__(
        self, game, seed: int | None = None, path: str | None = None, net=None, lookahead: int = DEFAULT_LOOKAHEAD
    ):
        if game.name != self.env:
            raise ValueError(f"{type(self).__name__} plays {self.env}, not {game.name}")
        if game.keldice != self.keldice:
            variant = "keldice" if game.keldice else "lost_dice"
            raise ValueError(
                f"{type(self).__name__} reads {self.env}'s own sheets, not variant={variant!r}'s "
                f"(play the {variant} env: --env {variant})"
            )
        super().__init__(game, seed, path, net, lookahead)
        self.model = BatchModel(SheetModel(game))
        #: per distinct play (and "none", last): rolls it adds to come, 1 for an extra roll
        self.extra_rolls = (self.model.bonus == EXTRA_ROLL_BONUS).astype(np.int64)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._turn_key = None  # the sheet of the turn planned last (act)

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
        return self.features(self._sheet(sheets), sheets.rolls_left)[0]

    def _sheets(self, observations: np.ndarray) -> Sheets:
        batch = read_batch(observations)
        sheets = read_sheets(self.game, batch, np.arange(len(observations)), 0)
        to_come = self._rolls_to_come(observations, sheets.rolls_left)
        return dataclasses.replace(sheets, rolls_left=to_come)

    @staticmethod
    def _sheet(sheets: Sheets) -> tuple[list[tuple[np.ndarray, ...]], np.ndarray, np.ndarray]:
        columns = [
            tuple(a[:, c] for a in (sheets.last, sheets.count, sheets.total, sheets.investments, sheets.direction))
            for c in range(NUM_COLOURS)
        ]
        return columns, sheets.stones, sheets.vp

    # -- what differs between the variants --------------------------------------------------

    def score(self, sheet) -> np.ndarray:
        """The score of sheets ``(columns, stones, vp)``."""
        columns, _, _ = sheet
        points = _column_points()
        return sum(points[total, count, investments] for _, count, total, investments, _ in columns)

    def features(self, sheet, rolls: np.ndarray) -> np.ndarray:
        """Feature rows (float32, ``(*shape, num_features)``) of sheets ``(columns, stones, vp)``
        of one shape, ``rolls`` to come."""
        columns, stones, vp = sheet
        shape = np.shape(rolls)
        out = np.zeros((*shape, NUM_FEATURES), np.float32)
        model, points = self.model, _column_points()
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
            block[..., k + 1] = points[total, count, investments] / POINTS_SCALE
            block[..., k + 2] = (count <= rules.MAX_NUMBERS_FOR_INVESTMENT) & (investments < rules.MAX_INVESTMENTS)
            block[..., k + 3] = model.chance[c, last, np.minimum(count, 1), 1]
        score = self.score(sheet)
        out[..., F_ROLLS] = rolls / self.game.rolls_per_player
        out[..., F_STARTED] = sum((count + inv > 0) for _, count, _, inv, _ in columns) / NUM_COLOURS
        out[..., F_SCORE] = score / POINTS_SCALE
        out[..., F_ESTIMATE] = (model.sheet_values(columns, stones, vp, rolls) - score) / POINTS_SCALE
        return out

    # -- planning ----------------------------------------------------------------------------

    def sheet_values(self, sheet, rolls: np.ndarray) -> np.ndarray:
        """``V`` of sheets ``(columns, stones, vp)`` (points still to come), exactly 0 with no roll to come."""
        shape = np.shape(rolls)
        values = self.values(self.features(sheet, rolls).reshape(-1, self.num_features)).reshape(shape)
        return np.where(rolls > 0, values, 0.0)

    def play_values(self, sheets: Sheets, rolls: np.ndarray) -> np.ndarray:
        """``(B, D + 1)``: per sheet, each distinct play's points plus ``V`` of the sheet it
        leaves with ``rolls`` to come (one more after an extra roll's play; ``-inf`` where it
        cannot be written), and in the last column a discard's worth, ``V`` of the same sheet."""
        model = self.model
        plays = np.arange(len(model.colour) - 1)
        after, stones_after, vp_after, writable = model.after_plays(sheets, plays)
        before_columns, stones, vp = self._sheet(sheets)
        rolls_after = rolls[:, None] + self.extra_rolls[plays]

        def stack(a, b):
            return np.concatenate([np.where(writable, a, b[:, None]), b[:, None]], axis=1)

        # one network call for every sheet a play leaves and the unchanged ones (which also
        # stand in for the sheets no legal play makes, so that every row is a real sheet)
        stacked = (
            [tuple(stack(a, b) for a, b in zip(col, col_before)) for col, col_before in zip(after, before_columns)],
            stack(stones_after, stones),
            stack(vp_after, vp),
        )
        rolls_all = np.concatenate([rolls_after, rolls[:, None]], axis=1)
        before = (before_columns, stones, vp)
        # only the sheets a legal play leaves, and each unchanged one, are valued (V of a row
        # is the same in any batch: agents.inference)
        real = np.concatenate([writable, np.ones((len(rolls), 1), bool)], axis=1)
        values = np.full(real.shape, -np.inf)
        columns, stones_all, vp_all = stacked
        chosen = ([tuple(a[real] for a in column) for column in columns], stones_all[real], vp_all[real])
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
        key = self.sheet_key(observation)
        if key != self._turn_key:  # a turn's start, or the throw an extra roll brought
            self._turn_key = key
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
        points = self.score((after, stones, vp)) - self.score(self._sheet(sheets))[:, None]
        size = plays.size
        # an extra roll's play is followed by a throw that costs no roll
        rolls = (sheets.rolls_left[:, None] + self.extra_rolls[plays]).reshape(size)

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


class KeldiceTD(LostDiceTD):
    """Solo Keldice: :class:`LostDiceTD` scoring Keldice's tables, stones and VP, with its features."""

    env = rules.Keldice.name
    keldice = True
    num_features = KELDICE_NUM_FEATURES
    baseline = (K_ESTIMATE, POINTS_SCALE)

    def score(self, sheet) -> np.ndarray:
        columns, stones, vp = sheet
        total = _STONE_POINTS[stones] + rules.VP_POINTS * vp
        for _, count, _, _, _ in columns:
            total = total + _KELDICE_POINTS[count]
        return total

    def features(self, sheet, rolls: np.ndarray) -> np.ndarray:
        columns, stones, vp = sheet
        shape = np.shape(rolls)
        out = np.zeros((*shape, KELDICE_NUM_FEATURES), np.float32)
        model = self.model
        for c, (last, count, _, _, direction) in enumerate(columns):
            at = c * KELDICE_COLOUR_FEATURES
            block = out[..., at : at + KELDICE_COLOUR_FEATURES]
            np.put_along_axis(block, last[..., None], 1.0, axis=-1)
            k = MAX_VALUE + 1
            counts = block[..., k : k + KELDICE_TOP_COUNT + 1]
            np.put_along_axis(counts, np.minimum(count, KELDICE_TOP_COUNT)[..., None], 1.0, axis=-1)
            k += KELDICE_TOP_COUNT + 1
            block[..., k] = direction > 0
            block[..., k + 1] = direction < 0
            block[..., k + 2] = _KELDICE_POINTS[count] / POINTS_SCALE
            block[..., k + 3] = (_KELDICE_POINTS[count + 1] - _KELDICE_POINTS[count]) / POINTS_SCALE
            at = (c, last, np.minimum(count, 1), direction + 1)
            block[..., k + 4] = model.chance[at]
            block[..., k + 5] = model.size[at] / _MAX_COUNT
        score = self.score(sheet)
        out[..., K_ROLLS] = rolls / self.game.rolls_per_player
        out[..., K_STARTED] = sum((count > 0) for _, count, _, _, _ in columns) / NUM_COLOURS
        stone_block = out[..., K_STONES]
        np.put_along_axis(stone_block, np.minimum(stones, KELDICE_TOP_STONES)[..., None], 1.0, axis=-1)
        out[..., K_VP] = vp / _VP_SCALE
        out[..., K_SCORE] = score / POINTS_SCALE
        out[..., K_ESTIMATE] = (model.sheet_values(columns, stones, vp, rolls) - score) / POINTS_SCALE
        return out
