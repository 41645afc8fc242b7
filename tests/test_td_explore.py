"""Teacher games with one explored write each (``warm_start.explore_top``): what they keep and what they refuse."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from agents.base import Agent
from agents.registry import make_agent
from agents.six_hundred.estimate import KEEP_TABLES
from agents.six_hundred.td import F_OPEN_COUNT, SixHundredTD
from agents.turn_value import TurnValueNet
from envs.games import six_hundred as rules
from training import train_td
from training.framework.command import default_config
from training.framework.schema import ConfigError
from training.pipelines.td.explore import explored_teacher_turns
from training.pipelines.td.learner import TurnValueTD


def _untrained_agent(game):
    return SixHundredTD(game, net=TurnValueNet(SixHundredTD.num_features, (), baseline=SixHundredTD.baseline))


def test_only_the_turns_after_each_games_explored_write_are_kept_with_their_points_to_come():
    game = rules.SixHundred()
    games = 12
    features, targets = explored_teacher_turns(
        game,
        make_agent("six_hundred", "heuristic", game),
        _untrained_agent(game),
        games,
        4,
        np.random.default_rng(3),
    )
    replay = np.random.default_rng(3)  # one batch: the function draws the dice seeds, then the explored turns
    replay.integers(2**63, size=games)
    explored = replay.integers(rules.NUM_ROUNDS - 1, size=games).tolist()
    assert len(targets) == sum(rules.NUM_ROUNDS - 1 - t for t in explored)
    open_after = np.rint(features[:, F_OPEN_COUNT] * rules.NUM_CATEGORIES)
    assert open_after.max() <= rules.NUM_CATEGORIES - 1 and open_after.min() == 1  # never a sheet before a write
    assert (targets >= 0).all() and targets.max() > 20


def test_an_explored_write_is_one_of_the_best_few_of_the_roll_and_any_other_action_stays():
    game = rules.SixHundred()
    agent = _untrained_agent(game)
    state = game.new_initial_state(np.random.default_rng(0))
    observation = state.observe(0)
    assert agent.explore_write(observation, 5, 4, np.random.default_rng(0)) == 5  # a lock, not a write
    faces = tuple(sorted((observation[rules.OBS_DICE].reshape(6, 6).argmax(axis=1) + 1).tolist()))
    best = rules.score_action(int(agent.plan_turn(observation).best_category[KEEP_TABLES.roll_index[faces]]))
    picks = {agent.explore_write(observation, rules.SCORE, 4, np.random.default_rng(s)) for s in range(40)}
    assert len(picks) == 4 and all(rules.SCORE <= a < rules.NUM_ACTIONS for a in picks)
    assert {agent.explore_write(observation, rules.SCORE, 1, np.random.default_rng(s)) for s in range(5)} == {best}


def test_a_teacher_that_cannot_act_in_batch_is_refused_by_name():
    game = rules.SixHundred()

    class OneAtATime(Agent):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    with pytest.raises(ConfigError, match="plays the teacher in batch"):
        explored_teacher_turns(game, OneAtATime(game), _untrained_agent(game), 2, 4, np.random.default_rng(0))


def test_explore_top_is_refused_where_it_cannot_work(tmp_path, capsys):
    for env, warm_start, expected in [
        ("inverted_dice", {"explore_top": 4, "teacher_values": False}, "does not explore writes"),
        ("six_hundred", {"explore_top": 4, "teacher_values": True}, "set warm_start.teacher_values to false"),
    ]:
        config = yaml.safe_load(open(default_config(TurnValueTD, env)))
        config["warm_start"] = {**config["warm_start"], **warm_start, "games": 2}
        path = tmp_path / f"{env}.yaml"
        path.write_text(yaml.safe_dump(config))
        assert train_td.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-eval"]) == 2, expected
        assert expected in capsys.readouterr().err
