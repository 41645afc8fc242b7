"""Turn-value agents (agents/turn_value.py and the games' TD agents) and their trainer."""

from __future__ import annotations

import functools
import json
import pathlib
import re

import numpy as np
import pytest
import yaml

from agents.inverted_dice.optimal import sheet_state
from agents.inverted_dice.td import InvertedDiceTD, state_features
from agents.lost_dice.batch import Sheets, read_batch, read_sheets
from agents.lost_dice.td import LostDiceTD
from agents.registry import make_agent
from agents.run_folder import TRAINING_STATE_FILE
from agents.six_hundred.estimate import sheet_value
from agents.six_hundred.td import CATEGORY_POINTS, SixHundredTD, settlement
from agents.turn_value import TurnValueNet, load_turn_value, save_turn_value
from envs.games import inverted_dice as dice_rules
from envs.games import lost_dice as ld_rules
from envs.games import six_hundred as sh_rules
from envs.games.lost_dice_faces import NUM_COLOURS
from training import evaluate, train, train_td
from training.framework import command
from training.framework.command import default_config
from training.pipelines.expert_iteration.learner import ExpertIteration
from training.pipelines.ppo.learner import PPO
from training.pipelines.td.learner import TurnValueTD, lambda_targets


def test_lambda_targets_blend_the_backup_and_the_turns_points():
    backups, points = np.array([10.0, 6.0, 2.0]), np.array([3.0, 4.0, 5.0])
    assert lambda_targets(backups, points, 1.0).tolist() == [12.0, 9.0, 5.0]  # returns-to-go
    assert lambda_targets(backups, points, 0.0).tolist() == [10.0, 6.0, 2.0]  # the backups
    half = lambda_targets(backups, points, 0.5)
    assert half[2] == 0.5 * 2 + 0.5 * 5 and half[1] == 0.5 * 6 + 0.5 * (4 + half[2])
    assert lambda_targets(np.full(3, np.nan), points, 0.0).tolist() == [12.0, 9.0, 5.0]  # a teacher's game


@pytest.mark.parametrize(
    "agent_class, game_class", [(InvertedDiceTD, dice_rules.InvertedDice), (SixHundredTD, sh_rules.SixHundred)]
)
def test_the_sheet_a_write_leaves_is_the_sheet_the_next_turn_shows(agent_class, game_class, monkeypatch):
    """The features the planner valued for the write it made are those the next observation gives."""
    agent = agent_class(game_class(), net=TurnValueNet(agent_class.num_features, (16,)))
    rows = {}
    original = agent.values

    def remember(features):
        rows["last"] = features.copy()
        return original(features)

    monkeypatch.setattr(agent, "values", remember)
    game = game_class()
    for seed in range(3):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            observation = state.observe(0)
            key = agent.sheet_key(observation)
            state.apply(0, agent.act(observation, state.legal_mask(0)))
            if state.is_terminal() or agent.sheet_key(state.observe(0)) == key:
                continue
            candidates = rows.pop("last", None)
            if candidates is None:  # Six Hundred's last write is valued exactly, not by the net
                continue
            shown = agent.sheet_features(state.observe(0))
            assert np.isclose(candidates, shown, atol=1e-6).all(axis=1).any(), "no candidate sheet matches the next one"


def test_inverted_dice_td_values_finished_sheets_at_zero_and_reads_the_solver_state():
    agent = InvertedDiceTD(dice_rules.InvertedDice(), net=TurnValueNet(InvertedDiceTD.num_features, (8,)))
    assert agent.state_values(np.array([0b101])).tolist() == [0.0]  # no open box: the game is over
    features = state_features(np.array([sheet_state(np.ones(20, bool), np.ones(3, bool))]))[0]
    assert features[:23].tolist() == [1.0] * 23 and features[23:].tolist() == [1.0] * 3


def test_six_hundred_settlement_is_what_the_game_adds_at_the_end():
    game = sh_rules.SixHundred()
    bot = make_agent("six_hundred", "heuristic", game)
    for seed in range(4):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            before = float(state.scores()[0])
            sheet_before = state.sheet(0)
            state.apply(0, bot.act(state.observe(0), state.legal_mask(0)))
        written = [v for v in state.sheet(0)]
        last = next(c for c, v in enumerate(sheet_before) if v is None)
        numbers_before = sum(v or 0 for v in sheet_before[:6])
        bonus = 35 if last < 6 and numbers_before < 80 <= numbers_before + written[last] else 0
        assert state.scores()[0] - before == pytest.approx(written[last] + bonus + settlement(written))
    assert settlement([1] * 6 + [10, 10, 20, 30] + [0] * 8) == -70  # broken ladder, zeros: no bonus
    assert settlement([1] * 6 + [10, 11, 20, 30] + [5] * 7 + [0]) == 36  # only the Sextet is 0


def test_six_hundred_teacher_values_are_the_heuristics_estimate_of_the_points_to_come():
    game = sh_rules.SixHundred()
    agent = SixHundredTD(game, net=TurnValueNet(SixHundredTD.num_features, (8,)))
    heuristic = make_agent("six_hundred", "heuristic", game)
    state = game.new_initial_state(np.random.default_rng(0))
    observation = state.observe(0)
    features, values = agent.teacher_values(heuristic, observation, np.random.default_rng(1), samples=500)
    assert (
        len(values) == len(features) == sum(len(points) for points in CATEGORY_POINTS)
    )  # every write of an empty sheet
    # On an empty sheet a write of p points leaves the heuristic's estimate of the final score, less p.
    open_sheet = [None] * sh_rules.NUM_CATEGORIES
    for row, value in zip(features, values):
        category = int(np.flatnonzero(row[: sh_rules.NUM_CATEGORIES] == 0)[0])
        points = int(round(row[sh_rules.NUM_CATEGORIES + category] * 36))
        after = open_sheet.copy()
        after[category] = points
        assert value == pytest.approx(sheet_value(after, False) - points)
    assert (
        agent.teacher_values(make_agent("six_hundred", "random", game), observation, np.random.default_rng(1)) is None
    )


def test_an_untrained_six_hundred_td_agent_plays_as_the_heuristic_until_its_exact_last_write():
    """The heuristic's estimate is the network's baseline and the correction starts at 0."""
    game = sh_rules.SixHundred()
    agent = SixHundredTD(game, net=TurnValueNet(SixHundredTD.num_features, (16,), baseline=SixHundredTD.baseline))
    heuristic = make_agent("six_hundred", "heuristic", game)
    for seed in range(3):
        state = game.new_initial_state(np.random.default_rng(seed))
        while sum(v is None for v in state.sheet(0)) > 1:
            observation, mask = state.observe(0), state.legal_mask(0)
            action = heuristic.act(observation, mask)
            assert agent.act(observation, mask) == action
            state.apply(0, action)


def test_network_files_are_checked_against_the_game(tmp_path):
    net = TurnValueNet(InvertedDiceTD.num_features, (8,))
    save_turn_value(tmp_path / "value.pt", net, "inverted_dice", InvertedDiceTD.feature_version)
    loaded = load_turn_value(tmp_path, "inverted_dice", InvertedDiceTD.num_features, 1)
    x = np.random.default_rng(0).random((4, InvertedDiceTD.num_features)).astype(np.float32)
    assert np.allclose(loaded.values(x), net.values(x))
    with pytest.raises(ValueError, match="trained on inverted_dice, not six_hundred"):
        load_turn_value(tmp_path, "six_hundred", SixHundredTD.num_features, 1)
    with pytest.raises(ValueError, match="reads 26 features"):
        load_turn_value(tmp_path, "inverted_dice", 30, 1)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "value.pt").write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a readable turn-value network") as refused:
        load_turn_value(tmp_path / "bad", "inverted_dice", 26, 1)
    assert "weights_only" not in str(refused.value)  # no advice to load a file of unknown origin unsafely
    with pytest.raises(ValueError, match="no turn-value network"):
        make_agent("inverted_dice", f"td:path={tmp_path / 'missing'}", dice_rules.InvertedDice())
    with pytest.raises(ValueError, match="plays solitaire"):
        InvertedDiceTD(dice_rules.InvertedDice(num_players=2), net=net)


def tiny_config(tmp_path, env="inverted_dice", **changes):
    config = yaml.safe_load(open(default_config(TurnValueTD, env)))  # six_hundred's: configs/six_hundred.yaml
    config.update(
        {
            "games": 20,
            "games_per_iteration": 10,
            "updates_per_iteration": 5,
            "replay_size": 2000,
            "hidden": [16],
            "checkpoint_every": 10,
            "warm_start": {"teacher": "heuristic", "games": 5, "epochs": 1},
            "learning_curve": {"every": 10, "games": 4, "reference": "heuristic"},
            "evaluation": {"games": 3, "opponents": ["random"]},
            **changes,
        }
    )
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def play_solitaire(game, agent, seed, after_move=None):
    """One game of ``agent`` from ``seed`` (the agent reset with it): its moves (each checked
    legal), its score, and the observations and masks it acted on; ``after_move()``, if given,
    is called after each move (to read what the agent recorded)."""
    state = game.new_initial_state(np.random.default_rng(seed))
    agent.reset(seed)
    moves, observations, masks = [], [], []
    while not state.is_terminal():
        observation, mask = state.observe(0), state.legal_mask(0)
        action = agent.act(observation, mask)
        assert mask[action]
        moves.append(action)
        observations.append(observation)
        masks.append(mask)
        if after_move is not None:
            after_move()
        state.apply(0, action)
    return moves, state.scores()[0], np.array(observations), np.array(masks)


def test_the_solo_lost_dice_td_agent_plays_legal_moves_the_same_alone_and_in_batch():
    """Solo Lost Dice's ``td``: every move legal, always a roll at a turn's start, the same game
    from the same seed, act_batch as act; and a discard when every play would lower V + points."""
    game = ld_rules.LostDice(num_players=1)
    agent = LostDiceTD(game, net=TurnValueNet(LostDiceTD.num_features, (16,)))
    moves, score, observations, masks = play_solitaire(game, agent, 11)
    assert play_solitaire(game, agent, 11)[:2] == (moves, score)
    turn_starts = observations[:, ld_rules.OBS_PHASE.start + ld_rules.TURN_START] > 0.5
    assert (np.array(moves)[turn_starts] == ld_rules.ROLL).all() and ld_rules.DISCARD in moves
    assert agent.act_batch(observations, masks).tolist() == moves


def test_the_solo_lost_dice_td_agent_refuses_a_table_with_offers():
    net = TurnValueNet(LostDiceTD.num_features, (8,))
    with pytest.raises(ValueError, match="plays solitaire"):
        LostDiceTD(ld_rules.LostDice(num_players=2), net=net)
    with pytest.raises(ValueError, match="plays lost_dice, not six_hundred"):
        LostDiceTD(sh_rules.SixHundred(), net=net)


@pytest.mark.parametrize("env", ["inverted_dice", "six_hundred", "lost_dice", "keldice"])
def test_train_resume_evaluate_and_load_a_tiny_td_run(tmp_path, env):
    run = tmp_path / "run"
    assert train_td.main(["--config", str(tiny_config(tmp_path, env)), "--run-dir", str(run), "--no-progress"]) == 0
    assert json.loads((run / "metadata.json").read_text())["games"] == 20
    curve = (run / "learning_curve.csv").read_text().splitlines()
    assert curve[0].startswith("games,mean_score") and len(curve) == 4  # at 0, 10 and 20 games
    assert (run / "learning_curve.png").is_file() and "| td:path=" in (run / "evaluation" / "report.md").read_text()
    assert train_td.main(["--resume", str(run), "--games", "30", "--no-eval", "--no-progress"]) == 0
    assert json.loads((run / "metadata.json").read_text())["games"] == 30
    games = {
        "inverted_dice": dice_rules.InvertedDice,
        "six_hundred": sh_rules.SixHundred,
        "lost_dice": functools.partial(ld_rules.LostDice, num_players=1),
        "keldice": functools.partial(ld_rules.Keldice, num_players=1),
    }
    assert make_agent(env, f"td:path={run}", games[env]()).net is not None
    assert (
        evaluate.main(["--checkpoint", str(run), "--agents", "random", "--games", "2"]) == 0
    )  # the run folder: the td agent
    (later,) = run.glob("evaluation-*")
    assert "| trained | 2 |" in (later / "report.md").read_text()


def test_train_py_runs_the_pipeline_a_config_names(tmp_path, capsys):
    """Six Hundred's main config is the turn-value recipe (``pipeline: td``): the main command runs it,
    resumes it, and the TD command finds it as its default; a config of another pipeline is refused."""
    assert yaml.safe_load(open("configs/six_hundred.yaml"))["pipeline"] == "td"
    assert default_config(TurnValueTD, "six_hundred").name == "six_hundred.yaml"
    assert command.pipeline_for(["--env", "six_hundred"], PPO) is TurnValueTD
    assert command.pipeline_for(["--env", "invers"], PPO) is ExpertIteration  # Invers' main config: expert iteration
    assert default_config(ExpertIteration, "invers").name == "invers.yaml"
    assert default_config(PPO, "invers").name == "invers_ppo.yaml"  # its PPO recipe beside it
    assert command.pipeline_for(["--env", "inverted_dice"], PPO) is PPO
    run = tmp_path / "run"
    config = tiny_config(tmp_path, "six_hundred")
    assert train.main(["--config", str(config), "--run-dir", str(run), "--no-eval", "--no-progress"]) == 0
    assert json.loads((run / "metadata.json").read_text())["games"] == 20 and (run / "value.pt").is_file()
    assert train.main(["--resume", str(run), "--games", "30", "--no-eval", "--no-progress"]) == 0
    assert json.loads((run / "metadata.json").read_text())["games"] == 30
    capsys.readouterr()
    assert train_td.main(["--config", str(tiny_config(tmp_path, pipeline="ppo"))]) == 2
    assert "is for the ppo pipeline, not td; run it with training/train.py" in capsys.readouterr().err


def test_every_invers_recipe_and_kept_run_goes_through_train_py():
    """One road to expert iteration: every Invers recipe names its pipeline, so ``train.py --config``
    runs it; a run folder names the pipeline that ran it in its ``config.yaml``, and one written
    before it did (``pipeline: null``) is resumed by the pipeline its ``metadata.json`` names."""
    for recipe in sorted(pathlib.Path("configs").glob("invers*.yaml")):
        declared = yaml.safe_load(recipe.read_text()).get("pipeline")
        expected = {"invers_ppo.yaml": PPO, "invers_scratch.yaml": PPO, "invers_rllib.yaml": PPO}
        assert command.pipeline_for(["--config", str(recipe)], PPO) is expected.get(recipe.name, ExpertIteration), (
            recipe,
            declared,
        )
    for run in ("search_distill_1", "search_distill_2", "shipped"):
        assert command.pipeline_for(["--resume", f"checkpoints/invers/{run}"], PPO) is ExpertIteration, run


def test_td_cli_errors_name_the_problem(tmp_path, capsys):
    assert train_td.main(["--config", str(tiny_config(tmp_path, td_lambda=2))]) == 2
    assert "td_lambda must be a number in [0, 1], got 2" in capsys.readouterr().err
    assert train_td.main(["--config", str(tiny_config(tmp_path, env_kwargs={"num_players": 2}))]) == 2
    assert "plays solitaire" in capsys.readouterr().err
    assert train_td.main(["--config", str(tiny_config(tmp_path, warm_start={"teacher": "heurstic"}))]) == 2
    assert "unknown agent 'heurstic'" in capsys.readouterr().err
    assert train_td.main(["--env", "invers"]) == 2
    assert (
        "invers has no turn-value agent; train_td.py trains ['inverted_dice', 'keldice', 'lost_dice', 'six_hundred']"
        in capsys.readouterr().err
    )
    assert train_td.main(["--resume", str(tmp_path / "nothing")]) == 2
    assert "cannot resume" in capsys.readouterr().err
    run = tmp_path / "run"
    assert (
        train_td.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--no-eval", "--no-progress"])
        == 0
    )
    (run / TRAINING_STATE_FILE).write_bytes(b"damaged")
    assert train_td.main(["--resume", str(run), "--games", "30", "--no-progress"]) == 2
    assert f"{TRAINING_STATE_FILE} is damaged" in capsys.readouterr().err


def test_the_six_hundred_lookahead_plays_legal_moves_the_same_alone_and_in_batch():
    """``td:lookahead=k``: every move legal, the same game from the same seed, act_batch as act."""
    game = sh_rules.SixHundred()
    agent = make_agent("six_hundred", "td:lookahead=3", game, seed=0)
    moves, score, observations, masks = play_solitaire(game, agent, 7)
    assert play_solitaire(game, agent, 7)[:2] == (moves, score)
    batch = make_agent("six_hundred", "td:lookahead=3", game, seed=0)
    assert batch.act_batch(observations[:40], masks[:40]).tolist() == moves[:40]


def test_the_lookahead_values_a_sheet_as_the_planner_backs_up_its_turn():
    """W of a sheet is the planner's own value of the turn from it (plan_turn's last_turn_value)."""
    game = sh_rules.SixHundred()
    agent = make_agent("six_hundred", "td", game)
    observation = game.new_initial_state(np.random.default_rng(3)).observe(0)
    agent.plan_turn(observation)
    assert agent.turn_values(observation[None])[0] == pytest.approx(agent.last_turn_value)
    actions, now, after, by_value = agent.write_options(observation)
    assert len(actions) == sh_rules.NUM_CATEGORIES and (after[:, sh_rules.OBS_OPEN].sum(axis=1) == 17).all()
    assert (by_value >= now).all()  # V of a sheet with turns to come is positive


@pytest.mark.parametrize(
    "env, spec, error",
    [
        ("six_hundred", "td:lookahead=1", "lookahead=1 ranks a single write"),
        ("six_hundred", "td:lookahead=-2", "lookahead must be 0"),
        ("six_hundred", "td:lookahead=2.5", "lookahead must be 0"),
        ("inverted_dice", "td:lookahead=4", "inverted_dice turn-value agent has no lookahead"),
    ],
)
def test_bad_lookaheads_are_refused(env, spec, error):
    game = dice_rules.InvertedDice() if env == "inverted_dice" else sh_rules.SixHundred()
    with pytest.raises(ValueError, match=error):
        make_agent(env, spec, game)


def _lost_dice_sheets(rolls_left: int):
    """A hand-built solo Lost Dice sheet: colour 0 holds 3 then 6 (sum 9), colour 1 one investment."""
    columns = np.zeros((1, NUM_COLOURS), np.int64)
    last, count, total, investments = columns.copy(), columns.copy(), columns.copy(), columns.copy()
    last[0, 0], count[0, 0], total[0, 0], investments[0, 1] = 6, 2, 9, 1
    zero = np.zeros(1, np.int64)
    return Sheets(last, count, total, investments, columns.copy(), zero, zero, np.array([rolls_left]))


def test_the_solo_lost_dice_lookahead_reranks_the_best_choices_one_throw_deeper():
    """Of the ``lookahead`` best choices by points + V, the one with the most points + W wins, W
    being the planner's own backed-up value of the next throw; on the last throw the planner's."""
    game = ld_rules.LostDice(num_players=1)
    agent = make_agent("lost_dice", "td:lookahead=2", game)
    assert agent.lookahead == 2 and make_agent("lost_dice", "td", game).lookahead == 2  # td's default
    assert make_agent("lost_dice", "td:lookahead=0", game).lookahead == 0
    sheets = _lost_dice_sheets(rolls_left=5)
    throw = np.array([0])
    slots = agent.model.slot_plays[0]
    play_slot = int(np.flatnonzero(slots < len(agent.model.colour) - 1)[0])
    play = int(slots[play_slot])
    deeper = agent.next_throw_values(sheets, np.array([[play, len(agent.model.colour) - 1]]))[0]
    # W of the unchanged sheet (a discard) is the mean over the 216 throws of the best choice
    assert deeper[1] == pytest.approx(agent.throw_values(sheets, np.array([4])).mean())
    for planner_first in (ld_rules.DISCARD, ld_rules.PLAY + play_slot):
        by_action = np.full((1, ld_rules.NUM_ACTIONS), -np.inf)
        other = ld_rules.PLAY + play_slot if planner_first == ld_rules.DISCARD else ld_rules.DISCARD
        by_action[0, planner_first], by_action[0, other] = 10.0, 9.0
        expected = ld_rules.PLAY + play_slot if deeper[0] > deeper[1] else ld_rules.DISCARD
        assert agent.look_ahead_batch(sheets, throw, by_action).tolist() == [expected]  # either order
        assert make_agent("lost_dice", "td:lookahead=4", game).look_ahead_batch(sheets, throw, by_action)[0] in (
            planner_first,
            other,
        )  # fewer legal choices than the lookahead: an illegal one is never played
        last = _lost_dice_sheets(rolls_left=0)
        assert agent.look_ahead_batch(last, throw, by_action).tolist() == [planner_first]


def test_the_solo_lost_dice_lookahead_values_a_sheet_as_the_planner_backs_up_its_next_turn():
    """points + W of the choice played equals that turn's points plus the backed-up value the
    planner records at the next turn's start (training's B), for every throw of a game."""
    game = ld_rules.LostDice(num_players=1)
    agent = make_agent("lost_dice", "td:lookahead=3", game)
    moves, score, observations, masks = play_solitaire(game, agent, 5)
    assert play_solitaire(game, agent, 5)[:2] == (moves, score)
    assert agent.act_batch(observations, masks).tolist() == moves  # act_batch as act, the whole game at once
    state = game.new_initial_state(np.random.default_rng(5))
    checked, pending, points_before = 0, None, 0.0
    none = len(agent.model.colour) - 1
    for observation, move in zip(observations, moves):
        turn_start = observation[ld_rules.OBS_PHASE.start + ld_rules.TURN_START] > 0.5
        if turn_start:
            agent.act(observation, state.legal_mask(0))
            if pending is not None:
                assert pending == pytest.approx(float(state.scores()[0]) - points_before + agent.last_turn_value)
                checked += 1
            pending = None
        else:
            batch = read_batch(observation[None])
            sheets = read_sheets(game, batch, np.array([0]), 0)
            if sheets.rolls_left[0] > 0:
                none = len(agent.model.colour) - 1
                play = (
                    none
                    if move == ld_rules.DISCARD
                    else int(agent.model.slot_plays[batch.throw[0], move - ld_rules.PLAY])
                )
                pending = float(agent.next_throw_values(sheets, np.array([[play]]))[0, 0])
                points_before = float(state.scores()[0])
        state.apply(0, move)
    assert checked >= 25


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"lookahead": 1}, "lookahead: 1 ranks a single write"),
        ({"lookahead": -2}, "lookahead"),
        ({"init": "nowhere/at/all"}, "init: no turn-value network at nowhere/at/all"),
        (
            {"init": "checkpoints/lost_dice/shipped_td"},
            r"init: \S+shipped_td has hidden layers \[256, 256\]",
        ),
    ],
)
def test_bad_search_and_init_keys_are_config_errors(tmp_path, capsys, changes, error):
    config = tiny_config(tmp_path, "lost_dice", **changes)
    assert train_td.main(["--config", str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert re.search(error, capsys.readouterr().err)


def test_a_td_config_without_a_lookahead_refuses_one(tmp_path, capsys):
    config = tiny_config(tmp_path, "inverted_dice", lookahead=2)
    assert train_td.main(["--config", str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "lookahead: the inverted_dice turn-value agent has no lookahead" in capsys.readouterr().err


def test_a_td_run_starts_from_its_init_network_and_trains_with_the_search(tmp_path):
    """``init``: V starts as the saved network (0 games: saved unchanged); ``lookahead``: the search plays."""
    first = tmp_path / "first"
    config = tiny_config(tmp_path, "lost_dice", lookahead=2, games=10, warm_start={"games": 0})
    assert train_td.main(["--config", str(config), "--run-dir", str(first), "--no-eval", "--no-progress"]) == 0
    assert yaml.safe_load((first / "config.yaml").read_text())["lookahead"] == 2
    saved = load_turn_value(first, "lost_dice", LostDiceTD.num_features, LostDiceTD.feature_version)
    again = tmp_path / "again"
    config = tiny_config(tmp_path, "lost_dice", init=str(first), games=0, warm_start={"games": 0})
    assert train_td.main(["--config", str(config), "--run-dir", str(again), "--no-eval", "--no-progress"]) == 0
    started = load_turn_value(again, "lost_dice", LostDiceTD.num_features, LostDiceTD.feature_version)
    for name, tensor in saved.state_dict().items():
        assert (started.state_dict()[name] == tensor).all(), name
    fresh = tmp_path / "fresh"
    config = tiny_config(tmp_path, "lost_dice", games=0, warm_start={"games": 0})
    assert train_td.main(["--config", str(config), "--run-dir", str(fresh), "--no-eval", "--no-progress"]) == 0
    fresh_net = load_turn_value(fresh, "lost_dice", LostDiceTD.num_features, LostDiceTD.feature_version)
    assert not all((fresh_net.state_dict()[n] == t).all() for n, t in saved.state_dict().items())
