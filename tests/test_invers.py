"""Invers: the rules of docs/rules/invers.md, the observation, the env module and the bots."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envs
from agents.base import RandomAgent
from agents.invers.greedy import InversGreedy
from agents.invers.search import InversSearch
from agents.registry import make_agent
from envs import IllegalActionError, invers_v0
from envs.core import GameState
from envs.games.invers import (
    COLUMN_FROM_BOTTOM,
    COLUMN_FROM_TOP,
    DRAW,
    FAR_END,
    LINES,
    OBS_OPPONENT_HAND,
    OBS_OWN_HAND,
    OBS_PLIES,
    OBS_SEAT,
    OBS_TO_MOVE,
    RED,
    ROW_FROM_LEFT,
    ROW_FROM_RIGHT,
    YELLOW,
    Invers,
    InversState,
)

GAME = Invers()
CHECKERBOARD = """
    YRYRYR
    RYRYRY
    YRYRYR
    RYRYRY
    YRYRYR
    RYRYRY
"""


def position(board: str, hands: str = "yr", to_move: int = YELLOW, ply: int = 0, game: Invers = GAME) -> InversState:
    return InversState.from_position(game, board, hands, to_move, ply)


def with_row_1(row: str) -> str:
    """The set-up board with its first row replaced."""
    return row + "".join(CHECKERBOARD.split())[6:]


def play(game: Invers, agents, state: InversState | None = None) -> InversState:
    state = game.new_initial_state() if state is None else state
    while not state.is_terminal():
        p = state.to_move
        state.apply(p, agents[p].act(state.observe(p), state.legal_mask(p)))
    return state


# -- set-up ---------------------------------------------------------------------------
def test_initial_position_is_the_checkerboard_with_flipped_tiles_in_hand():
    state = GAME.new_initial_state(np.random.default_rng(0))
    assert state.board_text() == "\n".join(CHECKERBOARD.split())
    assert state.board[0] == YELLOW  # row 0, column 0 is yellow
    assert list(state.board).count(YELLOW) == list(state.board).count(RED) == 18
    assert state.tile_in_hand(YELLOW) == 2 and state.tile_in_hand(RED) == 3  # y and r
    assert state.acting_players() == (YELLOW,)
    assert state.flipped_tiles(YELLOW) == state.flipped_tiles(RED) == 1
    assert state.colour_side_up(YELLOW) == state.colour_side_up(RED) == 18
    assert state.legal_mask(YELLOW).tolist() == [1] * 24
    assert state.legal_mask(RED).tolist() == [0] * 24
    assert not state.is_terminal() and state.scores().tolist() == [1.0, 1.0]


def test_game_facts_and_options():
    assert (GAME.num_players, GAME.num_actions, GAME.observation_shape) == (2, 24, (151,))
    assert GAME.max_game_length == 400 and GAME.options() == {"num_players": 2, "max_plies": 400}
    assert "rgb_array" in GAME.render_modes
    with pytest.raises(ValueError, match="num_players"):
        Invers(num_players=3)
    with pytest.raises(ValueError, match="max_plies"):
        Invers(max_plies=0)
    with pytest.raises(TypeError, match="max_plies"):
        Invers(max_plies=2.5)


def test_action_names_and_lines_agree():
    assert GAME.action_name(ROW_FROM_LEFT + 2) == "row 3 →"
    assert GAME.action_name(ROW_FROM_RIGHT + 2) == "row 3 ←"
    assert GAME.action_name(COLUMN_FROM_TOP + 1) == "column 2 ↓"
    assert GAME.action_name(COLUMN_FROM_BOTTOM + 5) == "column 6 ↑"
    assert LINES[ROW_FROM_LEFT + 2] == (12, 13, 14, 15, 16, 17)
    assert LINES[ROW_FROM_RIGHT + 2] == (17, 16, 15, 14, 13, 12)
    assert LINES[COLUMN_FROM_TOP + 1] == (1, 7, 13, 19, 25, 31)
    assert LINES[COLUMN_FROM_BOTTOM + 5] == (35, 29, 23, 17, 11, 5)
    border = {r * 6 + c for r in range(6) for c in range(6) if r in (0, 5) or c in (0, 5)}
    assert set(FAR_END) == border and len(border) == 20


# -- a push ---------------------------------------------------------------------------
def test_push_shifts_the_line_and_the_fallen_tile_becomes_the_movers_flipped_tile():
    state = GAME.new_initial_state()
    state.apply(YELLOW, ROW_FROM_LEFT)  # row 1 →: R in column 6 falls out
    assert state.board_text().split("\n")[0] == "yYRYRY"
    assert state.board_text().split("\n")[1:] == CHECKERBOARD.split()[1:]
    assert state.tile_in_hand(YELLOW) == 3  # r: red, dot side up, now yellow's
    assert state.tile_in_hand(RED) == 3  # red's own hand untouched
    assert state.flipped_tiles(RED) == 2 and state.flipped_tiles(YELLOW) == 1
    assert state.acting_players() == (RED,) and state.ply == 1
    state.apply(RED, COLUMN_FROM_BOTTOM + 1)  # column 2 ↑: the shifted Y in row 1 falls out
    assert [row[1] for row in state.board_text().split("\n")] == list("YRYRYr")
    assert state.tile_in_hand(RED) == 2  # y: a yellow tile, dot side up, now red's
    assert state.flipped_tiles(YELLOW) == 2 and state.flipped_tiles(RED) == 2


@pytest.mark.parametrize(
    ("far_tile", "scores_after", "hand_after"),
    [
        ("Y", [2.0, 1.0], 2),  # own tile colour side up: flipped, one more for yellow
        ("y", [2.0, 1.0], 2),  # own flipped tile: stays dot side up, already counted
        ("R", [1.0, 2.0], 3),  # opponent's tile colour side up: flipped, one more for red
    ],
)
def test_legal_push_outs_flip_the_tile_into_the_movers_hand(far_tile, scores_after, hand_after):
    # Row 1 → pushes out column 6; hands hold y (yellow) and r (red).
    state = position(with_row_1("YRYRY" + far_tile))
    assert state.legal_mask(YELLOW)[ROW_FROM_LEFT] == 1
    state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.scores().tolist() == scores_after
    assert state.tile_in_hand(YELLOW) == hand_after  # dot side up, whatever its colour
    assert state.tile_in_hand(RED) == 3
    assert state.board_text().startswith("yYRYRY")  # yellow's y went in at column 1


def test_an_opponents_flipped_tile_may_not_be_pushed_out():
    state = position(with_row_1("YRYRYr"))
    assert state.legal_mask(YELLOW)[ROW_FROM_LEFT] == 0
    # A corner is the far end of two pushes: column 6 ↑ is blocked by the same r.
    assert state.legal_mask(YELLOW)[COLUMN_FROM_BOTTOM + 5] == 0 and state.legal_mask(YELLOW).sum() == 22
    with pytest.raises(IllegalActionError, match="row 1 →"):
        state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.board_text().startswith("YRYRYr") and state.ply == 0
    red_view = position(with_row_1("YRYRYy"), to_move=RED)
    assert red_view.legal_mask(RED)[ROW_FROM_LEFT] == 0 and red_view.legal_mask(RED)[COLUMN_FROM_BOTTOM + 5] == 0


def test_pushing_back_needs_the_far_tile_not_to_be_the_opponents_flipped_tile():
    state = GAME.new_initial_state()
    state.apply(YELLOW, ROW_FROM_LEFT)  # yellow's y now sits in row 1, column 1
    assert state.legal_mask(RED)[ROW_FROM_RIGHT] == 0  # red may not push that y out
    state.apply(RED, ROW_FROM_RIGHT + 1)
    state.apply(YELLOW, ROW_FROM_RIGHT)  # yellow may push its own y straight back out
    assert state.tile_in_hand(YELLOW) == 2 and state.flipped_tiles(YELLOW) == 1


# -- endings --------------------------------------------------------------------------
# Real tile counts: 19 a colour, one of each in a hand (y, r) and 18 on the board.
YELLOW_LAST_TILE_IN_CORNER = "yyyyyY" + "RyRyRy" * 4 + "RRRRRR"
RED_LAST_TILE_IN_CORNER = "rrrrrR" + "YrYrYr" * 4 + "YYYYYY"


def test_win_positions_have_the_real_tile_counts():
    for board in (YELLOW_LAST_TILE_IN_CORNER, RED_LAST_TILE_IN_CORNER):
        assert board.lower().count("y") == board.lower().count("r") == 18


def test_the_mover_wins_by_flipping_their_last_tile():
    board = YELLOW_LAST_TILE_IN_CORNER
    state = position(board, to_move=YELLOW)
    state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.is_terminal() and not state.is_truncated()
    assert state.winner == YELLOW and state.returns().tolist() == [1.0, -1.0]
    assert state.acting_players() == () and state.legal_mask(RED).sum() == 0
    assert state.flipped_tiles(YELLOW) == 19


def test_the_opponent_wins_when_the_mover_flips_their_last_tile():
    board = RED_LAST_TILE_IN_CORNER
    state = position(board, to_move=YELLOW)
    state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.is_terminal() and state.winner == RED
    assert state.returns().tolist() == [-1.0, 1.0]


BLOCKING_PUSH_BOARD = """
    Rrrrrr
    rYyyyr
    ryRyyr
    ryyyyr
    ryyyyr
    rrrrrr
"""


def test_a_player_left_without_a_push_ends_the_game_and_more_flipped_tiles_win():
    # Red's column 1 ↑ puts a red flipped tile on every border cell: yellow cannot push.
    # Such positions need 20 red tiles, more than the game has (see the env card).
    state = position(BLOCKING_PUSH_BOARD, hands="yr", to_move=RED)
    assert not state.is_terminal()
    state.apply(RED, COLUMN_FROM_BOTTOM)
    assert state.is_terminal() and not state.is_truncated()
    assert state.scores().tolist() == [15.0, 21.0]
    assert state.winner == RED and state.returns().tolist() == [-1.0, 1.0]
    assert state.colour_side_up(YELLOW) == 1 and state.colour_side_up(RED) == 1  # no flip-out win


def test_a_blocked_position_is_over_as_soon_as_it_is_built():
    blocked = "rrrrrr" + "rYyRyr" + "ryyyyr" * 3 + "rrrrrr"
    state = position(blocked, to_move=YELLOW)
    assert state.is_terminal() and state.winner == RED
    assert state.legal_mask(YELLOW).sum() == 0
    not_blocked = position(blocked, to_move=RED)
    assert not not_blocked.is_terminal() and not_blocked.legal_mask(RED).sum() == 24


def test_a_position_already_flipped_out_is_won():
    state = position("yyyyyy" + "RyRyRy" * 4 + "RRRRRR")
    assert state.is_terminal() and state.winner == YELLOW
    with pytest.raises(ValueError, match="both colours"):
        position("yr" * 18)


def test_truncation_at_max_plies_is_a_draw():
    game = Invers(max_plies=3)
    state = game.new_initial_state()
    for player, action in ((YELLOW, 0), (RED, 1), (YELLOW, 2)):
        assert not state.is_terminal()
        state.apply(player, action)
    assert state.is_terminal() and state.is_truncated()
    assert state.winner == DRAW and state.returns().tolist() == [0.0, 0.0]
    assert state.scores().tolist() == [2.0, 3.0]  # scores still differ: truncation ignores them


def test_a_rule_ending_on_the_last_ply_beats_truncation():
    game = Invers(max_plies=10)
    state = position(YELLOW_LAST_TILE_IN_CORNER, ply=9, game=game)
    state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.is_terminal() and not state.is_truncated() and state.winner == YELLOW


def test_truncation_through_the_aec_env():
    env = invers_v0.env(max_plies=2)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    _, reward, termination, truncation, _ = env.last()
    assert truncation and not termination and reward == 0.0
    assert all(env.truncations.values()) and not any(env.terminations.values())


# -- errors ---------------------------------------------------------------------------
def test_illegal_actions_raise_clear_errors():
    state = GAME.new_initial_state()
    with pytest.raises(IllegalActionError, match="outside the action space 0..23"):
        state.apply(YELLOW, 24)
    with pytest.raises(IllegalActionError, match="player 1 is not to act"):
        state.apply(RED, 0)
    with pytest.raises(IllegalActionError, match="integer id"):
        state.apply(YELLOW, "row 1")
    state.apply(YELLOW, np.int64(ROW_FROM_LEFT))  # numpy integers are fine
    with pytest.raises(IllegalActionError, match=r"action 6 \(row 1 ←\) is illegal for player 1"):
        state.apply(RED, ROW_FROM_RIGHT)
    won = position(YELLOW_LAST_TILE_IN_CORNER)
    won.apply(YELLOW, 0)
    with pytest.raises(IllegalActionError, match="the game is over"):
        won.apply(RED, 0)


@pytest.mark.parametrize(
    ("board", "hands", "message"),
    [
        ("YR" * 17, "yr", "36 letters"),
        ("YX" * 18, "yr", "36 letters"),
        (CHECKERBOARD, "Yr", "dot side up"),
        (CHECKERBOARD, "y", "two letters"),
    ],
)
def test_bad_positions_are_refused(board, hands, message):
    with pytest.raises(ValueError, match=message):
        position(board, hands)


def test_bad_to_move_and_ply_are_refused():
    with pytest.raises(ValueError, match="to_move"):
        position(CHECKERBOARD, to_move=2)
    with pytest.raises(ValueError, match="ply"):
        position(CHECKERBOARD, ply=401)


# -- observation ----------------------------------------------------------------------
def planes(obs: np.ndarray) -> np.ndarray:
    return obs[:144].reshape(4, 6, 6)


def test_observation_planes_of_the_set_up():
    state = GAME.new_initial_state()
    obs = state.observe(YELLOW)
    assert obs.dtype == np.float32 and obs.shape == (151,)
    own, own_flipped, theirs, theirs_flipped = planes(obs)
    assert own[0, 0] == 1 and theirs[0, 1] == 1 and own.sum() == theirs.sum() == 18
    assert own_flipped.sum() == theirs_flipped.sum() == 0
    assert obs[OBS_OWN_HAND : OBS_OWN_HAND + 2].tolist() == [1, 0]
    assert obs[OBS_OPPONENT_HAND : OBS_OPPONENT_HAND + 2].tolist() == [0, 1]
    assert (obs[OBS_TO_MOVE], obs[OBS_SEAT], obs[OBS_PLIES]) == (1, 0, 0)


def test_swapping_the_observer_swaps_the_planes_and_hands():
    state = GAME.new_initial_state()
    for action in (ROW_FROM_LEFT, COLUMN_FROM_TOP + 3, ROW_FROM_RIGHT + 4):
        state.apply(state.to_move, action)
    yellow, red = state.observe(YELLOW), state.observe(RED)
    assert np.array_equal(planes(yellow)[[2, 3, 0, 1]], planes(red))
    assert planes(yellow)[1].sum() > 0 and planes(yellow)[3].sum() > 0  # flips on both sides
    # The hand one-hots say own / opponent's colour, so they swap as well.
    assert (
        yellow[OBS_OWN_HAND : OBS_OWN_HAND + 2].tolist()
        == red[OBS_OPPONENT_HAND : OBS_OPPONENT_HAND + 2][::-1].tolist()
    )
    assert (
        yellow[OBS_OPPONENT_HAND : OBS_OPPONENT_HAND + 2].tolist()
        == red[OBS_OWN_HAND : OBS_OWN_HAND + 2][::-1].tolist()
    )
    assert (red[OBS_TO_MOVE], yellow[OBS_TO_MOVE]) == (1, 0)  # after three plies red moves
    assert (red[OBS_SEAT], yellow[OBS_SEAT]) == (1, 0)
    assert red[OBS_PLIES] == yellow[OBS_PLIES] == pytest.approx(3 / 400)


def test_the_state_is_rebuilt_from_any_observation():
    rng = np.random.default_rng(3)
    state = GAME.new_initial_state()
    while not state.is_terminal():
        for player in (YELLOW, RED):
            rebuilt = InversState.from_observation(GAME, state.observe(player))
            assert rebuilt.board == state.board and rebuilt.to_move == state.to_move
            assert [rebuilt.tile_in_hand(p) for p in (0, 1)] == [state.tile_in_hand(p) for p in (0, 1)]
            assert rebuilt.ply == state.ply and rebuilt.scores().tolist() == state.scores().tolist()
        state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))
    final = InversState.from_observation(GAME, state.observe(YELLOW))
    assert final.is_terminal() and final.winner == state.winner
    with pytest.raises(ValueError, match="shape"):
        InversState.from_observation(GAME, np.zeros(150, np.float32))


def test_clone_shares_nothing_mutable():
    state = GAME.new_initial_state()
    copy = state.clone()
    copy.apply(YELLOW, ROW_FROM_LEFT)
    assert state.board_text() == "\n".join(CHECKERBOARD.split())
    assert state.ply == 0 and state.tile_in_hand(YELLOW) == 2 and state.scores().tolist() == [1.0, 1.0]


# -- rendering ------------------------------------------------------------------------
def test_text_render_shows_tiles_hands_and_the_mover():
    state = GAME.new_initial_state()
    state.apply(YELLOW, ROW_FROM_LEFT)
    text = state.render()
    assert " 1  y Y R Y R Y" in text
    assert "yellow holds r, red holds r" in text and "red (player 1) to move" in text


def test_rgb_render_is_an_image_with_the_tile_colours():
    env = invers_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > image.shape[1] >= 6 * 20
    corner = image[25, 25].tolist()  # middle of the yellow tile in row 1, column 1
    neighbour = image[25, 65].tolist()  # the red tile next to it
    assert corner[0] > 200 and corner[1] > 150 and neighbour[0] > 150 and neighbour[1] < 80


# -- env module and rewards -----------------------------------------------------------
def test_env_module_is_registered():
    assert envs.ENVS["invers"].module == "envs.invers_v0"
    env = gymnasium.make("Invers-v0")
    obs, info = env.reset(seed=1)
    assert obs.shape == (151,) and info["action_mask"].shape == (24,)


def test_score_rewards_pay_the_owner_of_the_flipped_colour():
    env = invers_v0.env(reward_mode="score")
    env.reset(seed=0)
    env.step(ROW_FROM_LEFT)  # yellow flips a red tile: red is paid
    # The first step also pays each player the flipped tile in hand it starts with
    # (rewards are paid from zero, so that an episode's return is the final score).
    assert env.rewards == {"player_0": 1.0, "player_1": 2.0}
    env.step(ROW_FROM_LEFT + 1)
    assert set(env.rewards.values()) <= {0.0, 1.0}  # from then on, only changes


# -- bots -----------------------------------------------------------------------------
def test_bots_take_the_winning_push_when_there_is_one():
    # Yellow's last Y lies in row 1, column 3: only column 3 ↑ pushes it out.
    state = position("yyYyyy" + "RyRyRy" * 4 + "RRRRRR")
    obs, mask = state.observe(YELLOW), state.legal_mask(YELLOW)
    for seed in range(3):
        assert InversSearch(GAME, seed=seed).act(obs, mask) == COLUMN_FROM_BOTTOM + 2
        assert InversGreedy(GAME, seed=seed).act(obs, mask) == COLUMN_FROM_BOTTOM + 2


def test_bots_refuse_to_move_out_of_turn():
    state = GAME.new_initial_state()
    with pytest.raises(ValueError, match="not this player's turn"):
        InversGreedy(GAME).act(state.observe(RED), state.legal_mask(RED))


def test_search_options_are_checked():
    with pytest.raises(ValueError, match="depth"):
        InversSearch(GAME, depth=0)
    with pytest.raises(ValueError, match="time_limit"):
        InversSearch(GAME, time_limit=0)
    assert make_agent("invers", "search:depth=2", GAME).depth == 2


def match(bot: str, opponent: str, games: int) -> int:
    """Games ``bot`` wins out of ``games`` against ``opponent``, seats swapped each game."""
    wins = 0
    for g in range(games):
        a, b = make_agent("invers", bot, GAME, seed=2 * g), make_agent("invers", opponent, GAME, seed=2 * g + 1)
        seat = g % 2
        final = play(GAME, [a, b] if seat == 0 else [b, a])
        wins += final.returns()[seat] > 0
    return wins


def test_search_beats_random_nearly_always():
    assert match("search", "random", 20) >= 19


def test_search_beats_greedy_mostly():
    assert match("search", "greedy", 20) >= 15


def test_greedy_beats_random_mostly():
    assert match("greedy", "random", 40) >= 32


def test_random_agent_plays_legal_pushes_to_the_end():
    final = play(GAME, [RandomAgent(GAME, seed=1), RandomAgent(GAME, seed=2)])
    assert final.is_terminal() and final.winner in (YELLOW, RED, DRAW)


# -- search support: all children at once, symmetries, the teacher's values ----------------
def _random_positions(game: Invers, games: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield state
            state = state.clone()
            state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))


@pytest.mark.parametrize("max_plies", [400, 25])
def test_children_on_arrays_match_cloning_and_applying(max_plies):
    game = Invers(max_plies=max_plies)
    positions = list(_random_positions(game, 12))
    positions.append(position(BLOCKING_PUSH_BOARD, hands="yr", to_move=RED))  # a push that blocks yellow
    positions.append(position(YELLOW_LAST_TILE_IN_CORNER, ply=9, game=Invers(max_plies=10)))  # a win on the last ply
    decided = 0
    for state in positions:
        fast, slow = state.children(state.to_move), GameState.children(state, state.to_move)
        for name, a, b in zip(fast._fields, fast, slow):
            assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), name
        decided += int((fast.movers < 0).sum())
    assert decided > 0  # the endings were exercised
    assert GAME.new_initial_state().children(RED).actions.size == 0  # not red's turn


def test_symmetries_map_positions_moves_and_masks_consistently():
    symmetries = GAME.symmetries()
    assert len(symmetries) == 7
    for state in list(_random_positions(GAME, 2))[::7]:
        me = state.to_move
        observation, mask = state.observe(me), state.legal_mask(me)
        for observation_index, action_index in symmetries:
            assert sorted(observation_index) == list(range(len(observation))) and sorted(action_index) == list(
                range(24)
            )
            turned = InversState.from_observation(GAME, observation[observation_index])
            assert np.array_equal(turned.legal_mask(me), mask[action_index])
            for action in np.flatnonzero(turned.legal_mask(me)).tolist():
                original, image = state.clone(), turned.clone()
                original.apply(me, int(action_index[action]))
                image.apply(me, action)
                assert np.array_equal(original.observe(me)[observation_index], image.observe(me))
                assert original.scores().tolist() == image.scores().tolist()


def test_search_move_values_are_exact_outcome_estimates_and_symmetric():
    bot = InversSearch(GAME, seed=0, depth=2)
    state = list(_random_positions(GAME, 1, seed=3))[12]
    values = bot.move_values(state)
    assert sorted(values) == np.flatnonzero(state.legal_mask(state.to_move)).tolist()
    assert all(-1.0 <= v <= 1.0 for v in values.values())
    chosen = bot.act(state.observe(state.to_move), state.legal_mask(state.to_move))
    assert values[chosen] == max(values.values())
    observation_index, action_index = GAME.symmetries()[4]
    turned = InversState.from_observation(GAME, state.observe(state.to_move)[observation_index])
    turned_values = bot.move_values(turned)
    for action, value in turned_values.items():
        assert value == pytest.approx(values[int(action_index[action])])
    won = position(YELLOW_LAST_TILE_IN_CORNER)
    assert max(bot.move_values(won).values()) == 1.0
    with pytest.raises(ValueError, match="game is over"):
        bot.move_values(_finished())


def _finished() -> InversState:
    state = position(YELLOW_LAST_TILE_IN_CORNER)
    state.apply(YELLOW, ROW_FROM_LEFT)
    assert state.is_terminal()
    return state


def test_a_wrong_player_count_names_the_only_one_invers_takes():
    with pytest.raises(ValueError, match=r"^invers: num_players must be 2, got 3$"):
        Invers(num_players=3)
