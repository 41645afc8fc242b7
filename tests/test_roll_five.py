"""Roll Five: deck and deal, hidden information, scoring, the simultaneous forms, the bots."""

from __future__ import annotations

import csv
from collections import Counter

import gymnasium
import numpy as np
import pytest
import yaml

import envs  # noqa: F401  (registers the envs)
from agents.match import play_game
from agents.registry import make_agent
from envs import IllegalActionError, roll_five_v0
from envs.games.roll_five import (
    BID_HIGH,
    BID_LOW,
    OBS_OPPONENTS,
    OBS_ROLL,
    RollFive,
    action_name,
    place_action,
    read_observation,
)
from training import train
from training.evaluation.harness import evaluate_pairing

FILLER = [1, 1, 1, 1]  # dice of a roll that a scripted game never places


def scripted_rolls(values_per_turn):
    """Rolls whose turn-t roll starts with ``values_per_turn[t]`` (the die the script places)."""
    return [[value, *FILLER][: 5 - t] for t, value in enumerate(values_per_turn)]


def play_rows(game, hands, dice_rows, bids):
    """A finished game: player p places ``dice_rows[p][slot]`` on each slot in slot order, then bids."""
    rolls = [scripted_rolls(row) for row in dice_rows]
    state = game.new_state_from_deal(hands, rolls)
    for turn in range(5):
        for p in range(game.num_players):
            state.apply(p, place_action(dice_rows[p][turn], turn))
    for p, bid in enumerate(bids):
        state.apply(p, bid)
    assert state.is_terminal()
    return state


# -- deck, deal and chance ----------------------------------------------------------------


@pytest.mark.parametrize("num_players, copies", [(2, 4), (3, 5), (4, 5)])
def test_deck_has_the_copies_of_its_player_count(num_players, copies):
    game = RollFive(num_players)
    assert Counter(game.deck) == {v: copies for v in range(1, 7)}
    state = game.new_initial_state(np.random.default_rng(0))
    dealt = Counter(c for p in range(num_players) for c in state.cards(p))
    assert sum(dealt.values()) == 5 * num_players
    assert all(dealt[v] <= copies for v in dealt)


def test_deal_and_rolls_are_reproducible_by_seed():
    game = RollFive(3)

    def deal(seed):
        state = game.new_initial_state(np.random.default_rng(seed))
        return [state.cards(p) for p in range(3)], [state.current_roll(p) for p in range(3)]

    assert deal(7) == deal(7)
    assert deal(7) != deal(8)
    cards, rolls = deal(7)
    assert [len(r) for r in rolls] == [5, 5, 5]


def test_rolls_do_not_depend_on_the_decisions_taken():
    game = RollFive(2)
    a = game.new_initial_state(np.random.default_rng(3))
    b = a.clone()
    legal = [np.flatnonzero(a.legal_mask(p)) for p in (0, 1)]
    for p in (0, 1):
        a.apply(p, int(legal[p][0]))
        b.apply(p, int(legal[p][-1]))
    assert [a.current_roll(p) for p in (0, 1)] == [b.current_roll(p) for p in (0, 1)]
    assert [len(a.current_roll(p)) for p in (0, 1)] == [4, 4]


def test_a_deal_that_does_not_fit_the_deck_is_refused():
    with pytest.raises(ValueError, match="do not fit a deck"):
        RollFive(2).new_state_from_deal([[6, 6, 6, 6, 6], [1, 2, 3, 4, 5]], [scripted_rolls([1] * 5)] * 2)


# -- hidden information -------------------------------------------------------------------


def observations_through_a_game(hands, rolls, opponent_slots, opponent_bid):
    """Player 0's observation after every single commit of a scripted two-player game."""
    game = RollFive(2)
    state = game.new_state_from_deal(hands, rolls)
    seen = [state.observe(0)]
    for turn in range(5):
        state.apply(1, place_action(rolls[1][turn][0], opponent_slots[turn]))  # the opponent commits first
        seen.append(state.observe(0))
        state.apply(0, place_action(rolls[0][turn][0], turn))
        seen.append(state.observe(0))
    state.apply(1, opponent_bid)  # still pending: player 0 has not bid
    seen.append(state.observe(0))
    return np.array(seen)


def test_observation_never_shows_another_players_cards_roll_or_pending_choice():
    own_hand, own_rolls = [2, 5, 3, 6, 1], [[4, 2, 2, 6, 5], [1, 3, 3, 6], [6, 6, 2], [2, 1], [5]]
    # Two games that differ only in what player 0 may not see: the opponent's cards and
    # the dice of its rolls that it does not place (it places the same values on the same slots).
    placed = [3, 1, 6, 6, 2]
    rolls_a = [[v, 1, 1, 1, 1][: 5 - t] for t, v in enumerate(placed)]
    rolls_b = [[v, 5, 4, 6, 6][: 5 - t] for t, v in enumerate(placed)]
    a = observations_through_a_game([own_hand, [1, 1, 2, 3, 4]], [own_rolls, rolls_a], [0, 1, 2, 3, 4], BID_HIGH)
    b = observations_through_a_game([own_hand, [6, 6, 5, 4, 4]], [own_rolls, rolls_b], [0, 1, 2, 3, 4], BID_LOW)
    assert np.array_equal(a, b)
    # Public parts do show: the opponent's placed dice, once the turn has resolved.
    assert a[2][OBS_OPPONENTS] == 1 and a[2][OBS_OPPONENTS + 3] == pytest.approx(0.2)
    # ... and the comparison can fail: a different own roll is seen at once.
    c = observations_through_a_game(
        [own_hand, [1, 1, 2, 3, 4]], [[[3, 2, 2, 6, 5], *own_rolls[1:]], rolls_a], [0, 1, 2, 3, 4], BID_HIGH
    )
    assert not np.array_equal(a[0], c[0])


def pictures_through_a_game(hands, rolls, opponent_slots, opponent_bid):
    """Player 0's ``render_for(0)`` after every single commit of a scripted two-player game, and the final one."""
    state = RollFive(2).new_state_from_deal(hands, rolls)
    seen = [state.render_for(0)]
    for turn in range(5):
        state.apply(1, place_action(rolls[1][turn][0], opponent_slots[turn]))  # the opponent commits first
        seen.append(state.render_for(0))
        state.apply(0, place_action(rolls[0][turn][0], turn))
        seen.append(state.render_for(0))
    state.apply(1, opponent_bid)
    seen.append(state.render_for(0))
    state.apply(0, BID_HIGH)
    return seen, state


def test_a_players_picture_shows_only_what_their_observation_shows():
    own_hand, own_rolls = [2, 5, 3, 6, 1], [[4, 2, 2, 6, 5], [1, 3, 3, 6], [6, 6, 2], [2, 1], [5]]
    placed = [3, 1, 6, 6, 2]
    rolls_a = [[v, 1, 1, 1, 1][: 5 - t] for t, v in enumerate(placed)]
    rolls_b = [[v, 5, 4, 6, 6][: 5 - t] for t, v in enumerate(placed)]
    a, final = pictures_through_a_game([own_hand, [1, 1, 2, 3, 4]], [own_rolls, rolls_a], [0, 1, 2, 3, 4], BID_HIGH)
    b, _ = pictures_through_a_game([own_hand, [6, 6, 5, 4, 4]], [own_rolls, rolls_b], [0, 1, 2, 3, 4], BID_LOW)
    assert a == b  # the opponent's cards, rolls, pending choice and bid change nothing player 0 is shown
    assert (
        a[0] == "Roll Five, casual, turn 1 of 5\n"
        "player 0 (you): cards/dice 2/- 5/- 3/- 6/- 1/-  roll 2 2 4 5 6\n"
        "player 1: cards/dice ?/- ?/- ?/- ?/- ?/-"
    )
    assert (
        a[3].splitlines()[2] == "player 1: cards/dice ?/3 ?/- ?/- ?/- ?/-"
    )  # a placed die is public once the turn resolves
    # Everything is shown at the reveal, as render() shows it to a spectator.
    assert final.render_for(0) == final.render().replace("player 0:", "player 0 (you):")
    assert "player 1 (you): cards/dice 1/3 1/1 2/6 3/6 4/2  bid High" in final.render_for(1)
    with pytest.raises(ValueError, match="no player 2"):
        final.render_for(2)


def test_a_pending_choice_is_invisible_until_the_turn_resolves():
    game = RollFive(3)
    state = game.new_initial_state(np.random.default_rng(11))
    before = [state.observe(p) for p in range(3)]
    choices = {}
    for choice in (0, -1):  # the first or the last legal placement of player 1
        other = state.clone()
        other.apply(1, int(np.flatnonzero(other.legal_mask(1))[choice]))
        choices[choice] = other
        for p in (0, 2):
            assert np.array_equal(other.observe(p), before[p])
    assert np.array_equal(choices[0].observe(0), choices[-1].observe(0))
    # The committed player sees its own roll gone (it has acted) but nobody else's choice.
    assert choices[0].observe(1)[OBS_ROLL].sum() == 0 and not choices[0].legal_mask(1).any()


def test_read_observation_recovers_the_players_view():
    game = RollFive(3, mode="tournament")
    state = game.new_initial_state(np.random.default_rng(2))
    for p in range(3):
        state.apply(p, int(np.flatnonzero(state.legal_mask(p))[0]))
    view = read_observation(state.observe(1))
    assert view.cards == state.cards(1) and view.dice == state.dice(1)
    assert view.roll == tuple(sorted(state.current_roll(1))) and view.turn == 2 and view.to_act
    assert view.tournament and len(view.opponents_dice) == 2
    assert view.opponents_dice[0] == tuple(d for d in state.dice(2) if d)


# -- scoring and the outcome ----------------------------------------------------------------


def test_high_and_low_scoring_discard_the_right_pairs():
    game = RollFive(2, mode="tournament")
    hands = [[1, 2, 3, 4, 6], [1, 2, 3, 4, 6]]
    dice = [[6, 5, 4, 4, 2], [6, 5, 4, 4, 2]]
    state = play_rows(game, hands, dice, [BID_HIGH, BID_LOW])
    # High keeps 1+6, 2+5, 3+4 (= 7 each) and discards 4+4 and 6+2 (8 > 7): 3 pairs, 35 − 21 = 14.
    # Low keeps 4−4 = 0 and 6−2 = 4 and discards 1−6, 2−5, 3−4 (negative): 2 pairs, distance 4.
    assert state.scores().tolist() == [3.0, 2.0]
    assert state.tie_break_distances().tolist() == [14.0, 4.0]
    assert state.returns().tolist() == [1.0, -1.0]
    assert state.bids() == (0, 1)


def test_tournament_breaks_a_tie_by_distance_and_casual_shares_it():
    hands = [[1, 2, 3, 4, 6], [2, 2, 3, 5, 6]]
    dice = [[1, 1, 1, 1, 6], [5, 5, 4, 6, 6]]
    # Player 0 bids High: 1+1, 2+1, 3+1, 4+1 kept (6+6 discarded): 4 pairs, 35 − 17 = 18.
    # Player 1 bids High: 2+5, 2+5, 3+4 kept (5+6, 6+6 discarded): 3 pairs.
    state = play_rows(RollFive(2, mode="casual"), hands, dice, [BID_HIGH, BID_HIGH])
    assert state.scores().tolist() == [4.0, 3.0] and state.returns().tolist() == [1.0, -1.0]
    tied_hands = [[1, 2, 3, 4, 6], [1, 2, 3, 4, 6]]
    tied_dice = [[6, 5, 4, 3, 6], [1, 1, 1, 1, 6]]  # High: 4 pairs each; sums 7+7+7+7 = 28 vs 2+3+4+5 = 14
    casual = play_rows(RollFive(2, mode="casual"), tied_hands, tied_dice, [BID_HIGH, BID_HIGH])
    assert casual.scores().tolist() == [4.0, 4.0] and casual.returns().tolist() == [0.0, 0.0]
    assert casual.winners() == (0, 1)
    tournament = play_rows(RollFive(2, mode="tournament"), tied_hands, tied_dice, [BID_HIGH, BID_HIGH])
    assert tournament.tie_break_distances().tolist() == [7.0, 21.0]
    assert tournament.winners() == (0,) and tournament.returns().tolist() == [1.0, -1.0]


def test_equal_counts_and_distances_share_the_win_at_a_larger_table():
    hands = [[1, 2, 3, 4, 6], [1, 2, 3, 4, 6], [1, 2, 3, 4, 5]]
    dice = [[6, 5, 4, 3, 6], [6, 5, 4, 3, 6], [6, 6, 6, 6, 6]]  # 4, 4 and 1 pairs under High
    for mode in ("casual", "tournament"):
        state = play_rows(RollFive(3, mode=mode), hands, dice, [BID_HIGH] * 3)
        assert state.winners() == (0, 1)
        assert state.returns().tolist() == [1.0, 1.0, -1.0]


# -- actions and errors ----------------------------------------------------------------------


def test_action_names_and_masks():
    assert action_name(place_action(4, 1)) == "place 4 on card 2"
    assert action_name(BID_LOW) == "bid Low"
    game = RollFive(2)
    state = game.new_state_from_deal([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], [scripted_rolls([2, 3, 3, 3, 3])] * 2)
    legal = {game.action_name(a) for a in np.flatnonzero(state.legal_mask(0))}
    assert legal == {f"place {v} on card {c}" for v in (1, 2) for c in range(1, 6)}
    for p in (0, 1):
        state.apply(p, place_action(2, 0))
    assert not any(state.legal_mask(0)[place_action(v, 0)] for v in range(1, 7))  # card 1 is covered


def test_illegal_actions_raise_errors_naming_the_action():
    game = RollFive(2)
    state = game.new_state_from_deal([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], [scripted_rolls([2, 3, 3, 3, 3])] * 2)
    with pytest.raises(IllegalActionError, match=r"action 25 \(place 6 on card 1\) is illegal for player 0"):
        state.apply(0, place_action(6, 0))
    with pytest.raises(IllegalActionError, match=r"bid High"):
        state.apply(0, BID_HIGH)
    state.apply(0, place_action(2, 0))
    with pytest.raises(IllegalActionError, match="player 0 is not to act"):
        state.apply(0, place_action(1, 1))
    with pytest.raises(IllegalActionError, match="outside the action space"):
        state.apply(1, 32)


# -- the Parallel, AEC and Gymnasium forms -----------------------------------------------------


def test_a_parallel_step_resolves_every_players_choice_at_once():
    env = roll_five_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=4)
    actions = {a: int(np.flatnonzero(observations[a]["action_mask"])[0]) for a in env.agents}
    observations, rewards, terminations, truncations, _ = env.step(actions)
    state = env.game_state
    assert state.turn == 2 and state.acting_players() == (0, 1, 2)
    for seat, agent in enumerate(env.possible_agents):
        assert sum(1 for d in state.dice(seat) if d) == 1
        assert observations[agent]["action_mask"].any() and rewards[agent] == 0.0
    # Everyone sees every placed die: one die counted in each opponent block.
    view = read_observation(observations["player_0"]["observation"])
    assert [len(d) for d in view.opponents_dice] == [1, 1]


def test_a_parallel_game_takes_six_steps_and_removes_its_agents_at_the_end():
    env = roll_five_v0.parallel_env(num_players=2, reward_mode="win")
    observations, _ = env.reset(seed=5)
    steps = 0
    while env.agents:
        actions = {a: env.action_space(a).sample() for a in env.agents}
        observations, rewards, terminations, truncations, _ = env.step(actions)
        steps += 1
    assert steps == 6 and all(terminations.values()) and not any(truncations.values())
    assert [rewards[a] for a in env.possible_agents] == env.game_state.returns().tolist()


def test_parallel_step_checks_every_action_before_applying_any():
    env = roll_five_v0.parallel_env()
    observations, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(observations["player_0"]["action_mask"])[0])
    illegal = int(np.flatnonzero(observations["player_1"]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} "):
        env.step({"player_0": legal, "player_1": illegal})
    assert env.game_state.acting_players() == (0, 1)  # player 0's legal action was not applied
    with pytest.raises(IllegalActionError, match="player_1 is to act but has no action"):
        env.step({"player_0": legal})
    with pytest.raises(IllegalActionError, match="not in the game"):
        env.step({"player_0": legal, "player_7": 0})
    with pytest.raises(IllegalActionError, match=r"step\(\) takes a dict of every acting agent's action.*got list \["):
        env.step([legal, 0])  # actions by position, not by agent
    assert env.game_state.acting_players() == (0, 1)


def test_aec_form_commits_in_seat_order_like_parallel_to_aec():
    env = roll_five_v0.env(num_players=3)
    env.reset(seed=9)
    order = []
    for agent in env.agent_iter(max_iter=6):
        obs, *_ = env.last()
        order.append(agent)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert order == ["player_0", "player_1", "player_2"] * 2
    assert env.unwrapped.metadata["is_parallelizable"] is True


def test_same_seed_same_game_in_the_parallel_and_aec_forms():
    """The same seed and the same choices give the same game in both forms."""
    par = roll_five_v0.parallel_env(num_players=2)
    aec = roll_five_v0.env(num_players=2)
    par_obs, _ = par.reset(seed=21)
    aec.reset(seed=21)
    rng = np.random.default_rng(0)
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(par_obs[a]["action_mask"]))) for a in par.agents}
        for agent in par.agents:
            assert aec.agent_selection == agent
            assert np.array_equal(aec.observe(agent)["observation"], par_obs[agent]["observation"])
            aec.step(actions[agent])
        par_obs, *_ = par.step(actions)
    assert aec.unwrapped.game_state.render() == par.game_state.render()


def test_gymnasium_opponents_commit_in_the_learners_step_seeing_only_their_own_view():
    seen = []

    class Recorder:
        def act(self, observation, action_mask):
            seen.append(observation.copy())
            return int(np.flatnonzero(action_mask)[0])

    for seat in (0, 1):
        env = gymnasium.make("RollFive-v0", opponents=Recorder(), learner_seat=seat).unwrapped
        obs, info = env.reset(seed=3)
        steps = 0
        terminated = False
        while not terminated:
            assert env.game_state.acting_players() == (0, 1)  # a new round: nobody has committed yet
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            steps += 1
        assert steps == 6 and len(seen) == 6 * (seat + 1)
        # The opponent's cards are its own, never the learner's.
        assert read_observation(seen[-1]).cards == env.game_state.cards(1 - seat)


# -- bots -------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("bot", ["heuristic", "search"])
def test_bots_play_legal_games_at_every_table_size(bot, num_players):
    game = RollFive(num_players, mode="tournament")
    agent = make_agent("roll_five", f"{bot}:model_games=100" if bot == "search" else bot, game, seed=0)
    for seed in range(10):
        state, history = play_game(game, [agent] * num_players, seed)
        assert state.is_terminal() and len(history) == 6 * num_players


def test_heuristic_and_search_beat_random():
    game = RollFive(2, mode="tournament")
    random_agent = make_agent("roll_five", "random", game, seed=1)
    for bot in ("heuristic", "search"):
        result = evaluate_pairing(
            game, (bot, make_agent("roll_five", bot, game, seed=1)), ("random", random_agent), 60, 0
        )
        win, low, _ = result.rate(1)
        assert low > 0.75, f"{bot} wins only {win:.2f} against random"


def test_heuristic_bids_the_side_that_keeps_more_pairs():
    game = RollFive(2)
    agent = make_agent("roll_five", "heuristic", game)
    state = game.new_state_from_deal([[1, 2, 3, 4, 6], [1, 2, 3, 4, 6]], [scripted_rolls([1, 1, 1, 1, 6])] * 2)
    for turn in range(5):
        for p in (0, 1):
            state.apply(p, place_action([1, 1, 1, 1, 6][turn], turn))
    # High keeps 4 (6+6 discarded), Low keeps 5 (every card >= its die, 6−6 = 0): bid Low.
    assert agent.act(state.observe(0), state.legal_mask(0)) == BID_LOW


# -- training and evaluation ----------------------------------------------------------------


def test_a_tiny_self_play_run_is_evaluated_at_two_and_four_players(tmp_path):
    config = yaml.safe_load(open("configs/roll_five.yaml"))
    config.update({"n_envs": 2, "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1}})
    config["self_play"].update({"pool": ["random", "heuristic"], "snapshot_every": 128})
    config["evaluation"].update({"games": 8, "opponents": ["heuristic"]})
    path = tmp_path / "roll_five.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--timesteps", "256", "--no-progress"]) == 0
    for folder, players in ((run / "evaluation", 2), (run / "evaluation" / "num_players=4", 4)):
        (row,) = csv.DictReader((folder / "summary.csv").open())
        assert row["agent"] == "trained" and row["opponent"] == "heuristic" and int(row["games"]) == 8
        assert f"num_players={players}" in (folder / "report.md").read_text()


def test_a_resampled_game_keeps_the_deal_and_this_turn_but_not_the_later_rolls():
    game = RollFive(2)
    hands = [[1, 2, 3, 4, 5], [6, 5, 4, 3, 2]]
    rolls = np.random.default_rng(0).integers(1, 7, size=(2, 2, 5, 5))
    rolls[1, :, 0] = rolls[0, :, 0]  # the same first roll, different ones after it
    states = [game.new_state_from_deal(hands, r.tolist()) for r in rolls]
    assert states[0] == states[1]
    copies = [s.clone_resampled(np.random.default_rng(5)) for s in states]
    for state, copy in zip(states, copies):
        assert copy == state and [copy.cards(p) for p in range(2)] == [state.cards(p) for p in range(2)]
        assert [copy.current_roll(p) for p in range(2)] == [state.current_roll(p) for p in range(2)]
    for turn in range(5):  # both copies roll the same dice from here on
        assert [copies[0].current_roll(p) for p in range(2)] == [copies[1].current_roll(p) for p in range(2)], turn
        for copy in copies:
            for player in range(2):
                copy.apply(player, int(np.flatnonzero(copy.legal_mask(player))[0]))
    assert copies[0] == copies[1]
