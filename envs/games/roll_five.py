"""Rules core of Roll Five: simultaneous dice placing on hidden cards (docs/rules/roll_five.md).

Two to four players. The deck holds four copies of 1..6 for two players, five for three
or four. Each player is dealt a **row of five face-down cards** that only they may look
at, and has five dice.

Five **simultaneous turns**: every player rolls all their unplaced dice, picks one die
value from that roll and places that die on one of their uncovered cards. Placed dice
are public. No one sees another player's roll or choice before the turn resolves, when
the last player has committed.

Then every player **bids High or Low** at the same time, and the cards are revealed.
High: every pair with card + die > 7 is discarded. Low: every pair with card − die < 0
is discarded. Most remaining pairs wins. ``mode="casual"``: equal counts share the win.
``mode="tournament"``: among the tied, the one closest to the best score of their bid
wins (High: |35 − Σ(card + die)| over the remaining pairs; Low: Σ(card − die)); still
equal, they share.

Cards are addressed by their **slot** 0..4 in the dealt row (shown 1..5 to people). The
row stays in dealt order, which is random: where a die lands says nothing about the card
under it. Chance is drawn from the env's generator once per game: the shuffle, then a
**roll tape** ``rolls[player][turn]`` of five values, of which turn ``t`` (0-based) uses
the first ``5 − t``. The rolls do not depend on decisions, so the same seed deals every
agent the same cards and dice. A search expands :meth:`RollFiveState.clone_resampled`,
which redraws the rolls of the turns to come (and keeps the deal).
:meth:`RollFive.new_chance_state` plays chance explicitly: the deal is one chance event per
card (a value, with its share of the cards left), then every turn each player's roll is
one (the multisets of the dice rolled: only the faces shown matter to the rules).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core import EXPLICIT_CHANCE, Game, GameState
from envs.games.chance import DICE_ROLLS, card_draw, num_dice_outcomes
from envs.text_picture import text_picture

FACES = 6
CARDS_PER_PLAYER = 5  # = dice per player = turns before the bid
NUM_TURNS = CARDS_PER_PLAYER
HIGH_LIMIT = 7  #: High keeps a pair when card + die <= 7
HIGH_BEST = CARDS_PER_PLAYER * HIGH_LIMIT  #: 35, the best High total (five pairs of 7)
MODES = ("casual", "tournament")
HIGH, LOW = 0, 1
BID_NAMES = ("High", "Low")


def copies_per_value(num_players: int) -> int:
    """Copies of each card value 1..6 in the deck: four for two players, five for three or four."""
    return 4 if num_players == 2 else 5


def keeps_high(card: int, die: int) -> bool:
    return card + die <= HIGH_LIMIT


def keeps_low(card: int, die: int) -> bool:
    return card - die >= 0


# -- actions ---------------------------------------------------------------------------
# 0..29: place a die of value v (1..6) on the card in slot c (0..4): id (v - 1) * 5 + c.
# 30, 31: bid High, bid Low.
NUM_PLACEMENTS = FACES * CARDS_PER_PLAYER
BID_HIGH = NUM_PLACEMENTS
BID_LOW = BID_HIGH + 1
NUM_ACTIONS = BID_LOW + 1


def place_action(value: int, slot: int) -> int:
    """Action id that places a die showing ``value`` (1..6) on the card in ``slot`` (0..4)."""
    if not 1 <= value <= FACES or not 0 <= slot < CARDS_PER_PLAYER:
        raise ValueError(f"roll_five: a placement needs a die value 1..6 and a slot 0..4, got {value!r}, {slot!r}")
    return (value - 1) * CARDS_PER_PLAYER + slot


def placement(action: int) -> tuple[int, int]:
    """``(die value, slot)`` of a placement action id."""
    value, slot = divmod(action, CARDS_PER_PLAYER)
    return value + 1, slot


def action_name(action: int) -> str:
    if action < NUM_PLACEMENTS:
        value, slot = placement(action)
        return f"place {value} on card {slot + 1}"
    return f"bid {BID_NAMES[action - BID_HIGH]}"


def _placement_mask(faces: int, uncovered: int) -> np.ndarray:
    """Read-only mask for a roll showing the faces of bitset ``faces`` and the uncovered slots
    of bitset ``uncovered``."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for value in range(1, FACES + 1):
        if faces >> (value - 1) & 1:
            for slot in range(CARDS_PER_PLAYER):
                if uncovered >> slot & 1:
                    mask[place_action(value, slot)] = 1
    mask.flags.writeable = False
    return mask


#: ``_PLACEMENT_MASKS[faces][uncovered]``: every placement mask, computed once.
_PLACEMENT_MASKS = tuple(tuple(_placement_mask(f, u) for u in range(2**CARDS_PER_PLAYER)) for f in range(2**FACES))
_BID_MASK = np.zeros(NUM_ACTIONS, np.int8)
_BID_MASK[[BID_HIGH, BID_LOW]] = 1
_BID_MASK.flags.writeable = False
_NO_ACTIONS = np.zeros(NUM_ACTIONS, np.int8)
_NO_ACTIONS.flags.writeable = False

# -- observation layout (see the env card) ----------------------------------------------
# Five slot blocks, slot 1 first; entries inside a block:
SLOT_CARD = slice(0, 6)  #: one-hot of the card's value 1..6
SLOT_DIE = slice(6, 12)  #: one-hot of the die placed on it, zeros while uncovered
SLOT_KEEPS_HIGH = 12  #: covered and card + die <= 7
SLOT_KEEPS_LOW = 13  #: covered and card >= die
#: uncovered only, per die value 1..6: how that die would fit the card, under High and
#: under Low: 1 − gap / 7 when the pair would survive (gap 7 − card − die, resp.
#: card − die; 0 is the best tie-break), 0 when it would not
SLOT_FITS_HIGH = slice(14, 20)
SLOT_FITS_LOW = slice(20, 26)
SLOT_BLOCK = 26
OBS_ROLL = slice(130, 136)  #: own current roll: count of each face 1..6, / 5 (zeros when not to act)
OBS_KEPT = slice(136, 138)  #: pairs kept so far under a High bid, under a Low bid, / 5
OBS_PHASE = slice(138, 144)  #: one-hot: turn 1..5, then the bid (all zero once the game is over)
OBS_TO_ACT = 144  #: 1 while this player has still to commit this round
OBS_TOURNAMENT = 145  #: 1 in tournament mode
OBS_OPPONENTS = 146  #: three opponent blocks, seat order after the observer:
OPPONENT_BLOCK = 1 + FACES  #: present flag, then their placed dice: count of each face / 5
MAX_OPPONENTS = 3
OBS_SIZE = OBS_OPPONENTS + MAX_OPPONENTS * OPPONENT_BLOCK  # 167
assert OBS_ROLL.start == CARDS_PER_PLAYER * SLOT_BLOCK


def _slot_block(card: int, die: int) -> tuple[float, ...]:
    """The observation entries of one slot holding ``card`` with ``die`` on it (0: uncovered)."""
    block = [0.0] * SLOT_BLOCK
    block[SLOT_CARD.start + card - 1] = 1.0
    if die:
        block[SLOT_DIE.start + die - 1] = 1.0
        block[SLOT_KEEPS_HIGH] = float(keeps_high(card, die))
        block[SLOT_KEEPS_LOW] = float(keeps_low(card, die))
    else:
        for value in range(1, FACES + 1):
            if keeps_high(card, value):
                block[SLOT_FITS_HIGH.start + value - 1] = 1 - (HIGH_LIMIT - card - value) / HIGH_LIMIT
            if keeps_low(card, value):
                block[SLOT_FITS_LOW.start + value - 1] = 1 - (card - value) / HIGH_LIMIT
    return tuple(block)


#: ``_SLOT_BLOCKS[card][die]``: every slot block, computed once.
_SLOT_BLOCKS = [None] + [[_slot_block(card, die) for die in range(FACES + 1)] for card in range(1, FACES + 1)]


def _roll_facts(roll: tuple[int, ...]) -> tuple[int, tuple[float, ...]]:
    """Bitset of the faces a roll shows, and its observation entries (count of each face / 5)."""
    return sum(1 << (v - 1) for v in set(roll)), tuple(roll.count(v) / CARDS_PER_PLAYER for v in range(1, FACES + 1))


#: ``_ROLL_FACTS[roll]`` for every ordered roll of one to five dice (9,330), computed once.
_ROLL_FACTS = {
    roll: _roll_facts(roll)
    for k in range(1, NUM_TURNS + 1)
    for roll in itertools.product(range(1, FACES + 1), repeat=k)
}
_PHASES = [tuple(float(i == turn) for i in range(NUM_TURNS + 1)) for turn in range(NUM_TURNS + 1)] + [
    (0.0,) * (NUM_TURNS + 1)
]
_NO_ROLL = (0.0,) * FACES


@dataclass(frozen=True)
class PlayerView:
    """What one observation says, in the game's terms (bots read the observation through it)."""

    cards: tuple[int, ...]  #: own card per slot
    dice: tuple[int, ...]  #: own die per slot, 0 where uncovered
    roll: tuple[int, ...]  #: own current roll, ascending (empty when not to act or bidding)
    turn: int | None  #: placing turn 1..5, 6 for the bid, None once over
    to_act: bool
    tournament: bool
    opponents_dice: tuple[tuple[int, ...], ...]  #: per present opponent: placed die values, ascending

    @property
    def uncovered(self) -> tuple[int, ...]:
        return tuple(slot for slot, die in enumerate(self.dice) if not die)


def read_observation(observation: np.ndarray) -> PlayerView:
    """The :class:`PlayerView` of an observation made by :meth:`RollFiveState.observe`."""
    obs = np.asarray(observation)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"roll_five: an observation has shape ({OBS_SIZE},), got {obs.shape}")
    slots = obs[: OBS_ROLL.start].reshape(CARDS_PER_PLAYER, SLOT_BLOCK)
    cards, dice = slots[:, SLOT_CARD], slots[:, SLOT_DIE]
    counts = np.rint(obs[OBS_ROLL] * CARDS_PER_PLAYER).astype(int)
    phase = np.flatnonzero(obs[OBS_PHASE] > 0.5)
    opponents = []
    for k in range(MAX_OPPONENTS):
        block = OBS_OPPONENTS + k * OPPONENT_BLOCK
        if obs[block] > 0.5:
            placed = np.rint(obs[block + 1 : block + OPPONENT_BLOCK] * CARDS_PER_PLAYER).astype(int)
            opponents.append(tuple(v + 1 for v in range(FACES) for _ in range(placed[v])))
    return PlayerView(
        cards=tuple(int(row.argmax()) + 1 for row in cards),
        dice=tuple(int(row.argmax()) + 1 if row.any() else 0 for row in dice),
        roll=tuple(v + 1 for v in range(FACES) for _ in range(counts[v])),
        turn=int(phase[0]) + 1 if phase.size else None,
        to_act=bool(obs[OBS_TO_ACT] > 0.5),
        tournament=bool(obs[OBS_TOURNAMENT] > 0.5),
        opponents_dice=tuple(opponents),
    )


def kept_pairs(cards, dice, bid: int) -> int:
    """Pairs of placed dice that survive ``bid`` (uncovered cards count as nothing)."""
    keeps = keeps_high if bid == HIGH else keeps_low
    return sum(1 for card, die in zip(cards, dice) if die and keeps(card, die))


def bid_distance(cards, dice, bid: int) -> int:
    """The tournament tie-break of ``bid``: distance of the kept pairs from the bid's best score."""
    if bid == HIGH:
        return abs(HIGH_BEST - sum(c + d for c, d in zip(cards, dice) if d and keeps_high(c, d)))
    return sum(c - d for c, d in zip(cards, dice) if d and keeps_low(c, d))


class RollFive(Game):
    """Roll Five for two to four players.

    Args:
        num_players: 2..4 (default 2).
        mode: ``"casual"`` (equal pair counts share the win; default) or
            ``"tournament"`` (ties broken by closeness to the bid's best score).
    """

    name = "roll_five"
    min_players = 2
    max_players = 4
    default_players = 2
    render_modes = ("ansi", "human", "rgb_array")
    simultaneous = True
    hidden_information = True

    def __init__(self, num_players: int | None = None, mode: str = "casual"):
        super().__init__(num_players)
        if mode not in MODES:
            raise ValueError(f"roll_five: mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.deck = tuple(v for v in range(1, FACES + 1) for _ in range(copies_per_value(self.num_players)))
        self._deck_array = np.array(self.deck)
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.max_game_length = (NUM_TURNS + 1) * self.num_players
        #: Chance outcome ids: every roll of one to five dice, then a card of value v at
        #: ``first_card_outcome + v - 1``.
        self.first_card_outcome = num_dice_outcomes(NUM_TURNS)
        self.max_chance_outcomes = self.first_card_outcome + FACES

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "mode": self.mode}

    def score_bounds(self) -> tuple[float, float]:
        """A score is the pairs kept under the bid: 0 until the reveal, then 0 to 5."""
        return 0.0, float(CARDS_PER_PLAYER)

    def action_name(self, action: int) -> str:
        return action_name(self.check_action(action))

    def new_initial_state(self, rng: np.random.Generator) -> RollFiveState:
        """Shuffle and deal, then draw the roll tape: two draws from ``rng`` per game."""
        n = self.num_players
        dealt = rng.permutation(self._deck_array)[: n * CARDS_PER_PLAYER]
        rolls = rng.integers(1, FACES + 1, size=(n, NUM_TURNS, CARDS_PER_PLAYER))
        return RollFiveState(self, dealt.reshape(n, CARDS_PER_PLAYER).tolist(), rolls.tolist())

    def new_chance_state(self) -> RollFiveState:
        """A game whose deal and rolls are explicit chance events (:mod:`envs.core`)."""
        return RollFiveState(self, EXPLICIT_CHANCE, EXPLICIT_CHANCE)

    def sample_state(self, observation: np.ndarray, rng: np.random.Generator) -> RollFiveState:
        """The player to act's view made a full state (see :meth:`envs.core.Game.sample_state`),
        that player in seat 0 (the rules treat every seat alike) and no one committed yet this
        round (the view does not show who has; the others choose again in a rollout).

        Kept from the view: the observer's cards, dice and roll, and the dice every other
        player has placed. Drawn from ``rng``: the others' cards (from what the deck holds
        beyond the observer's), which of their cards their dice lie on, their rolls this
        turn, and every roll to come.
        """
        obs = self._observation_array(observation)
        view = read_observation(obs)
        if not view.to_act:
            raise ValueError("roll_five: sample_state needs the observation of a player to act")
        if view.tournament != (self.mode == "tournament"):
            raise ValueError(
                f"roll_five: the observation is of a {'tournament' if view.tournament else 'casual'} game, "
                f"not {self.mode}"
            )
        n = self.num_players
        deck = list(self.deck)
        for card in view.cards:
            deck.remove(card)
        others = rng.permutation(deck)[: (n - 1) * CARDS_PER_PLAYER].reshape(n - 1, CARDS_PER_PLAYER).tolist()
        rolls = rng.integers(1, FACES + 1, size=(n, NUM_TURNS, CARDS_PER_PLAYER)).tolist()
        turn = view.turn - 1
        if turn < NUM_TURNS:
            rolls[0][turn][: len(view.roll)] = view.roll
        state = RollFiveState(self, [list(view.cards), *others], rolls)
        state._dice[0] = list(view.dice)
        for player, placed in enumerate(view.opponents_dice, start=1):
            slots = rng.permutation(CARDS_PER_PLAYER)[: len(placed)]
            for slot, die in zip(slots.tolist(), placed):
                state._dice[player][slot] = die
        state._uncovered = [sum(1 << slot for slot, die in enumerate(dice) if not die) for dice in state._dice]
        state._turn = turn
        state._start_turn()
        return state

    def new_state_from_deal(self, hands, rolls) -> RollFiveState:
        """A game with chosen cards and dice (tests, puzzles).

        ``hands[p]`` is player ``p``'s row of five cards (slot 1 first); the hands must
        fit in the deck. ``rolls[p][t]`` holds at least ``5 − t`` dice values: the roll of
        player ``p`` on turn ``t + 1`` (0-based ``t``) is its first ``5 − t`` values.
        """
        n = self.num_players
        hands = [list(map(int, hand)) for hand in hands]
        if len(hands) != n or any(len(hand) != CARDS_PER_PLAYER for hand in hands):
            raise ValueError(f"roll_five: expected {n} hands of {CARDS_PER_PLAYER} cards, got {hands!r}")
        dealt = [card for hand in hands for card in hand]
        if any(dealt.count(v) > self.deck.count(v) for v in set(dealt)) or not set(dealt) <= set(self.deck):
            raise ValueError(f"roll_five: hands {hands!r} do not fit a deck of {copies_per_value(n)} copies of 1..6")
        rows = [[list(map(int, rolls[p][t])) for t in range(NUM_TURNS)] for p in range(n)] if len(rolls) == n else None
        if rows is None or any(
            len(rows[p][t]) < NUM_TURNS - t or not all(1 <= v <= FACES for v in rows[p][t][: NUM_TURNS - t])
            for p in range(n)
            for t in range(NUM_TURNS)
        ):
            raise ValueError(
                f"roll_five: rolls must give, per player and turn t (0-based), at least 5 - t faces 1..6; got {rolls!r}"
            )
        return RollFiveState(self, hands, [[row[: NUM_TURNS - t] for t, row in enumerate(player)] for player in rows])


class RollFiveState(GameState):
    """A game of Roll Five in progress; pending choices stay hidden until the turn resolves."""

    def __init__(self, game: RollFive, hands: list[list[int]] | str, rolls: list | str):
        self.game = game
        n = game.num_players
        self._cards = hands  # never mutated, only replaced: clones share them
        self._rolls = rolls  # the tape, never mutated
        self._dice = [[0] * CARDS_PER_PLAYER for _ in range(n)]  # 0: uncovered
        self._uncovered = [2**CARDS_PER_PLAYER - 1] * n  # bitset of each player's uncovered slots
        self._turn = 0  # 0..4: placing turns; NUM_TURNS: the bid
        self._pending: list[int | None] = [None] * n
        self._acting = tuple(range(n))
        self._bids: list[int | None] = [None] * n
        self._kept = np.zeros(n, np.float64)  # pairs kept under the bid, once revealed
        self._distance = np.zeros(n, np.float64)  # tournament tie-break: lower is better
        self._terminal = False
        self._roll, self._faces, self._roll_counts = [()] * n, [0] * n, [_NO_ROLL] * n
        if hands is EXPLICIT_CHANCE:
            self._cards = [[0] * CARDS_PER_PLAYER for _ in range(n)]  # 0: not dealt yet
            self._chance_queue = []
            self._deal(0)
        else:
            self._start_turn()

    def _deal(self, index: int) -> None:
        """Explicit chance: card ``index`` of the deal (player ``index // 5``, slot ``index % 5``)
        is drawn from what the deck still holds."""
        dealt = [card for row in self._cards for card in row]
        left = tuple(self.game.deck.count(v) - dealt.count(v) for v in range(1, FACES + 1))
        self._draws_chance(card_draw(left, self.game.first_card_outcome), "_dealt", index)

    def _dealt(self, card: int, index: int) -> None:
        cards = [row[:] for row in self._cards]
        cards[index // CARDS_PER_PLAYER][index % CARDS_PER_PLAYER] = card
        self._cards = cards
        if index + 1 < self.game.num_players * CARDS_PER_PLAYER:
            self._deal(index + 1)
        else:
            self._start_turn()

    # -- the turn ------------------------------------------------------------------------
    def _start_turn(self) -> None:
        """Everyone rolls their unplaced dice (read off the tape)."""
        n = self.game.num_players
        if self._turn < NUM_TURNS:
            self._roll, self._faces, self._roll_counts = [()] * n, [0] * n, [_NO_ROLL] * n
            rolled = NUM_TURNS - self._turn
            for p in range(n):
                if self._draws_chance(DICE_ROLLS[rolled], "_rolled", p):
                    self._rolled(self._rolls[p][self._turn][:rolled], p)
        else:
            self._roll = [()] * n
            self._faces = [0] * n
            self._roll_counts = [_NO_ROLL] * n

    def _rolled(self, roll, player: int) -> None:
        """``player``'s unplaced dice show ``roll``."""
        self._roll[player] = roll = tuple(roll)
        self._faces[player], self._roll_counts[player] = _ROLL_FACTS[roll]

    def acting_players(self) -> tuple[int, ...]:
        return self._acting

    def legal_mask(self, player: int) -> np.ndarray:
        if player not in self._acting:
            return _NO_ACTIONS
        if self._turn == NUM_TURNS:
            return _BID_MASK
        return _PLACEMENT_MASKS[self._faces[player]][self._uncovered[player]]

    def apply(self, player: int, action: int) -> None:
        if type(action) is not int:
            action = self.game.check_action(action)
        if player not in self._acting or not 0 <= action < NUM_ACTIONS or not self.legal_mask(player)[action]:
            raise self.illegal_action_error(player, action)
        self._pending[player] = action
        self._acting = tuple(p for p in self._acting if p != player)
        if not self._acting:
            self._resolve()

    def _resolve(self) -> None:
        """The last player has committed: reveal every choice at once."""
        pending = self._pending
        self._pending = [None] * self.game.num_players
        if self._turn < NUM_TURNS:
            for player, action in enumerate(pending):
                value, slot = placement(action)
                self._dice[player][slot] = value
                self._uncovered[player] &= ~(1 << slot)
            self._turn += 1
            self._acting = tuple(range(self.game.num_players))
            self._start_turn()
        else:
            self._bids = [action - BID_HIGH for action in pending]
            self._score()
            self._terminal = True

    def _score(self) -> None:
        for player, bid in enumerate(self._bids):
            self._kept[player] = kept_pairs(self._cards[player], self._dice[player], bid)
            self._distance[player] = bid_distance(self._cards[player], self._dice[player], bid)

    # -- outcome -------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self._terminal

    def scores(self) -> np.ndarray:
        """Pairs each player keeps under their bid: 0 until the reveal."""
        return self._kept.copy()

    def winners(self) -> tuple[int, ...]:
        """The players who share the win (empty until the reveal)."""
        if not self._terminal:
            return ()
        best = self._kept.max()
        tied = self._kept == best
        if self.game.mode == "tournament":
            closest = self._distance[tied].min()
            tied &= self._distance == closest
        return tuple(int(p) for p in np.flatnonzero(tied))

    def returns(self) -> np.ndarray:
        """+1 for every winner, −1 for the others; 0 for all when everyone shares the win."""
        n = self.game.num_players
        winners = self.winners()
        if not winners or len(winners) == n:
            return np.zeros(n)
        result = np.full(n, -1.0)
        result[list(winners)] = 1.0
        return result

    def tie_break_distances(self) -> np.ndarray:
        """Every player's tournament tie-break distance (lower is better), 0 until the reveal."""
        return self._distance.copy()

    def stats(self, player: int) -> dict[str, float]:
        if not self._terminal:
            return {}
        return {"kept_pairs": float(self._kept[player]), "bid_high": float(self._bids[player] == HIGH)}

    # -- views ---------------------------------------------------------------------------
    def observe(self, player: int) -> np.ndarray:
        cards, dice = self._cards[player], self._dice[player]
        entries = []
        kept_high = kept_low = 0
        for card, die in zip(cards, dice):
            block = _SLOT_BLOCKS[card][die]
            entries += block
            kept_high += block[SLOT_KEEPS_HIGH]
            kept_low += block[SLOT_KEEPS_LOW]
        acting = player in self._acting
        entries += self._roll_counts[player] if acting else _NO_ROLL
        entries += (kept_high / CARDS_PER_PLAYER, kept_low / CARDS_PER_PLAYER)
        entries += _PHASES[NUM_TURNS + 1 if self._terminal else self._turn]
        entries += (float(acting), float(self.game.mode == "tournament"))
        n = self.game.num_players
        for k in range(1, MAX_OPPONENTS + 1):
            if k < n:
                counts = [0.0] * FACES
                for die in self._dice[(player + k) % n]:
                    if die:
                        counts[die - 1] += 1 / CARDS_PER_PLAYER
                entries.append(1.0)
                entries += counts
            else:
                entries += (0.0,) * OPPONENT_BLOCK
        return np.array(entries, np.float32)

    @property
    def turn(self) -> int:
        """The placing turn 1..5, 6 during the bid (and after it)."""
        return self._turn + 1

    def cards(self, player: int) -> tuple[int, ...]:
        """``player``'s row of cards, slot 1 first (hidden from the others until the reveal)."""
        return tuple(self._cards[player])

    def dice(self, player: int) -> tuple[int, ...]:
        """The die placed on each of ``player``'s slots, 0 where uncovered (public)."""
        return tuple(self._dice[player])

    def current_roll(self, player: int) -> tuple[int, ...]:
        """``player``'s roll this turn (empty during the bid and once over)."""
        return tuple(self._roll[player]) if not self._terminal else ()

    def bids(self) -> tuple[int | None, ...]:
        """Every player's bid (``HIGH`` or ``LOW``) once revealed, else None."""
        return tuple(self._bids)

    def committed(self, player: int) -> bool:
        """True while ``player`` has committed this turn and waits for the others."""
        return not self._terminal and player not in self._acting

    def render_rgb(self) -> np.ndarray:
        """The ``render()`` rows of cards and dice as a picture (:mod:`envs.text_picture`)."""
        return text_picture(self.render(), columns=64, lines=self.game.num_players + 3)

    def render(self) -> str:
        """The whole table, every card and roll face up (a spectator's view; the env's ``render()``)."""
        return self._picture(None)

    def render_for(self, player: int) -> str:
        """The table as ``player`` sees it: their own cards and roll; the others' placed dice
        on face-down cards (``?``), and neither their rolls nor whether they have committed.
        Everything is revealed once the game is over."""
        if not 0 <= player < self.game.num_players:
            raise ValueError(f"roll_five: no player {player!r} (players 0..{self.game.num_players - 1})")
        return self._picture(player)

    def _picture(self, viewer: int | None) -> str:
        n = self.game.num_players
        phase = "game over" if self._terminal else "bid" if self._turn == NUM_TURNS else f"turn {self._turn + 1} of 5"
        lines = [f"Roll Five, {self.game.mode}, {phase}"]
        for p in range(n):
            hidden = viewer is not None and p != viewer and not self._terminal
            pairs = " ".join(f"{'?' if hidden else c}/{d or '-'}" for c, d in zip(self._cards[p], self._dice[p]))
            line = f"player {p}{' (you)' if p == viewer else ''}: cards/dice {pairs}"
            if self._terminal:
                bid = BID_NAMES[self._bids[p]]
                line += f"  bid {bid}, keeps {int(self._kept[p])}"
                if self.game.mode == "tournament":
                    line += f" (distance {int(self._distance[p])})"
            elif not hidden:
                if self._roll[p] and (viewer is None or p in self._acting):
                    line += f"  roll {' '.join(map(str, sorted(self._roll[p])))}"
                if self.committed(p):
                    line += "  (committed)"
            lines.append(line)
        if self._terminal:
            winners = self.winners()
            lines.append(
                "draw: everyone shares the win"
                if len(winners) == n
                else f"winner(s): {', '.join(f'player {w}' for w in winners)}"
            )
        return "\n".join(lines)

    def clone_resampled(self, rng: np.random.Generator) -> RollFiveState:
        """A copy with every roll of the turns to come redrawn from ``rng``.

        The dealt cards, the dice placed, this turn's rolls and any committed choices stay;
        the roll tape of the later turns is replaced by a fresh draw from ``rng``. The deal
        is kept as it is: this is the full-information copy of the contract. A search for
        one player must also resample the cards that player cannot see (the other rows,
        drawn from what the deck holds beyond the player's own cards); that is left to
        the search, as it depends on whose view it takes.
        """
        if self.is_chance_node():
            raise ValueError("roll_five: clone_resampled() needs the pending chance event resolved first")
        other = self.clone()
        other._chance_queue = None
        n = self.game.num_players
        fresh = rng.integers(1, FACES + 1, size=(n, NUM_TURNS, CARDS_PER_PLAYER)).tolist()
        kept = self._turn + 1  # turns already rolled (all of them once at the bid)
        if self._rolls is EXPLICIT_CHANCE:  # no roll came from a tape: the tape is all future
            other._rolls = fresh
        else:
            other._rolls = [self._rolls[p][:kept] + fresh[p][kept:] for p in range(n)]
        return other

    def clone(self) -> RollFiveState:
        other = object.__new__(RollFiveState)
        other.__dict__.update(self.__dict__)
        other._dice = [row[:] for row in self._dice]
        other._pending = self._pending[:]
        other._bids = self._bids[:]
        other._kept = self._kept.copy()
        other._distance = self._distance.copy()
        other._faces = self._faces[:]
        other._uncovered = self._uncovered[:]
        other._roll_counts = self._roll_counts[:]
        other._roll = self._roll[:]
        if self._chance_queue is not None:
            other._chance_queue = self._chance_queue[:]
        return other
