"""The short fuzz run that CI does, and proof that every check of the fuzzer can fail.

The long runs are ``python -m tests.fuzz`` (see :mod:`tests.fuzz`); here each env and
player count plays a few games, and each planted bug below must be reported.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs import ENVS, IllegalActionError
from envs.aec import GameAECEnv
from envs.core import Game
from envs.games.dice_rounds import DiceRoundsGame
from envs.games.inverted_dice import InvertedDice, InvertedDiceState
from tests import fuzz

CASES = [
    pytest.param(entry, n, id=f"{name}-{n}p")
    for name, entry in ENVS.items()
    for n in fuzz.player_counts(entry.game_class())
]
#: Four games reach both reward modes and both settings of a boolean option.
SHORT_RUN = range(6)  # every reward mode with every value of a boolean option


@pytest.mark.parametrize("entry, num_players", CASES)
def test_random_games_keep_every_invariant(entry, num_players):
    tally = fuzz.fuzz(entry, num_players, SHORT_RUN)
    assert [f.message for f in tally.failures] == []
    assert tally.games == len(SHORT_RUN) and tally.steps > 0
    expected = {
        "mask", "observation", "score", "aec view", "illegal refused", "refusal leaves state unchanged",
        "legal accepted", "clone independence", "clone follows original", "finished game refuses",
        "reward sum", "same seed same game",
    }  # fmt: skip
    assert expected <= set(tally.checks)
    assert tally.checks["same seed same game"] == len(SHORT_RUN)


def test_games_cover_every_reward_mode_and_every_boolean_option():
    entry = ENVS["inverted_dice"]
    kwargs = [fuzz.game_kwargs(entry, 2, seed) for seed in SHORT_RUN]
    assert {(k["reward_mode"], k["free_cross_out"]) for k in kwargs} == {
        (mode, free) for mode in ("score", "win", "margin") for free in (False, True)
    }


def _empty_mask_on_third_roll(original):
    def legal_mask(self, player):
        mask = original(self, player)
        return np.zeros_like(mask) if self._roll == 3 else mask

    return legal_mask


def _accepts_any_cross_out(original):
    def is_legal(self, action):
        return True if action >= 32 else original(self, action)

    return is_legal


def _doubled_observation(original):
    return lambda self, player: original(self, player) * 2


def _clone_sharing_boxes(original):
    def clone(self):
        other = original(self)
        other._open = self._open
        return other

    return clone


def _refusal_that_counts(original):
    def apply(self, player, action):
        try:
            original(self, player, action)
        except IllegalActionError:
            self._totals[player] += 1
            raise

    return apply


def _unseeded_dice(original):
    return lambda self, rng: original(self, np.random.default_rng())


def _halved_rewards(original):
    return lambda self: {agent: reward / 2 for agent, reward in original(self).items()}


PLANTED_BUGS = [
    pytest.param(InvertedDiceState, "legal_mask", _empty_mask_on_third_roll, 1, "to act with an empty mask", id="empty-mask"),
    pytest.param(InvertedDiceState, "_is_legal", _accepts_any_cross_out, 1, "was accepted", id="accepts-unmasked"),
    pytest.param(InvertedDiceState, "observe", _doubled_observation, 1, r"observation leaves \[0.0, 1.0\]", id="obs-bounds"),
    pytest.param(InvertedDice, "score_bounds", lambda _: lambda self: (0.0, 20.0), 1, "leave the declared", id="score-bounds"),
    pytest.param(InvertedDiceState, "clone", _clone_sharing_boxes, 1, "applied to a clone changed the original", id="clone-shares"),
    pytest.param(InvertedDiceState, "apply", _refusal_that_counts, 2, "changed the state", id="refusal-mutates"),
    pytest.param(DiceRoundsGame, "new_initial_state", _unseeded_dice, 1, "replaying the seed", id="unseeded"),
    pytest.param(GameAECEnv, "_step_rewards", _halved_rewards, 1, "rewards stepped sum to", id="reward-sum"),
]


@pytest.mark.parametrize("owner, name, make_bug, num_players, message", PLANTED_BUGS)
def test_planted_bugs_are_reported(monkeypatch, owner, name, make_bug, num_players, message):
    monkeypatch.setattr(owner, name, make_bug(getattr(owner, name)))
    tally = fuzz.fuzz(ENVS["inverted_dice"], num_players, range(2))
    assert tally.failures, f"the planted bug in {owner.__name__}.{name} went unnoticed"
    assert any(re.search(message, f.message) for f in tally.failures), [
        f.message for f in tally.failures
    ]


def test_a_game_without_declared_score_bounds_says_so():
    class Bare(Game):
        name = "bare"
        min_players = max_players = default_players = 1

        def new_initial_state(self, rng):
            raise NotImplementedError

        def action_name(self, action):
            return str(action)

        def options(self):
            return {}

    with pytest.raises(NotImplementedError, match="bare: the game declares no score_bounds"):
        Bare().score_bounds()


def test_parts_split_the_games_without_gap_or_overlap():
    parts = [fuzz.part_range(10, f"{k}/3") for k in (1, 2, 3)]
    assert [i for part in parts for i in part] == list(range(10))
    with pytest.raises(ValueError, match="1 <= K <= M"):
        fuzz.part_range(10, "4/3")


def test_a_run_in_parts_adds_up_to_the_whole_run(capsys, tmp_path):
    logs = []
    for part in ("1/2", "2/2"):
        assert fuzz.main(["--env", "invers", "--games", "4", "--part", part, "--seed", "5"]) == 0
        logs.append(tmp_path / f"part{part[0]}.log")
        logs[-1].write_text(capsys.readouterr().out)
    assert "fuzz total (2..3 of 4 games, seed 5): games 2, steps" in logs[1].read_text()
    assert fuzz.main(["--env", "invers", "--games", "4", "--seed", "5"]) == 0
    whole = capsys.readouterr().out
    steps = re.search(r"invers 2p: games 4, steps (\d+), invariant checks (\d+), failures 0", whole)
    assert fuzz.main(["--sum", *map(str, logs)]) == 0
    summed = capsys.readouterr().out
    assert f"invers: games 4, steps {steps[1]}, invariant checks {steps[2]}, failures 0" in summed


def test_an_unknown_env_is_refused_with_the_known_names(capsys):
    with pytest.raises(SystemExit):
        fuzz.main(["--env", "yahtzee"])
    assert "unknown env yahtzee; known envs: " in capsys.readouterr().err


def test_fixed_options_reach_every_game_and_the_replay_command():
    entry = ENVS["inverted_dice"]
    assert {fuzz.game_kwargs(entry, 1, seed, {"free_cross_out": True})["free_cross_out"] for seed in range(4)} == {True}
    # A short game limit makes Invers games end by truncation, a path random play rarely reaches.
    tally = fuzz.fuzz(ENVS["invers"], 2, range(2), options={"max_plies": 12})
    assert [f.message for f in tally.failures] == [] and tally.steps == 2 * 12
    failure = fuzz.Failure("invers", {"num_players": 2}, 7, "", {"max_plies": 12})
    assert failure.replay_command().endswith("--games 1 --seed 7 --option max_plies=12")


def test_a_bad_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        fuzz.main(["--env", "invers", "--option", "max_plies=0"])
    assert "--option for invers: invers: max_plies must be a positive integer, got 0" in capsys.readouterr().err
