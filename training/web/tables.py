"""Each game's table as the page draws it, for one seat (or a spectator): JSON-ready parts.

A table is a list of parts, each drawn by one function of the page (``static/app.js``),
written once for every game: ``status`` (a line of text), ``dice`` (faces, the first
``locked`` of them set aside), ``sheet`` (a score sheet: rows of a label and one cell
per player, with a legend of its words where it needs one), ``board`` (Invers's 6 x 6
tiles and the tiles in hand) and ``cards`` (Roll Five's rows of cards and dice). A game
declares which parts show its table, from the rules core's public accessors and nothing
it computes again.

A move in the log may carry its ``outcome``, what it brought that its name cannot say
(:func:`move_outcome`): the throw a Lost Dice roll threw, the roll a pass spent.

A legal move may carry what the page needs to make it on the table (:func:`move_fields`):
``reroll``, the positions (0-based, in the ``dice`` part's order) of the dice a reroll or
lock move rolls again, so that clicking those dice picks it; ``edge``, the square off the
Invers board (row, column: -1 or 6 on one of them) from which a push enters, where the
page draws its arrow. Both are read off the rules core's own tables of its actions.

``viewer`` is the seat whose view it is, or None for a spectator (watch, replay), who
sees the whole table. Only Roll Five hides anything: another player's cards until the
reveal, their roll and whether they have committed (as ``RollFiveState.render_for``);
``tests/test_web_hidden.py`` checks that its table does not change when the hidden
cards and rolls do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.core import GameState
from envs.games.invers import LINES
from envs.games.invers_tiles import SIZE, TILE_LETTERS
from envs.games.inverted_dice import NUM_REROLLS, reroll_positions
from envs.games.lost_dice import (
    BREAK_EVEN,
    DECLINE,
    KELDICE_COLUMN_POINTS,
    LONG_COLUMN,
    LONG_COLUMN_BONUS,
    PASS,
    TAKE,
)
from envs.games.lost_dice_faces import COLOUR_NAMES, NUM_COLOURS
from envs.games.roll_five import BID_NAMES
from envs.games.six_hundred import NUM_LOCKS, rolled_positions

Part = dict[str, Any]

#: What a Lost Dice or Keldice player's turn costs, said under its sheet.
ROLLS_USED = (
    "Roll, pass and take each use one of your rolls (Rolls left); pass spends it without throwing. "
    "The game ends when every player has used their rolls."
)

#: What a sheet's words and numbers mean to someone who does not know the rules: shown under it.
SHEET_LEGENDS = {
    "six_hundred": (
        "Ladder: at the end Rung 1 < Rung 2 < Rung 3 < Rung 4 strictly, or all four rungs score 0. "
        "ok: the rungs written so far can still rise; broken: they cannot, so they will score 0; "
        "0: the game is over and they scored 0."
    ),
    "lost_dice": (
        f"{ROLLS_USED} A column: $ for each investment, then the numbers played in it; = its points: "
        f"(the numbers' sum − {BREAK_EVEN}) × (1 + investments), +{LONG_COLUMN_BONUS} with {LONG_COLUMN} or more "
        f"entries. A column never started scores 0, so 6 = {(6 - BREAK_EVEN)} is a column started with a 6 alone."
    ),
    "keldice": (
        f"{ROLLS_USED} A column: the numbers played in it; = its points, by how many it holds: "
        + ", ".join(f"{count}: {points:+d}" for count, points in enumerate(KELDICE_COLUMN_POINTS[:-1]) if count)
        + f", {len(KELDICE_COLUMN_POINTS) - 1} or more: {KELDICE_COLUMN_POINTS[-1]:+d}."
    ),
}


def sheet_game(state: GameState, viewer: int | None) -> list[Part]:
    """Inverted Dice and Six Hundred: the picture their ``render_rgb`` draws (``sheet_picture()``)."""
    picture = state.sheet_picture()
    return [
        {"type": "status", "text": picture["status"]},
        {
            "type": "dice",
            "faces": list(picture["dice"]),
            "locked": picture["num_locked"],
            "count": picture["num_dice"],
            "note": "shaded dice are locked: set aside, they stay for the rest of the turn"
            if picture["num_locked"]
            else "",
        },
        {
            "type": "sheet",
            "players": picture["players"],
            "rows": [[label, *cells] for label, cells in picture["rows"]],
            "to_act": picture["to_act"],
            "marked": picture["marked_row"],
            "legend": SHEET_LEGENDS.get(state.game.name, ""),
        },
    ]


def lost_dice(state: GameState, viewer: int | None) -> list[Part]:
    """Lost Dice and Keldice: the throw on the table and every player's five columns."""
    game = state.game
    n = game.num_players
    parts: list[Part] = [{"type": "status", "text": state.render().split("\n")[0]}]
    if state.throw is not None:
        faces = [
            {"label": str(face.number), "colour": face.colour, "bonus": face.bonus}
            for face in game.table.faces[state.throw]
        ]
        parts.append(
            {
                "type": "dice",
                "faces": faces,
                "locked": 0,
                "count": len(faces),
                "note": "offered" if state.offered else "",
            }
        )
    rows = []
    for colour in range(NUM_COLOURS):
        cells = []
        for p in range(n):
            investments, numbers = state.column(p, colour)
            entries = " ".join(["$"] * investments + [str(v) for v in numbers])
            cells.append(f"{entries} = {state.column_points(p, colour)}" if entries else "·")
        rows.append([COLOUR_NAMES[colour], *cells])
    rows.append(["Score", *(str(int(s)) for s in state.scores())])
    if game.keldice:
        rows.append(["Stones / VP", *(f"{state.wishing_stones(p)} / {state.vp_symbols(p)}" for p in range(n))])
    rows.append(["Rolls left", *(str(state.rolls_left(p)) for p in range(n))])
    acting = state.acting_players()
    parts.append(
        {
            "type": "sheet",
            "players": [f"P{p}" for p in range(n)],
            "rows": rows,
            "to_act": acting[0] if acting else None,
            "marked": None,
            "legend": SHEET_LEGENDS[game.name],
        }
    )
    return parts


def invers(state: GameState, viewer: int | None) -> list[Part]:
    """Invers: the board, the tile in each hand and whose move it is."""
    names = ("Yellow", "Red")
    if state.is_terminal():
        status = state.render().split("\n")[-2]  # "Ply n: <the result>"
    else:
        status = f"Ply {state.ply}: {names[state.to_move]} (player {state.to_move}) to move"
    return [
        {"type": "status", "text": status},
        {
            "type": "board",
            "tiles": "".join(TILE_LETTERS[t] for t in state.board),
            "hands": [TILE_LETTERS[state.tile_in_hand(p)] for p in (0, 1)],
            "players": [f"P0 {names[0]}", f"P1 {names[1]}"],
            "to_move": None if state.is_terminal() else state.to_move,
        },
    ]


def roll_five(state: GameState, viewer: int | None) -> list[Part]:
    """Roll Five: each player's row of cards and dice, as ``viewer`` may see it.

    Another player's cards are face down (None) until the game is over; their roll
    and whether they have committed are not shown; the bids show at the reveal.
    """
    over = state.is_terminal()
    rows = []
    for p in range(state.game.num_players):
        own = viewer is None or p == viewer
        row = {
            "player": p,
            "cards": list(state.cards(p)) if own or over else [None] * len(state.dice(p)),
            "dice": list(state.dice(p)),
            "roll": list(state.current_roll(p)) if own and p in state.acting_players() else None,
            "committed": state.committed(p) if own else None,
        }
        if over:
            row["bid"] = BID_NAMES[state.bids()[p]]
            row["kept"] = int(state.scores()[p])
        rows.append(row)
    status = state.render_for(viewer).split("\n")[0] if viewer is not None else state.render().split("\n")[0]
    return [{"type": "status", "text": status}, {"type": "cards", "rows": rows, "viewer": viewer}]


#: The table of each game, by env name.
TABLES: dict[str, Callable[[GameState, int | None], list[Part]]] = {
    "inverted_dice": sheet_game,
    "six_hundred": sheet_game,
    "lost_dice": lost_dice,
    "keldice": lost_dice,
    "invers": invers,
    "roll_five": roll_five,
}


def table(env: str, state: GameState, viewer: int | None) -> list[Part]:
    """The parts that draw ``state`` of env ``env`` as ``viewer`` sees it."""
    return TABLES[env](state, viewer)


def inverted_dice_move(state: GameState, action: int) -> Part:
    """A reroll names the dice it rolls again (``reroll_positions``)."""
    return {"reroll": list(reroll_positions(action))} if action < NUM_REROLLS else {}


def six_hundred_move(state: GameState, action: int) -> Part:
    """A lock move names the dice it rolls again: the unlocked ones it does not lock."""
    return {"reroll": list(rolled_positions(action, len(state.locked)))} if action < NUM_LOCKS else {}


def invers_move(state: GameState, action: int) -> Part:
    """A push names the square off the board its tile comes from: one step back from the
    entry cell, against the direction the line moves (``LINES``: entry cell first)."""
    (row, column), (next_row, next_column) = (divmod(cell, SIZE) for cell in LINES[action][:2])
    return {"edge": [2 * row - next_row, 2 * column - next_column]}


#: What each game's legal moves carry besides their id and name, by env name.
MOVES: dict[str, Callable[[GameState, int], Part]] = {
    "inverted_dice": inverted_dice_move,
    "six_hundred": six_hundred_move,
    "invers": invers_move,
}


def move_fields(env: str, state: GameState, action: int) -> Part:
    """What the page needs to make legal move ``action`` of ``state`` on the table (none for most games)."""
    fields = MOVES.get(env)
    return fields(state, action) if fields else {}


def lost_dice_outcome(state: GameState, player: int, action: int) -> str:
    """What a Lost Dice or Keldice move brought: the throw a roll (or a Keldice extra roll after a
    play) threw, and the roll a pass spent; ``state`` is the state after the move."""
    if action == PASS:
        return f"a roll spent without throwing, {state.rolls_left(player)} left"
    if state.throw is None or state.offered or action in (TAKE, DECLINE):
        return ""  # no new throw: a take plays the offered throw, which the log already showed
    faces = " ".join(str(face) for face in state.game.table.faces[state.throw])
    return f"threw {faces}"


#: What each game's moves brought, told in the log (none for most games: their names say it all,
#: or the table shows it, as a roll of dice that stay on the table).
OUTCOMES: dict[str, Callable[[GameState, int, int], str]] = {
    "lost_dice": lost_dice_outcome,
    "keldice": lost_dice_outcome,
}


def move_outcome(env: str, state: GameState, player: int, action: int) -> str:
    """What ``player``'s move ``action`` brought, read off ``state``, the state right after it ("": nothing to tell)."""
    outcome = OUTCOMES.get(env)
    return outcome(state, player, action) if outcome else ""
