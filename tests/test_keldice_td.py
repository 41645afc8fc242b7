"""Solo Keldice's turn-value agent (agents/lost_dice/td.py, KeldiceTD): Lost Dice's planner on Keldice's sheets."""

from __future__ import annotations

import numpy as np
import pytest

from agents.lost_dice.batch import EXTRA_ROLL_BONUS, Sheets, read_batch, read_sheets
from agents.lost_dice.td import K_ESTIMATE, K_SCORE, K_STONES, K_VP, KELDICE_COLOUR_FEATURES, KeldiceTD, LostDiceTD
from agents.registry import TURN_VALUE_AGENTS, agent_names, make_agent
from agents.turn_value import TurnValueNet
from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import MAX_VALUE, NUM_COLOURS
from tests.test_turn_value import play_solitaire


def _agent(game=None, hidden=(16,)):
    game = game or rules.Keldice(num_players=1)
    return KeldiceTD(game, net=TurnValueNet(KeldiceTD.num_features, hidden, baseline=KeldiceTD.baseline))


def _sheets(counts, lasts, directions, stones, vp, rolls) -> Sheets:
    """One hand-built Keldice sheet as a batch of one (no investments in Keldice)."""
    counts = np.array([counts])
    return Sheets(
        last=np.array([lasts]),
        count=counts,
        total=np.zeros_like(counts),  # Keldice scores no sums
        investments=np.zeros_like(counts),
        direction=np.array([directions]),
        stones=np.array([stones]),
        vp=np.array([vp]),
        rolls_left=np.array([rolls]),
    )


def test_the_features_read_keldices_scoring_on_a_hand_built_sheet():
    """Red 3 numbers running up to 7, yellow 1 number, blue 7 numbers (the table's top is 6),
    green and white unstarted, 2 wishing stones, 3 VP symbols: 2 - 4 + 10 + 0 + 0 columns,
    +2 for two stones, +6 for the VP: 16 points."""
    agent = _agent()
    sheets = _sheets([3, 1, 7, 0, 0], [7, 5, 3, 0, 0], [1, 0, -1, 0, 0], 2, 3, 12)
    sheet = agent._sheet(sheets)
    assert agent.score(sheet).tolist() == [16.0]
    row = agent.features(sheet, sheets.rolls_left)[0]
    colour = row[: NUM_COLOURS * KELDICE_COLOUR_FEATURES].reshape(NUM_COLOURS, KELDICE_COLOUR_FEATURES)
    counts = colour[:, MAX_VALUE + 1 : MAX_VALUE + 8]
    assert counts.argmax(axis=1).tolist() == [3, 1, 6, 0, 0] and counts.sum() == NUM_COLOURS  # 7 numbers read as 6+
    up, down, now, next_number = (colour[:, MAX_VALUE + 8 + k] for k in range(4))
    assert up.tolist() == [1, 0, 0, 0, 0] and down.tolist() == [0, 0, 1, 0, 0]
    assert (now * 100).round(4).tolist() == [2, -4, 10, 0, 0]
    assert (next_number * 100).round(4).tolist() == [1, 1, 0, -4, -4]  # a 4th red number: 3 - 2; an unstarted: -4
    assert row[K_STONES].tolist() == [0, 0, 1, 0, 0, 0] and row[K_VP] == pytest.approx(0.3)
    assert row[K_SCORE] == pytest.approx(0.16)
    estimate = agent.model.sheet_values(sheet[0], sheet[1], sheet[2], sheets.rolls_left)[0]
    assert row[K_ESTIMATE] == pytest.approx((estimate - 16) / 100)  # the heuristic's estimate: the baseline
    assert agent.sheet_values(sheet, sheets.rolls_left)[0] == pytest.approx(estimate - 16, abs=1e-4)
    many = _sheets([0] * 5, [0] * 5, [0] * 5, 9, 0, 3)  # stones beyond the table's top score as its top
    assert agent.score(agent._sheet(many)).tolist() == [10.0]
    assert agent.features(agent._sheet(many), many.rolls_left)[0, K_STONES].tolist() == [0, 0, 0, 0, 0, 1]


def test_the_score_it_reads_is_the_games_at_every_step():
    agent = _agent()
    game = agent.game
    for seed in range(3):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            observation = state.observe(0)
            assert agent.score(agent._sheet(agent._sheets(observation[None]))).tolist() == [state.scores()[0]]
            state.apply(0, agent.act(observation, state.legal_mask(0)))


def test_the_sheet_a_play_leaves_is_the_sheet_the_next_throw_shows():
    """The features the planner valued for the play it made are those the next observation gives:
    the column's direction, the stones and VP a symbol adds, and after an extra roll's play the
    throw it brings at once, with one roll more to come than a plain play leaves."""
    agent = _agent()
    game = agent.game
    extra_rolls = 0
    for seed in range(4):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            observation, mask = state.observe(0), state.legal_mask(0)
            action = agent.act(observation, mask)
            state.apply(0, action)
            if action < rules.PLAY or state.is_terminal():
                continue
            batch = read_batch(observation[None])
            sheets = read_sheets(game, batch, [0], 0)
            play = agent.model.slot_plays[batch.throw[0], action - rules.PLAY]
            after, stones, vp, writable = agent.model.after_plays(sheets, np.array([play]))
            assert writable.all()
            extra_rolls += int(agent.model.bonus[play] == EXTRA_ROLL_BONUS)
            rolls = sheets.rolls_left[:, None] + agent.extra_rolls[[play]]
            valued = agent.features((after, stones, vp), rolls)[0, 0]
            assert np.array_equal(agent.sheet_features(state.observe(0)), valued)
    assert extra_rolls > 0


def test_an_extra_roll_is_valued_as_a_roll_more_to_come():
    """On the last roll a plain play is worth its points alone (no roll to come); a play with the
    extra-roll symbol is worth its points and V of the sheet with the throw it brings."""
    agent = _agent()
    sheets = _sheets([2, 0, 0, 0, 0], [5, 0, 0, 0, 0], [1, 0, 0, 0, 0], 1, 0, 0)
    values = agent.play_values(sheets, sheets.rolls_left)[0, :-1]
    plays = np.arange(len(values))
    after, stones, vp, writable = agent.model.after_plays(sheets, plays)
    points = agent.score((after, stones, vp))[0] - agent.score(agent._sheet(sheets))[0]
    extra = agent.model.bonus[plays] == EXTRA_ROLL_BONUS
    plain = writable[0] & ~extra
    assert plain.any() and (writable[0] & extra).any()
    assert np.array_equal(values[plain], points[plain])
    with_throw = values[writable[0] & extra] - points[writable[0] & extra]
    assert (with_throw != 0).all()


def test_it_plays_legal_moves_the_same_alone_and_in_batch():
    agent = _agent()
    game = agent.game

    def play(seed):
        values = []
        played = play_solitaire(game, agent, seed, after_move=lambda: values.append(agent.last_turn_value))
        return (*played, values)

    moves, score, observations, masks, values = play(7)
    assert play(7)[:2] == (moves, score)
    turn_starts = observations[:, rules.OBS_PHASE.start + rules.TURN_START] > 0.5
    assert (np.array(moves)[turn_starts] == rules.ROLL).all() and rules.DISCARD in moves
    assert agent.act_batch(observations, masks).tolist() == moves
    assert not np.isnan(values).any()


def test_the_registry_names_it_td_for_keldice():
    assert TURN_VALUE_AGENTS["keldice"] == "agents.lost_dice.td:KeldiceTD"
    assert "td" in agent_names("keldice")
    agent = make_agent("keldice", "td", rules.Keldice(num_players=1))  # the shipped network
    assert isinstance(agent, KeldiceTD) and agent.net.num_features == KeldiceTD.num_features


def test_it_refuses_a_table_or_variant_it_cannot_play():
    net = TurnValueNet(KeldiceTD.num_features, (8,))
    with pytest.raises(ValueError, match="plays solitaire.*this game has 2 players"):
        KeldiceTD(rules.Keldice(num_players=2), net=net)
    with pytest.raises(ValueError, match="plays solitaire"):
        make_agent("keldice", "td", rules.Keldice(num_players=2))
    with pytest.raises(ValueError, match="KeldiceTD plays keldice, not lost_dice"):
        KeldiceTD(rules.LostDice(num_players=1), net=net)
    with pytest.raises(ValueError, match="LostDiceTD plays lost_dice, not keldice"):
        LostDiceTD(rules.Keldice(num_players=1), net=TurnValueNet(LostDiceTD.num_features, (8,)))
    with pytest.raises(ValueError, match="not variant='keldice''s .*--env keldice"):  # Keldice played as lost_dice
        LostDiceTD(rules.LostDice(num_players=1, variant="keldice"), net=TurnValueNet(LostDiceTD.num_features, (8,)))
    with pytest.raises(ValueError, match="trained on lost_dice, not keldice"):
        KeldiceTD(rules.Keldice(num_players=1), path="checkpoints/lost_dice/shipped_td")
