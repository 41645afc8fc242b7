"""Lost Dice and Keldice: the rule texts' worked examples, scoring, offers, turn order and dice files."""

from __future__ import annotations

import csv

import gymnasium
import numpy as np
import pytest
import yaml

import envs  # noqa: F401  (registers the envs)
from agents.base import Agent, RandomAgent
from agents.lost_dice.heuristic import LostDiceHeuristic
from agents.lost_dice.position import read_position
from agents.lost_dice.search import LostDiceSearch
from agents.registry import make_agent
from envs import IllegalActionError, keldice_v0, lost_dice_v0
from envs.games import lost_dice as rules
from envs.games.lost_dice import (
    DECLINE,
    DISCARD,
    OFFER,
    PASS,
    PLAY,
    PLAY_THROW,
    ROLL,
    TAKE,
    TURN_START,
    Keldice,
    LostDice,
    keldice_column_points,
    keldice_stone_points,
    lost_dice_column_points,
    play_action,
)
from envs.games.lost_dice_faces import COLOURS, DiceFileError
from training import train
from training.evaluation.harness import evaluate_pairing

R, Y, B, G, W = range(5)


def legal(state, player) -> list[int]:
    return np.flatnonzero(state.legal_mask(player)).tolist()


def described_plays(game, state, player) -> set[str]:
    """What each legal play action of the throw on the table would write."""
    slots = game.table.by_slot[state.throw]
    return {game.describe_play(slots[a - PLAY]) for a in legal(state, player) if a >= PLAY}


def env_with_tape(module, tape_faces, **options):
    """A PettingZoo env whose next game deals ``tape_faces`` (per player, throws as faces)."""
    env = module.env(**options)
    game = env.unwrapped.game
    tape = [[game.throw(*faces) for faces in row] for row in tape_faces]
    game.new_initial_state = lambda rng: game.new_state_from_tape(tape)
    env.reset(seed=0)
    return env, game


def action_for(game, state, description: str) -> int:
    """The legal play action that writes ``description`` (e.g. "Yellow 9")."""
    slots = game.table.by_slot[state.throw]
    for a in legal(state, state.acting_players()[0]):
        if a >= PLAY and game.describe_play(slots[a - PLAY]) == description:
            return a
    raise AssertionError(f"no legal play writes {description!r}")


# -- the worked examples of the rule texts, through the env ------------------------------------


@pytest.mark.parametrize(
    "faces, expected",
    [
        # "2 4 5 → Yellow 9, Green 7 or White 6"
        (("4/G", "2/Y", "5/W"), {"Yellow 9", "Green 7", "White 6"}),
        # "1 3 5 → Red 8, Blue 6, or 4 in any colour" (the 5 is black)
        (("1/R", "5/K", "3/B"), {"Red 8", "Blue 6"} | {f"{c} 4" for c in ("Red", "Yellow", "Blue", "Green", "White")}),
        # "2 3 $ → a Yellow investment, a Blue investment, or 5 in any colour"
        (
            ("$/K", "2/Y", "3/B"),
            {"Yellow investment", "Blue investment"} | {f"{c} 5" for c in ("Red", "Yellow", "Blue", "Green", "White")},
        ),
    ],
)
def test_lost_dice_worked_examples(faces, expected):
    env, game = env_with_tape(lost_dice_v0, [[faces], [faces]])
    env.step(ROLL)
    state = env.unwrapped.game_state
    assert state.phase == PLAY_THROW and described_plays(game, state, 0) == expected
    observation = env.observe("player_0")["observation"]
    values = observation[rules.OBS_PLAY_VALUES] * rules.MAX_VALUE
    investments = observation[rules.OBS_PLAY_INVESTMENTS]
    for a in legal(state, 0):
        if a >= PLAY:
            play = game.table.by_slot[state.throw][a - PLAY]
            assert (investments[a - PLAY] == 1) == (play.value == rules.INVESTMENT)
            assert round(values[a - PLAY]) == (0 if play.value == rules.INVESTMENT else play.value)


def test_keldice_worked_example_with_the_wishing_stone():
    # "4 5 2 → Red 7, Blue 6, or 9 in any colour; Blue 6 earns a wishing stone (4 and 2 show it)"
    faces = ("2/K/S", "4/R/S", "5/B/V")
    env, game = env_with_tape(keldice_v0, [[faces], [faces]])
    env.step(ROLL)
    state = env.unwrapped.game_state
    nines = {f"{c} 9" for c in ("Red", "Yellow", "Blue", "Green", "White")}
    assert described_plays(game, state, 0) == {"Red 7", "Blue 6 + wishing stone"} | nines
    before = state.scores()[0]
    env.step(action_for(game, state, "Blue 6 + wishing stone"))
    assert state.wishing_stones(0) == 1 and state.column(0, B) == (0, (6,))
    # One stone scores -3 instead of -4; one number in a colour scores -4.
    assert state.scores()[0] - before == (-3 - -4) + -4


# -- scoring --------------------------------------------------------------------------------


def test_lost_dice_column_scoring():
    assert lost_dice_column_points(0, 0, 0) == 0  # an empty colour scores nothing
    assert lost_dice_column_points(0, 0, 1) == -40  # an investment alone: (0 - 20) x 2
    assert lost_dice_column_points(27, 4, 0) == 7
    assert lost_dice_column_points(27, 4, 2) == 21  # (27 - 20) x 3
    assert lost_dice_column_points(12, 3, 1) == -16  # losses multiply too
    assert lost_dice_column_points(44, 7, 0) == 24  # seven entries: no bonus
    assert lost_dice_column_points(44, 7, 1) == 24 * 2 + 20  # 7 numbers and 1 investment: eight entries
    assert lost_dice_column_points(40, 7, 0) == 20


def test_lost_dice_scores_through_play():
    throws = [("$/K", "2/Y", "3/B"), ("4/G", "2/Y", "5/W"), ("1/R", "5/K", "3/B")]
    game = LostDice(num_players=1)
    state = game.new_state_from_tape([[game.throw(*t) for t in throws]])
    for description in ("Yellow investment", "Yellow 9", "Red 8"):
        state.apply(0, ROLL)
        state.apply(0, action_for(game, state, description))
    assert state.column(0, Y) == (1, (9,)) and state.column(0, R) == (0, (8,))
    assert state.scores()[0] == (9 - 20) * 2 + (8 - 20)


def test_keldice_scoring_tables():
    assert [keldice_column_points(n) for n in range(9)] == [0, -4, -3, 2, 3, 6, 10, 10, 10]
    assert [keldice_stone_points(n) for n in range(8)] == [-4, -3, 2, 3, 6, 10, 10, 10]
    game = Keldice(num_players=1)
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.scores()[0] == -4  # no wishing stone yet


def test_keldice_columns_run_up_or_down_fixed_by_the_second_number():
    cases = {  # the column's numbers -> values that may follow
        (): set(range(2, 13)),
        (6,): set(range(2, 13)) - {6},
        (6, 4): {2, 3},
        (6, 8): set(range(9, 13)),
    }
    for numbers, allowed in cases.items():
        direction = 0 if len(numbers) < 2 else (1 if numbers[1] > numbers[0] else -1)
        last = numbers[-1] if numbers else 0
        got = {v for v in range(2, 13) if rules.writable(last, len(numbers), 0, direction, v, True)}
        assert got == allowed, numbers


def test_lost_dice_columns_rise_and_investments_come_early():
    assert {v for v in range(2, 13) if rules.writable(6, 2, 0, 0, v, False)} == set(range(7, 13))
    assert rules.writable(6, 2, 2, 0, rules.INVESTMENT, False)  # two numbers, two investments: one more
    assert not rules.writable(6, 2, 3, 0, rules.INVESTMENT, False)  # at most three investments
    assert not rules.writable(7, 3, 0, 0, rules.INVESTMENT, False)  # three numbers: too late


# -- turn start, offers, pass, forced discard ------------------------------------------------

YELLOW_9 = ("4/G", "2/Y", "5/W")
RED_8 = ("1/R", "5/K", "3/B")


def test_two_players_offer_taken_is_the_next_turns_first_decision():
    game = LostDice()
    state = game.new_state_from_tape([[game.throw(*YELLOW_9)] * 3, [game.throw(*RED_8)] * 3])
    state.apply(0, ROLL)
    state.apply(0, DISCARD)
    assert state.acting_players() == (1,) and state.phase == TURN_START and state.offered
    assert legal(state, 1) == [ROLL, PASS, TAKE]
    state.apply(1, TAKE)
    assert state.rolls_left(1) == 24  # taking counts as a roll
    assert DISCARD not in legal(state, 1)  # a taken throw must be played
    state.apply(1, action_for(game, state, "Yellow 9"))
    assert state.column(1, Y) == (0, (9,))
    assert state.acting_players() == (0,) and state.phase == TURN_START and not state.offered


def test_two_players_offer_declined_by_rolling_or_passing():
    game = LostDice()
    state = game.new_state_from_tape([[game.throw(*YELLOW_9)] * 3, [game.throw(*RED_8)] * 3])
    state.apply(0, ROLL)
    state.apply(0, DISCARD)
    state.apply(1, ROLL)  # declines by rolling: player 1's own throw
    assert state.throw == game.throw(*RED_8) and not state.offered
    state.apply(1, DISCARD)
    state.apply(0, PASS)  # declines by passing: no roll, nothing offered
    assert state.rolls_left(0) == 23 and state.acting_players() == (1,) and not state.offered
    assert legal(state, 1) == [ROLL, PASS]


def test_an_offer_nobody_can_use_is_not_made():
    game = LostDice()
    state = game.new_state_from_tape([[game.throw(*YELLOW_9)] * 5, [game.throw(*YELLOW_9)] * 5])
    state.apply(0, ROLL)
    state.apply(0, action_for(game, state, "Yellow 9"))
    state.apply(1, ROLL)
    state.apply(1, action_for(game, state, "Yellow 9"))
    state.apply(0, ROLL)
    state.apply(0, action_for(game, state, "Green 7"))
    state.apply(1, ROLL)
    state.apply(1, action_for(game, state, "Green 7"))
    state.apply(0, ROLL)  # Yellow 9, Green 7 taken; White 6 left
    state.apply(0, action_for(game, state, "White 6"))
    state.apply(1, ROLL)
    state.apply(1, action_for(game, state, "White 6"))
    state.apply(0, ROLL)  # nothing left to write: the discard is forced
    assert legal(state, 0) == [DISCARD]
    state.apply(0, DISCARD)
    assert legal(state, 1) == [ROLL, PASS]  # player 1 cannot use it either: no offer


def three_player_state():
    game = LostDice(num_players=3)
    throw = game.throw(*YELLOW_9)
    state = game.new_state_from_tape([[throw] * 4, [game.throw(*RED_8)] * 4, [throw] * 4])
    state.apply(0, ROLL)
    state.apply(0, DISCARD)
    return game, state


def test_three_players_offer_goes_round_from_the_left_and_a_taker_skips_a_turn():
    game, state = three_player_state()
    assert state.acting_players() == (1,) and state.phase == OFFER and legal(state, 1) == [TAKE, DECLINE]
    state.apply(1, DECLINE)
    assert state.acting_players() == (2,) and state.phase == OFFER
    state.apply(2, TAKE)  # out of turn
    assert state.rolls_left(2) == 19
    state.apply(2, action_for(game, state, "Yellow 9"))
    assert state.acting_players() == (1,) and state.phase == TURN_START  # player 1's turn as usual
    state.apply(1, ROLL)
    state.apply(1, action_for(game, state, "Red 8"))
    assert state.acting_players() == (0,)  # player 2 skips the turn the take used
    assert [state.rolls_left(p) for p in range(3)] == [19, 19, 19]


def test_three_players_the_left_neighbour_taking_it_uses_their_turn():
    game, state = three_player_state()
    state.apply(1, TAKE)
    state.apply(1, action_for(game, state, "Yellow 9"))
    assert state.acting_players() == (2,) and state.phase == TURN_START
    assert [state.rolls_left(p) for p in range(3)] == [19, 19, 20]


def test_three_players_offer_declined_by_all():
    game, state = three_player_state()
    state.apply(1, DECLINE)
    state.apply(2, DECLINE)
    assert state.acting_players() == (1,) and state.phase == TURN_START and legal(state, 1) == [ROLL, PASS]


def test_solitaire_discards_are_offered_to_no_one():
    game = LostDice(num_players=1)
    state = game.new_state_from_tape([[game.throw(*YELLOW_9)] * 2])
    state.apply(0, ROLL)
    state.apply(0, DISCARD)
    assert state.acting_players() == (0,) and legal(state, 0) == [ROLL, PASS]


def test_the_aec_env_moves_agent_selection_to_the_player_asked():
    env, game = env_with_tape(lost_dice_v0, [[YELLOW_9] * 4, [RED_8] * 4, [YELLOW_9] * 4], num_players=3)
    env.step(ROLL)
    env.step(DISCARD)
    assert env.agent_selection == "player_1"
    env.step(DECLINE)
    assert env.agent_selection == "player_2"
    observation = env.observe("player_2")["observation"]
    assert observation[rules.OBS_PHASE][OFFER] == 1 and observation[rules.OBS_OFFERED] == 1
    # Blocks run from the observer round the table: seats 2, 0, 1; seat 0 discarded.
    assert observation[rules.GLOBAL_SIZE + 1 * rules.PLAYER_SIZE + rules.PL_DISCARDER] == 1


class Recorder(Agent):
    """Takes every offer, otherwise plays the first legal action; notes what it was asked."""

    def __init__(self, game, log, seat):
        self.log, self.seat = log, seat
        super().__init__(game)

    def act(self, observation, action_mask):
        self.log.append((self.seat, int(np.argmax(observation[rules.OBS_PHASE]))))
        return TAKE if action_mask[TAKE] else int(np.flatnonzero(action_mask)[0])


def test_the_gymnasium_env_hands_each_offer_to_the_seat_asked():
    log: list[tuple[int, int]] = []
    game = LostDice(num_players=3)
    opponents = [Recorder(game, log, 0), Recorder(game, log, 2)]
    env = gymnasium.make("LostDice-v0", num_players=3, learner_seat=1, opponents=opponents).unwrapped
    observation, info = env.reset(seed=3)
    learner_offers = opponent_offers = 0
    terminated = False
    while not terminated:
        if observation[rules.OBS_PHASE][OFFER]:
            learner_offers += 1
            assert observation[rules.OBS_TO_ACT] == 1 and info["action_mask"][TAKE]
            action = DECLINE
        else:
            action = DISCARD if info["action_mask"][DISCARD] else int(np.flatnonzero(info["action_mask"])[0])
        observation, _, terminated, _, info = env.step(action)
    opponent_offers = sum(phase == OFFER for _, phase in log)
    assert learner_offers > 0 and opponent_offers > 0  # the learner is asked out of turn, so are the opponents
    assert {seat for seat, phase in log if phase == OFFER} <= {0, 2}


def test_pass_uses_a_roll_and_offers_nothing():
    game = LostDice()
    state = game.new_state_from_tape([[0], [0]])
    state.apply(0, PASS)
    assert state.rolls_left(0) == 24 and state.acting_players() == (1,) and legal(state, 1) == [ROLL, PASS]


# -- roll counts, game end, extra roll --------------------------------------------------------


@pytest.mark.parametrize(
    "game_class, num_players, rolls",
    [
        (LostDice, 1, 30),
        (LostDice, 2, 25),
        (LostDice, 3, 20),
        (LostDice, 4, 20),
        (Keldice, 1, 20),
        (Keldice, 2, 20),
        (Keldice, 4, 20),
    ],
)
def test_every_player_uses_exactly_their_rolls_and_then_the_game_ends(game_class, num_players, rolls):
    game = game_class(num_players=num_players)
    assert game.rolls_per_player == rolls
    rng = np.random.default_rng(num_players)
    for seed in range(5):
        state = game.new_initial_state(np.random.default_rng(seed))
        used = [0] * num_players
        while not state.is_terminal():
            (player,) = state.acting_players()
            action = int(rng.choice(legal(state, player)))
            if action in (ROLL, PASS, TAKE):
                used[player] += 1
            state.apply(player, action)
        assert used == [rolls] * num_players
        assert all(state.rolls_left(p) == 0 for p in range(num_players))


def test_rolls_per_player_option():
    assert LostDice(num_players=2, rolls_per_player=7).rolls_per_player == 7
    with pytest.raises(ValueError, match="rolls_per_player"):
        LostDice(rolls_per_player=0)
    with pytest.raises(ValueError, match="variant"):
        LostDice(variant="lost_cities")


def test_keldice_extra_roll_is_taken_at_once_and_not_counted():
    game = Keldice(num_players=2)
    # Die 1 4/G/E and die 2 1/B/E as the value dice: an extra roll (colour from die 3).
    extra = game.throw("4/G/E", "1/B/E", "1/Y/S")
    then = game.throw("2/K/S", "4/R/S", "5/B/V")
    state = game.new_state_from_tape([[extra, then], [then]])
    state.apply(0, ROLL)
    assert "Yellow 5 + extra roll" in described_plays(game, state, 0)
    state.apply(0, action_for(game, state, "Yellow 5 + extra roll"))
    assert state.acting_players() == (0,) and state.phase == PLAY_THROW and state.throw == then
    assert state.rolls_left(0) == 19  # the extra roll did not use one of the 20
    state.apply(0, action_for(game, state, "Red 7"))
    assert state.acting_players() == (1,)


# -- dice files -------------------------------------------------------------------------------

GOOD = ["$/K", "5/Y", "4/G", "1/R", "3/W", "2/B"]


def write_dice(tmp_path, dice, variant="lost_dice"):
    path = tmp_path / "dice.yaml"
    path.write_text(yaml.safe_dump({"variant": variant, "dice": dice}))
    return path


@pytest.mark.parametrize(
    "die_2, message",
    [
        (GOOD[:5], r"die 2: expected 6 faces, got 5"),
        (["5/K", "4/B", "3/P", "2/Y", "1/W", "5/R"], r"die 2, face 3: unknown colour 'P'"),
        (["5/K", "4/B", "3/G", "9/Y", "1/W", "5/R"], r"die 2, face 4: number must be 1..6"),
        (["5/K", "4/B", "3/G", "2/Y", "1/W", "5"], r"die 2, face 6: expected 'number/colour'"),
    ],
)
def test_a_malformed_dice_file_names_the_file_the_die_and_the_face(tmp_path, die_2, message):
    path = write_dice(tmp_path, [GOOD, die_2, GOOD])
    with pytest.raises(DiceFileError, match=message) as error:
        lost_dice_v0.env(dice_file=path)
    assert str(path) in str(error.value)


def test_keldice_dice_files_have_symbols_and_no_investments(tmp_path):
    keldice_die = ["1/W/-", "2/K/S", "2/R/S", "3/B/V", "4/G/E", "5/Y/V"]
    with pytest.raises(DiceFileError, match=r"die 1, face 1: Keldice has no investments"):
        Keldice(dice_file=write_dice(tmp_path, [["$/K/-"] + keldice_die[1:], keldice_die, keldice_die], "keldice"))
    with pytest.raises(DiceFileError, match=r"die 3, face 2: unknown bonus symbol 'X'"):
        Keldice(
            dice_file=write_dice(tmp_path, [keldice_die, keldice_die, ["1/W/-", "2/K/X"] + keldice_die[2:]], "keldice")
        )
    with pytest.raises(DiceFileError, match="is for variant 'lost_dice', not 'keldice'"):
        Keldice(dice_file=write_dice(tmp_path, [GOOD] * 3))
    with pytest.raises(DiceFileError, match="does not exist"):
        LostDice(dice_file=tmp_path / "missing.yaml")


def test_a_binary_or_unreadable_dice_file_is_named_with_its_problem(tmp_path):
    picture = tmp_path / "some.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(DiceFileError) as error:
        LostDice(dice_file=picture)
    assert str(error.value) == (
        f"dice file {picture} is not a text file (byte 0 is not UTF-8): "
        "expected YAML listing the faces of the three dice, "
        "like envs/games/dice/lost_dice.yaml"
    )
    with pytest.raises(DiceFileError, match=f"dice file {tmp_path} is a folder, not a file"):
        Keldice(dice_file=tmp_path)


def test_a_users_own_dice_file_is_played(tmp_path):
    all_red = ["1/R", "2/R", "3/R", "4/R", "5/R", "6/R"]
    game = LostDice(num_players=1, dice_file=write_dice(tmp_path, [all_red] * 3))
    assert game.options()["dice_file"] == str(tmp_path / "dice.yaml")
    state = game.new_state_from_tape([[game.throw("6/R", "6/R", "6/R")]])
    state.apply(0, ROLL)
    assert described_plays(game, state, 0) == {"Red 12"}


def test_default_dice_files_hold_the_rules_tables():
    assert [str(f) for f in LostDice().table.dice[2]] == ["1/Y", "1/G", "2/R", "5/W", "4/K", "3/B"]
    assert [str(f) for f in Keldice().table.dice[1]] == ["1/B/E", "2/Y/V", "3/G/V", "3/K/-", "4/R/S", "5/W/S"]
    for game in (LostDice(), Keldice()):  # one face of each colour per die
        for die in game.table.dice:
            assert sorted(f.colour for f in die) == sorted(COLOURS + "K")


# -- action names, illegal actions, options -----------------------------------------------------


def test_action_names():
    game = LostDice()
    assert game.action_name(ROLL) == "roll" and game.action_name(TAKE) == "take the offered throw"
    assert game.action_name(play_action(1, R)) == "die 2 as colour → Red"
    assert [game.action_name(a) for a in range(rules.NUM_ACTIONS)].count("pass") == 1


def test_illegal_actions_are_named():
    env = lost_dice_v0.env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"action 4 \(discard the throw\) is illegal for player 0.*0 \(roll\)"):
        env.step(DISCARD)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(20)


def test_keldice_env_is_lost_dice_with_the_keldice_variant():
    a, b = keldice_v0.raw_env(num_players=3), lost_dice_v0.raw_env(variant="keldice", num_players=3)
    a.reset(seed=4)
    b.reset(seed=4)
    assert (
        a.game.keldice
        and b.game.keldice
        and a.game.options() == {k: v for k, v in b.game.options().items() if k != "variant"}
    )
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])
    assert gymnasium.make("Keldice-v0").unwrapped.game.name == "keldice"


# -- random-play fuzz: the mask is exact, clones are independent, bots read the state right ------


@pytest.mark.parametrize(
    "game", [LostDice(num_players=n) for n in (1, 2, 3, 4)] + [Keldice(num_players=n) for n in (2, 3)], ids=repr
)
def test_random_play_fuzz(game):
    rng = np.random.default_rng(11)
    low, high = game.observation_bounds()
    for seed in range(6):
        state = game.new_initial_state(np.random.default_rng(seed))
        steps = 0
        while not state.is_terminal():
            (player,) = state.acting_players()
            mask = state.legal_mask(player)
            assert mask.any()
            for other in range(game.num_players):
                if other != player:
                    assert not state.legal_mask(other).any()
            observation = state.observe(player)
            assert (
                observation.shape == game.observation_shape and low <= observation.min() and observation.max() <= high
            )
            check_position(game, state, player, observation)
            if steps % 7 == 0:  # every masked-out action is refused, and a clone is unaffected
                for action in np.flatnonzero(mask == 0)[:4].tolist():
                    with pytest.raises(IllegalActionError):
                        state.clone().apply(player, action)
                copy = state.clone()
                copy.apply(player, int(rng.choice(np.flatnonzero(mask))))
                assert np.array_equal(state.observe(player), observation)
            state.apply(player, int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        assert steps <= game.max_game_length
        assert not state.observe(0)[rules.OBS_PHASE].any()


def check_position(game, state, player, observation):
    """The bots' reading of the observation agrees with the state."""
    position = read_position(game, observation)
    assert position.phase == state.phase and position.throw == state.throw and position.offered == state.offered
    for k, sheet in enumerate(position.sheets):
        seat = (player + k) % game.num_players
        assert sheet.rolls_left == state.rolls_left(seat) and sheet.stones == min(state.wishing_stones(seat), 10)
        for c, column in enumerate(sheet.columns):
            investments, numbers = state.column(seat, c)
            assert (column.investments, column.count, column.total) == (investments, len(numbers), sum(numbers))
            assert column.last == (numbers[-1] if numbers else 0)


# -- bots ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [LostDice(), Keldice()], ids=repr)
def test_heuristic_beats_random_by_far(game):
    result = evaluate_pairing(
        game, ("heuristic", LostDiceHeuristic(game, seed=0)), ("random", RandomAgent(game, seed=1)), 20, 0
    )
    assert result.rate(1)[0] >= 0.9


def test_bots_are_registered_and_play_legal_moves_with_three_players():
    for name in ("lost_dice", "keldice"):
        game = LostDice(num_players=3, variant=name)
        for spec in ("heuristic", "search"):
            agent = make_agent(name, spec, game, seed=0)
            assert isinstance(agent, (LostDiceHeuristic, LostDiceSearch))
        result = evaluate_pairing(
            game, ("search", make_agent(name, "search", game)), ("random", RandomAgent(game)), 3, 0
        )
        assert result.games == 3


def test_search_passes_at_the_end_when_rolling_helps_only_the_opponent():
    game = LostDice()
    state = game.new_initial_state(np.random.default_rng(0))
    # Opponent with a long open Red run, the player with every column nearly closed: the
    # player's last roll can only be discarded, and a discard would feed the opponent.
    for value in (10,):
        for c in range(5):
            state._numbers[0][c] = [value]
            state._sums[0][c] = value
    state._numbers[1][R] = [2]
    state._sums[1][R] = 2
    state._rolls_left = [1, 5]
    for p in range(2):
        state._settle(p)
    agent = LostDiceSearch(game)
    assert agent.act(state.observe(0), state.legal_mask(0)) == PASS


# -- training -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lost_dice", "keldice"])
def test_the_default_config_trains_by_self_play_and_evaluates(tmp_path, name):
    config = yaml.safe_load(open(f"configs/{name}.yaml"))
    assert config["env"] == name and config["self_play"]["enabled"]
    config.update({"n_envs": 2, "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1}})
    config["self_play"].update({"snapshot_every": 128})
    config["evaluation"] = {"games": 4, "opponents": ["heuristic"]}
    config["warm_start"].update({"episodes": 4, "epochs": 1})  # the default's 2000+ teacher games take a minute
    config["learning_curve"] = {"every": 0}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--timesteps", "256", "--no-progress"]) == 0
    (row,) = csv.DictReader((run / "evaluation" / "summary.csv").open())
    assert row["agent"] == "trained" and row["opponent"] == "heuristic" and int(row["games"]) == 4


@pytest.mark.parametrize(
    "game, bounds",
    [
        (LostDice(1), (-400.0, 408.0)),
        (LostDice(2), (-400.0, 320.0)),
        (LostDice(3), (-400.0, 272.0)),
        (LostDice(2, rolls_per_player=1), (-40.0, 0.0)),
        (Keldice(2), (-24.0, 90.0)),
    ],
    ids=["lost-30", "lost-25", "lost-20", "lost-1", "keldice-20"],
)
def test_score_bounds_are_the_least_and_most_a_sheet_can_score(game, bounds):
    assert game.score_bounds() == bounds


@pytest.mark.parametrize("target", [-400, 320])
def test_the_lost_dice_score_bounds_are_reached(target):
    """Three investments in every colour; or 100 + 100 + 120 (three investments and
    6..10 in two colours, 5..10 in a third), player 0 rolling all 25 rolls."""
    game = LostDice(2)
    if target < 0:
        entries = [(c, rules.INVESTMENT) for c in range(5) for _ in range(3)]
    else:
        entries = [(c, rules.INVESTMENT) for c in (R, Y, B) for _ in range(3)]
        entries += [(c, v) for c in (R, Y) for v in range(6, 11)] + [(B, v) for v in range(5, 11)]
    throws, actions = [], []
    for colour, value in entries:
        throw, play = next(
            (t, p) for t, plays in enumerate(game.table.plays) for p in plays if (p.colour, p.value) == (colour, value)
        )
        throws.append(throw)
        actions.append(play_action(play.die, play.colour))
    state = game.new_state_from_tape([throws, []])
    for action in actions:
        state.apply(0, ROLL)
        state.apply(0, action)
        if not state.is_terminal() and state.acting_players() == (1,):
            state.apply(1, PASS)
    assert state.scores()[0] == target
    assert target in game.score_bounds()


@pytest.mark.parametrize("game_class", [LostDice, Keldice])
def test_a_resampled_game_cannot_peek_at_the_real_throws(game_class):
    """Two games that differ only in throws not yet thrown resample to the same futures."""
    game = game_class(2)
    tapes = np.random.default_rng(0).integers(216, size=(2, 2, game.tape_length))
    tapes[1, :, 0] = tapes[0, :, 0]  # the same first throws, different ones after them
    states = [game.new_state_from_tape(tape.tolist()) for tape in tapes]
    for state in states:
        state.apply(0, ROLL)
    assert states[0] == states[1]

    def play_out(state, seed):
        rng = np.random.default_rng(seed)
        trace = []
        while not state.is_terminal():
            player = state.acting_players()[0]
            moves = np.flatnonzero(state.legal_mask(player))
            state.apply(player, int(moves[rng.integers(moves.size)]))
            trace.append(state.state_tensor())
        return trace

    real = [play_out(s.clone(), seed=4) for s in states]
    assert len(real[0]) != len(real[1]) or not all(np.array_equal(a, b) for a, b in zip(*real))
    resampled = [play_out(s.clone_resampled(np.random.default_rng(9)), seed=4) for s in states]
    assert len(resampled[0]) == len(resampled[1])
    assert all(np.array_equal(a, b) for a, b in zip(*resampled))
