"""Rules core of Invers (the rules: ``docs/rules/invers.md``).

A 6×6 board holds 36 tiles, yellow and red, in a checkerboard (row 0, column 0 is
yellow), all **colour side up**. Each player holds one more tile of their own colour
**dot side up** (flipped): yellow (player 0) and red (player 1); yellow moves first.

A move **pushes** the tile in hand into one of the 24 entry points: a row from the left
or the right, a column from the top or the bottom. The line shifts by one and the tile
at the far end falls out. The fallen tile is **flipped** dot side up (it stays so if it
already was) and becomes the mover's **tile in hand**, whatever its colour. The push is
legal unless the fallen tile is an opponent's flipped tile.

A player whose colour has no colour-side-up tile left on the board wins at once — after
anyone's push. A player to move without a legal push ends the game: the one with more
flipped tiles of their colour wins, equal is a draw. House rule ``max_plies``: a game
still running after that many plies is a draw by truncation.

Coordinates are 0-based ``(row, column)`` with row 0 at the top; action names and the
text picture count rows and columns from 1, as a person would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core import Children, Game, GameState
from envs.games.invers_picture import draw_position
from envs.games.invers_tiles import CELLS, FLIPPED, RED, SIZE, TILE_LETTERS, YELLOW, colour, flipped, is_flipped

TILES_PER_COLOUR = CELLS // 2 + 1  # 18 on the board and one in hand
DRAW = -1  # ``InversState.winner`` of a drawn game
COLOUR_NAMES = ("yellow", "red")


# -- the 24 pushes ---------------------------------------------------------------------
# Action ids, in blocks of six (line index 0..5 = row or column 1..6):
ROW_FROM_LEFT = 0  # row r, tiles move →, the tile in column 6 falls out
ROW_FROM_RIGHT = 6  # row r, tiles move ←, the tile in column 1 falls out
COLUMN_FROM_TOP = 12  # column c, tiles move ↓, the tile in row 6 falls out
COLUMN_FROM_BOTTOM = 18  # column c, tiles move ↑, the tile in row 1 falls out
NUM_ACTIONS = 24
_BLOCKS = (("row", "→"), ("row", "←"), ("column", "↓"), ("column", "↑"))


def _line(action: int) -> tuple[int, ...]:
    """Cell indices of the pushed line, from the entry point to the far end."""
    block, k = divmod(action, SIZE)
    if block == 0:
        return tuple(k * SIZE + c for c in range(SIZE))
    if block == 1:
        return tuple(k * SIZE + c for c in reversed(range(SIZE)))
    if block == 2:
        return tuple(r * SIZE + k for r in range(SIZE))
    return tuple(r * SIZE + k for r in reversed(range(SIZE)))


#: ``LINES[action]``: the cells a push moves, entry point first, far end last.
LINES = tuple(_line(a) for a in range(NUM_ACTIONS))
#: ``FAR_END[action]``: the cell whose tile falls out. Every border cell is one; corners twice.
FAR_END = tuple(line[-1] for line in LINES)
#: Border cells: a player is blocked only if an opponent's flipped tile lies on each.
BORDER = frozenset(FAR_END)


def push(board: bytearray, action: int, tile: int) -> int:
    """Push ``tile`` into the line of ``action``; return the tile that falls out, unturned."""
    line = LINES[action]
    fallen = board[line[5]]
    board[line[5]] = board[line[4]]
    board[line[4]] = board[line[3]]
    board[line[3]] = board[line[2]]
    board[line[2]] = board[line[1]]
    board[line[1]] = board[line[0]]
    board[line[0]] = tile
    return fallen


def action_name(action: int) -> str:
    """``"row 3 →"``: the line (1-based) and the direction its tiles move."""
    block, k = divmod(action, SIZE)
    line, arrow = _BLOCKS[block]
    return f"{line} {k + 1} {arrow}"


# -- observation layout (see the env card) ----------------------------------------------
PLANES = 4  # own colour side up, own dot side up, opponent colour side up, opponent dot side up
OBS_OWN_HAND = PLANES * CELLS  # 144, 145: own tile in hand is own colour / opponent's colour
OBS_OPPONENT_HAND = OBS_OWN_HAND + 2  # 146, 147: opponent's tile in hand, same encoding
OBS_TO_MOVE = OBS_OPPONENT_HAND + 2  # 148: the observer is to move
OBS_SEAT = OBS_TO_MOVE + 1  # 149: the observer plays red (player 1)
OBS_PLIES = OBS_SEAT + 1  # 150: plies played / max_plies
OBS_SIZE = OBS_PLIES + 1  # 151

# A tile seen by player p is ``tile ^ p``: 0 own colour side up, 1 opponent's colour side
# up, 2 own dot side up, 3 opponent's dot side up. ``_PLANE_START[tile ^ p] + cell`` is
# its entry in the observation.
_PLANE_START = np.array([0, 2 * CELLS, CELLS, 3 * CELLS], np.intp)
_SEEN_OF_PLANE = np.array([0, 2, 1, 3], np.intp)  # the inverse: plane -> tile as seen
PLANE_OF_SEEN = np.array([_PLANE_START[t ^ p] for p in (0, 1) for t in range(4)], np.intp).reshape(2, 4)
_CELL_INDEX = np.arange(CELLS, dtype=np.intp)
_FAR_END = np.array(FAR_END, np.intp)
_NO_MOVES = np.zeros(NUM_ACTIONS, np.int8)
_NO_MOVES.flags.writeable = False


def _board_symmetries() -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The seven non-identity symmetries of the square as (observation, action) index maps.

    The rules only ask which line a push moves and in which direction, so rotating or
    mirroring a position (board, pushes and all) leaves every player's chances as they
    were; the initial checkerboard is not symmetric, but no rule looks at it.
    """
    transforms = (
        lambda r, c: (c, SIZE - 1 - r),  # quarter turns
        lambda r, c: (SIZE - 1 - r, SIZE - 1 - c),
        lambda r, c: (SIZE - 1 - c, r),
        lambda r, c: (r, SIZE - 1 - c),  # mirrors
        lambda r, c: (SIZE - 1 - r, c),
        lambda r, c: (c, r),
        lambda r, c: (SIZE - 1 - c, SIZE - 1 - r),
    )
    maps = []
    for transform in transforms:
        cell_to = [transform(*divmod(cell, SIZE)) for cell in range(CELLS)]
        cell_to = [r * SIZE + c for r, c in cell_to]
        observation_index = np.arange(OBS_SIZE)
        for plane in range(PLANES):
            for cell in range(CELLS):
                observation_index[plane * CELLS + cell_to[cell]] = plane * CELLS + cell
        action_of_line = {line: a for a, line in enumerate(LINES)}
        action_index = np.empty(NUM_ACTIONS, np.intp)
        for a, line in enumerate(LINES):
            action_index[action_of_line[tuple(cell_to[cell] for cell in line)]] = a
        maps.append((observation_index, action_index))
    return tuple(maps)


SYMMETRIES = _board_symmetries()


def _push_sources() -> np.ndarray:
    """``_PUSH_SOURCE[a][cell]``: where the tile on ``cell`` after push ``a`` comes from,
    as an index into the board followed by the pushed tile (entry ``CELLS``)."""
    sources = np.tile(np.arange(CELLS, dtype=np.intp), (NUM_ACTIONS, 1))
    for action, line in enumerate(LINES):
        sources[action, line[0]] = CELLS
        for before, after in zip(line, line[1:]):
            sources[action, after] = before
    return sources


_PUSH_SOURCE = _push_sources()


def _initial_board() -> bytes:
    return bytes((r + c) % 2 for r in range(SIZE) for c in range(SIZE))


INITIAL_BOARD = _initial_board()
INITIAL_HANDS = (flipped(YELLOW), flipped(RED))


def position_of_state(state: InversState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One state as a batch of one position, in the arrays of :func:`positions_from_observations`."""
    board = np.frombuffer(state.board, np.uint8).astype(np.int8)[None]
    hands = np.array([[state.tile_in_hand(0), state.tile_in_hand(1)]], np.int8)
    return board, hands, np.array([state.to_move], np.int64), np.array([state.ply], np.int64)


def positions_from_observations(
    game: Invers, observations: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The positions behind ``(B, OBS_SIZE)`` observations (any player's), as arrays:
    ``(B, 36)`` tile codes, ``(B, 2)`` tiles in hand, the player to move and the ply of
    each, read as :meth:`InversState.from_observation` reads one (which calls this), for
    the searches that take many positions at once."""
    obs = np.asarray(observations)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
        raise ValueError(f"invers: observations have shape (N, {OBS_SIZE}), got {obs.shape}")
    seats = (obs[:, OBS_SEAT] > 0.5).astype(np.int8)
    planes = obs[:, : PLANES * CELLS].reshape(len(obs), PLANES, CELLS) > 0.5
    if not (planes.sum(axis=1) == 1).all():
        raise ValueError("invers: every cell of an observation must hold exactly one tile")
    boards = (_SEEN_OF_PLANE[planes.argmax(axis=1)] ^ seats[:, None]).astype(np.int8)
    rows = np.arange(len(obs))
    hands = np.empty((len(obs), 2), np.int8)
    hands[rows, seats] = FLIPPED | ((obs[:, OBS_OWN_HAND + 1] > 0.5) ^ seats)
    hands[rows, 1 - seats] = FLIPPED | ((obs[:, OBS_OPPONENT_HAND + 1] > 0.5) ^ seats)
    to_move = np.where(obs[:, OBS_TO_MOVE] > 0.5, seats, 1 - seats).astype(np.int64)
    plies = np.rint(obs[:, OBS_PLIES].astype(np.float64) * game.max_plies).astype(np.int64)
    return boards, hands, to_move, plies


class Invers(Game):
    """Invers for two players: yellow (player 0, moves first) and red (player 1).

    Args:
        num_players: must be 2 (accepted so every game takes the same argument).
        max_plies: house rule; a game still running after this many plies (both
            players' pushes together) ends as a draw by truncation. Default 400.
    """

    name = "invers"
    min_players = 2
    max_players = 2
    default_players = 2
    render_modes = ("ansi", "human", "rgb_array")

    def __init__(self, num_players: int | None = None, max_plies: int = 400):
        super().__init__(num_players)
        if isinstance(max_plies, (bool, np.bool_)) or not isinstance(max_plies, (int, np.integer)):
            raise TypeError(f"invers: max_plies must be a positive integer, got {max_plies!r}")
        if max_plies < 1:
            raise ValueError(f"invers: max_plies must be a positive integer, got {max_plies}")
        self.max_plies = int(max_plies)
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.max_game_length = self.max_plies

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "max_plies": self.max_plies}

    def score_bounds(self) -> tuple[float, float]:
        """A score counts flipped tiles of one colour: 0 to all 19 (18 on the board, 1 in hand)."""
        return 0.0, float(TILES_PER_COLOUR)

    def new_initial_state(self, rng: np.random.Generator | None = None) -> InversState:
        """The set-up position. Invers has no chance, so ``rng`` is accepted and unused."""
        return InversState(self, INITIAL_BOARD, INITIAL_HANDS)

    def action_name(self, action: int) -> str:
        return action_name(self.check_action(action))

    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The quarter turns and mirrors of the board (see :func:`_board_symmetries`)."""
        return list(SYMMETRIES)

    def state_from_observation(self, observation: np.ndarray) -> InversState:
        """Invers hides nothing: see :meth:`InversState.from_observation`."""
        return InversState.from_observation(self, observation)


class InversState(GameState):
    """A game of Invers in progress.

    ``InversState(game, board, hands, to_move, ply)`` builds any position from tile
    codes (see :meth:`from_position` for the readable form). The position need not be
    reachable in play; the game ends at once if it is already decided.
    """

    def __init__(self, game: Invers, board, hands, to_move: int = YELLOW, ply: int = 0):
        self.game = game
        self._board = bytearray(board)
        self._hands = list(hands)
        self._player = to_move
        self._ply = ply
        self._unflipped = [0, 0]  # colour side up, on the board
        self._flipped = [0, 0]  # dot side up, on the board or in a hand
        for tile in (*self._board, *self._hands):
            (self._flipped if is_flipped(tile) else self._unflipped)[colour(tile)] += 1
        self._winner: int | None = None  # YELLOW, RED, or DRAW once decided by the rules
        self._terminal = False
        self._truncated = False
        if self._unflipped[YELLOW] == 0 or self._unflipped[RED] == 0:
            self._winner = YELLOW if self._unflipped[YELLOW] == 0 else RED
            self._terminal = True
        else:
            self._check_blocked_or_out_of_time()

    @classmethod
    def from_position(
        cls, game: Invers, board: str, hands: str = "yr", to_move: int = YELLOW, ply: int = 0
    ) -> InversState:
        """A position written as a person would: the test hook for arbitrary positions.

        ``board`` is 36 letters, row 1 first (whitespace ignored, so six lines work):
        ``Y``/``R`` a yellow/red tile colour side up, ``y``/``r`` dot side up. ``hands``
        is the tile in yellow's hand then in red's, each ``y`` or ``r`` (always dot side
        up). Tile counts are not checked, so positions the game never reaches (such as a
        player with no legal push) can be built.
        """
        letters = "".join(board.split())
        if len(letters) != CELLS or any(ch not in TILE_LETTERS for ch in letters):
            raise ValueError(f"invers: board must be {CELLS} letters of {TILE_LETTERS!r}, got {board!r}")
        if len(hands) != 2 or any(ch not in "yr" for ch in hands):
            raise ValueError(f"invers: hands must be two letters 'y' or 'r' (dot side up), got {hands!r}")
        if to_move not in (YELLOW, RED):
            raise ValueError(f"invers: to_move must be 0 (yellow) or 1 (red), got {to_move!r}")
        if not 0 <= ply <= game.max_plies:
            raise ValueError(f"invers: ply must be in 0..{game.max_plies}, got {ply!r}")
        codes = [TILE_LETTERS.index(ch) for ch in letters]
        if not any(t == YELLOW for t in codes) and not any(t == RED for t in codes):
            raise ValueError("invers: both colours have every tile flipped; no game reaches that")
        return cls(game, codes, [TILE_LETTERS.index(ch) for ch in hands], int(to_move), int(ply))

    @classmethod
    def from_observation(cls, game: Invers, observation: np.ndarray) -> InversState:
        """The full state behind any player's observation (bots see only that).

        The observation names the observer's seat (entry ``OBS_SEAT``), who is to move
        and the ply, so nothing is lost: ``from_observation(g, s.observe(p))`` has the board, hands,
        player to move and ply of ``s``.
        """
        obs = np.asarray(observation)
        if obs.shape != (OBS_SIZE,):
            raise ValueError(f"invers: an observation has shape ({OBS_SIZE},), got {obs.shape}")
        boards, hands, to_move, plies = positions_from_observations(game, obs[None])
        return cls(game, boards[0].tolist(), hands[0].tolist(), int(to_move[0]), int(plies[0]))

    # -- rules -------------------------------------------------------------------------
    def acting_players(self) -> tuple[int, ...]:
        return () if self._terminal else (self._player,)

    def legal_mask(self, player: int) -> np.ndarray:
        if self._terminal or player != self._player:
            return _NO_MOVES
        board = np.frombuffer(self._board, np.uint8)
        return (board[_FAR_END] != flipped(1 - player)).view(np.int8)

    def legal_actions(self, player: int) -> list[int]:
        """The pushes ``player`` may make now, in id order (empty when not to move)."""
        if self._terminal or player != self._player:
            return []
        blocked = flipped(1 - player)
        board = self._board
        return [a for a in range(NUM_ACTIONS) if board[FAR_END[a]] != blocked]

    def apply(self, player: int, action: int) -> None:
        if type(action) is not int:
            action = self.game.check_action(action)
        if (
            self._terminal
            or player != self._player
            or not 0 <= action < NUM_ACTIONS
            or self._board[FAR_END[action]] == flipped(1 - player)
        ):
            raise self.illegal_action_error(player, action)
        fallen = push(self._board, action, self._hands[player])
        self._hands[player] = flipped(fallen)
        self._ply += 1
        self._player = 1 - player
        if not is_flipped(fallen):
            c = colour(fallen)
            self._unflipped[c] -= 1
            self._flipped[c] += 1
            if self._unflipped[c] == 0:  # every tile of colour c is flipped: c wins
                self._winner = c
                self._terminal = True
                return
        self._check_blocked_or_out_of_time()

    def children(self, player: int) -> Children:
        """All legal pushes of ``player`` at once, as :meth:`GameState.children` defines
        them, computed on arrays (the search's hot path): every child board is one
        fancy-index of the board and the tile in hand, and the endings are read off the
        tile that falls out."""
        if self._terminal or player != self._player:
            empty = np.zeros(0, np.intp)
            return Children(
                empty, np.zeros((0, OBS_SIZE), np.float32), empty, np.zeros((0, NUM_ACTIONS), np.int8), np.zeros(0)
            )
        opponent = 1 - player
        board = np.frombuffer(self._board, np.uint8)
        far = board[_FAR_END]
        actions = np.flatnonzero(far != flipped(opponent))
        fallen = far[actions]
        boards = np.append(board, np.uint8(self._hands[player]))[_PUSH_SOURCE[actions]]
        fallen_colour = fallen & 1
        newly_flipped = (fallen & FLIPPED) == 0
        outcomes = np.full(len(actions), np.nan)
        wins = newly_flipped & (np.asarray(self._unflipped)[fallen_colour] == 1)  # that colour's last tile
        outcomes[wins] = np.where(fallen_colour[wins] == player, 1.0, -1.0)
        flipped_after = np.asarray(self._flipped)[None, :] + (
            newly_flipped[:, None] & (fallen_colour[:, None] == np.arange(2))
        )
        blocked = (
            ~wins & (flipped_after[:, player] >= len(BORDER)) & (boards[:, _FAR_END] == flipped(player)).all(axis=1)
        )
        outcomes[blocked] = np.sign(flipped_after[blocked, player] - flipped_after[blocked, opponent])
        if self._ply + 1 >= self.game.max_plies:
            outcomes[~wins & ~blocked] = 0.0
        going_on = np.isnan(outcomes)
        rows = np.arange(len(actions))[:, None]
        observations = np.zeros((len(actions), OBS_SIZE), np.float32)
        observations[rows, PLANE_OF_SEEN[opponent][boards] + _CELL_INDEX] = 1.0
        observations[:, OBS_OWN_HAND + (colour(self._hands[opponent]) ^ opponent)] = 1.0
        observations[rows[:, 0], OBS_OPPONENT_HAND + (fallen_colour ^ opponent)] = 1.0
        observations[:, OBS_TO_MOVE] = 1.0
        observations[:, OBS_SEAT] = opponent
        observations[:, OBS_PLIES] = (self._ply + 1) / self.game.max_plies
        observations[~going_on] = 0.0
        masks = (boards[:, _FAR_END] != flipped(player)).view(
            np.int8
        )  # the opponent may not push out our flipped tiles
        masks[~going_on] = 0
        return Children(actions, observations, np.where(going_on, opponent, -1), masks, outcomes)

    def _check_blocked_or_out_of_time(self) -> None:
        """End the game if the player to move has no push, else at the ply limit."""
        player = self._player
        opponent = 1 - player
        # Blocked means an opponent's flipped tile on each of the 20 border cells; with
        # 19 tiles a colour this never happens in a real game, so count before looking.
        # The blocker then has at least 20 flipped tiles and the blocked player at most
        # 16, so on this board the comparison below, the rulebook's, always favours the
        # blocker; it is kept as the rule is written.
        if self._flipped[opponent] >= len(BORDER) and not self.legal_actions(player):
            mine, theirs = self._flipped[player], self._flipped[opponent]
            self._winner = player if mine > theirs else opponent if theirs > mine else DRAW
            self._terminal = True
        elif self._ply >= self.game.max_plies:
            self._terminal = True
            self._truncated = True

    def is_terminal(self) -> bool:
        return self._terminal

    def is_truncated(self) -> bool:
        return self._truncated

    def scores(self) -> np.ndarray:
        """Flipped tiles of each player's colour, wherever they lie (board or a hand)."""
        return np.array(self._flipped, np.float64)

    def returns(self) -> np.ndarray:
        if self._winner is None or self._winner == DRAW:
            return np.zeros(2)
        return np.where(np.arange(2) == self._winner, 1.0, -1.0)

    # -- views -------------------------------------------------------------------------
    def observe(self, player: int) -> np.ndarray:
        obs = np.zeros(OBS_SIZE, np.float32)
        board = np.frombuffer(self._board, np.uint8)
        obs[PLANE_OF_SEEN[player][board] + _CELL_INDEX] = 1.0
        obs[OBS_OWN_HAND + (colour(self._hands[player]) ^ player)] = 1.0
        obs[OBS_OPPONENT_HAND + (colour(self._hands[1 - player]) ^ player)] = 1.0
        obs[OBS_TO_MOVE] = not self._terminal and player == self._player
        obs[OBS_SEAT] = player
        obs[OBS_PLIES] = self._ply / self.game.max_plies
        return obs

    @property
    def board(self) -> bytes:
        """The 36 tile codes, row by row (see :data:`TILE_LETTERS` for their letters)."""
        return bytes(self._board)

    def tile_in_hand(self, player: int) -> int:
        """The flipped tile ``player`` will push next."""
        return self._hands[player]

    def flipped_tiles(self, player: int) -> int:
        """Dot-side-up tiles of ``player``'s colour, on the board or in either hand."""
        return self._flipped[player]

    def colour_side_up(self, player: int) -> int:
        """Tiles of ``player``'s colour still colour side up: the tiles left to flip."""
        return self._unflipped[player]

    @property
    def to_move(self) -> int:
        """The player whose turn it is (the last one to move once the game is over)."""
        return self._player

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def winner(self) -> int | None:
        """``YELLOW`` or ``RED``, ``DRAW`` (even on truncation), or None while running."""
        if self._truncated:
            return DRAW
        return self._winner

    def board_text(self) -> str:
        """Six lines of tile letters, the form :meth:`from_position` reads."""
        letters = "".join(TILE_LETTERS[t] for t in self._board)
        return "\n".join(letters[r * SIZE : (r + 1) * SIZE] for r in range(SIZE))

    def render(self) -> str:
        rows = self.board_text().split("\n")
        lines = ["    " + " ".join(str(c + 1) for c in range(SIZE))]
        lines += [f" {r + 1}  " + " ".join(row) for r, row in enumerate(rows)]
        hands = ", ".join(f"{COLOUR_NAMES[p]} holds {TILE_LETTERS[self._hands[p]]}" for p in (YELLOW, RED))
        flips = ", ".join(f"{COLOUR_NAMES[p]} {self._flipped[p]}" for p in (YELLOW, RED))
        lines.append(f"In hand: {hands}.  Flipped: {flips}.")
        lines.append(f"Ply {self._ply}: {self._status()}")
        lines.append("Y/R: colour side up; y/r: dot side up (flipped).")
        return "\n".join(lines)

    def _status(self) -> str:
        if not self._terminal:
            return f"{COLOUR_NAMES[self._player]} (player {self._player}) to move."
        if self._truncated:
            return f"draw: {self.game.max_plies} plies played (max_plies)."
        if self._winner == DRAW:
            return "draw: no push left and equal flipped tiles."
        return f"{COLOUR_NAMES[self._winner]} (player {self._winner}) wins."

    def render_rgb(self) -> np.ndarray:
        return draw_position(self._board, self._hands, None if self._terminal else self._player)

    def clone_resampled(self, rng: np.random.Generator | None = None) -> InversState:
        """Invers has no chance: the same as :meth:`clone` (``rng`` is unused)."""
        return self.clone()

    def clone(self) -> InversState:
        other = object.__new__(InversState)
        other.__dict__.update(self.__dict__)
        other._board = bytearray(self._board)
        other._hands = self._hands[:]
        other._unflipped = self._unflipped[:]
        other._flipped = self._flipped[:]
        return other
