"""The short fuzz run that CI does, and proof that every check of the fuzzer can fail.

The long runs are ``python -m tests.fuzz`` (see :mod:`tests.fuzz`); here each env and
player count plays a few games, and each planted bug below must be reported.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from gymnasium import spaces

from envs import ENVS, IllegalActionError, parallel
from envs.aec import GameAECEnv, reward_basis
from envs.core import Game
from envs.games.dice_rounds import DiceRoundsGame
from envs.games.inverted_dice import InvertedDice, InvertedDiceState
from envs.parallel import GameParallelEnv
from envs.single_agent import SingleAgentEnv
from envs.spaces import LegalActionSpace
from tests import fuzz

CASES = [
    pytest.param(entry, n, id=f"{name}-{n}p")
    for name, entry in ENVS.items()
    for n in fuzz.player_counts(entry.game_class())
]
#: CI's short run: every reward mode with every value of the boolean options in every form
#: (6 to 12 games per env and player count), the costly checks on the sampled steps as in
#: a long run, and every game one of the sampled games (deep first step, env copies, replay).
SHORT_RUN_SAMPLING = fuzz.Sampling(games=1.0)
COMMON_CHECKS = {
    "mask", "observation", "score", "illegal refused", "refusal leaves state unchanged", "legal accepted",
    "clone independence", "sample legal", "finished game refuses", "return promise", "same seed same game",
    "observation in space",
}  # fmt: skip
FORM_CHECKS = {
    "aec": {"aec view", "aec observation", "clone follows original"},
    "gymnasium": {"gymnasium view", "gymnasium observation", "copy follows original"},
    "parallel": {
        "parallel view",
        "parallel observation",
        "parallel refusal leaves game unchanged",
        "clone follows original",
    },
    "batched": {"batched view", "batched observation"},
}


@pytest.mark.parametrize("entry, num_players", CASES)
def test_random_games_keep_every_invariant(entry, num_players):
    games = range(fuzz.cycle_length(entry))
    tally = fuzz.fuzz(entry, num_players, games, sampling=SHORT_RUN_SAMPLING)
    assert [f.message for f in tally.failures] == []
    assert tally.games == len(games) and tally.steps > 0
    assert set(tally.forms) == set(fuzz.forms(entry))
    expected = COMMON_CHECKS.union(*(FORM_CHECKS[form] for form in fuzz.forms(entry)))
    assert expected <= set(tally.checks), expected - set(tally.checks)
    assert tally.checks["same seed same game"] == len(games)


def test_games_cover_every_reward_mode_boolean_option_and_form():
    entry = ENVS["inverted_dice"]
    seeds = range(fuzz.cycle_length(entry))
    combos = {
        (
            fuzz.game_kwargs(entry, 2, s)["reward_mode"],
            fuzz.game_kwargs(entry, 2, s)["free_cross_out"],
            fuzz.game_form(entry, s),
        )
        for s in seeds
    }
    assert len(seeds) == len(combos) == 3 * 2 * 3
    assert {fuzz.game_form(ENVS["roll_five"], s) for s in range(fuzz.cycle_length(ENVS["roll_five"]))} == {
        "aec",
        "parallel",
        "gymnasium",
        "batched",
    }


def test_the_costly_checks_run_on_a_seeded_sample():
    entry = ENVS["six_hundred"]
    sampled = fuzz.fuzz(entry, 1, range(3), sampling=fuzz.Sampling(steps=0.1, games=0.0))
    full = fuzz.fuzz(entry, 1, range(3), sampling=fuzz.FULL)
    assert sampled.steps == full.steps  # the same games
    assert full.checks["clone follows original"] == full.steps and full.checks["same seed same game"] == 3
    assert 3 <= sampled.checks["clone follows original"] < full.steps / 3 and sampled.checks["same seed same game"] == 0
    again = fuzz.fuzz(entry, 1, range(3), sampling=fuzz.Sampling(steps=0.1, games=0.0))
    assert again.checks == sampled.checks  # the sample is seeded


def _empty_mask_on_third_roll(original):
    def legal_mask(self, player):
        mask = original(self, player)
        return np.zeros_like(mask) if self._roll == 3 else mask

    return legal_mask


def _everyone_may_act(original):
    return lambda self, player: original(self, self._player)


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


def _plays_on_after_the_end(original):
    def apply(self, player, action):
        if not self._terminal:
            original(self, player, action)

    return apply


def _unseeded_dice(original):
    return lambda self, rng: original(self, np.random.default_rng())


def _short_games(original):
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.max_game_length = 10

    return __init__


def _space_too_narrow(original):
    """An AEC env that declares its observations in [0, 0.5] (the game's bounds are [0, 1])."""

    def observation_space(self, agent):
        space = original(self, agent)
        box = space["observation"]
        return spaces.Dict(
            {"observation": spaces.Box(0.0, 0.5, box.shape, box.dtype), "action_mask": space["action_mask"]}
        )

    return observation_space


def _halved_rewards(original):
    return lambda self: {agent: reward / 2 for agent, reward in original(self).items()}


def _paid_from_the_starting_scores(original):
    """The bug of the issue: rewards paid as the change since the starting scores (Keldice's -4 lost)."""

    def reset(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        basis = reward_basis(self.game_state, self.reward_mode)
        self._last_basis = basis if isinstance(self, GameAECEnv) else basis[self.learner]
        return result

    return reset


def _halved_parallel_rewards(original):
    def step_rewards(state, reward_mode, last_basis):
        rewards, basis = original(state, reward_mode, last_basis)
        return rewards / 2, basis

    return step_rewards


def _another_seats_observation(original):
    return lambda self, agent: {
        **original(self, agent),
        "observation": self.game_state.observe((self._seat[agent] + 1) % self.game.num_players),
    }


def _sampling_the_whole_space(original):
    return lambda self, mask=None, probability=None: spaces.Discrete.sample(self, mask=mask, probability=probability)


def _info_with_a_full_mask(original):
    def info(self):
        result = original(self)
        result["action_mask"] = np.ones_like(result["action_mask"])
        return result

    return info


def _free_illegal_actions(original):
    def end(self, error):
        observation, _, terminated, truncated, info = original(self, error)
        return observation, 0.0, terminated, truncated, info

    return end


def _copies_reseed_opponents(original):
    def setstate(self, state):
        original(self, state)
        self._opponent_rng = np.random.default_rng()

    return setstate


def _applies_before_checking(original):
    def checked_moves(self, state, actions):
        acting = state.acting_players()
        # unchecked: the env applies each given action, and an illegal one raises half-way
        return [
            (seat, actions[agent])
            for seat, agent in enumerate(self.possible_agents)
            if seat in acting and agent in actions
        ]

    return checked_moves


def _parallel_masks_zeroed(original):
    def observations(self, agents):
        result = original(self, agents)
        return {a: {**o, "action_mask": np.zeros_like(o["action_mask"])} for a, o in result.items()}

    return observations


# (owner, attribute, bug, env, players, games, message): each must be reported. AEC games
# are the first seeds of a cycle, then Parallel (Roll Five), then Gymnasium ones.
ID_GYM = range(6, 9)  # inverted_dice seeds played through the Gymnasium form
PLANTED_BUGS = [
    pytest.param(
        InvertedDiceState,
        "legal_mask",
        _empty_mask_on_third_roll,
        "inverted_dice",
        1,
        range(2),
        "to act with an empty mask",
        id="empty-mask",
    ),
    pytest.param(
        InvertedDiceState,
        "legal_mask",
        _everyone_may_act,
        "inverted_dice",
        2,
        range(2),
        "is not to act but",
        id="idle-mask",
    ),
    pytest.param(
        InvertedDiceState,
        "_is_legal",
        _accepts_any_cross_out,
        "inverted_dice",
        1,
        range(2),
        "was accepted",
        id="accepts-unmasked",
    ),
    pytest.param(
        InvertedDiceState,
        "observe",
        _doubled_observation,
        "inverted_dice",
        1,
        range(2),
        r"observation leaves \[0.0, 1.0\]",
        id="obs-bounds",
    ),
    pytest.param(
        InvertedDice,
        "score_bounds",
        lambda _: lambda self: (0.0, 20.0),
        "inverted_dice",
        1,
        range(2),
        "leave the declared",
        id="score-bounds",
    ),
    pytest.param(
        InvertedDice,
        "__init__",
        _short_games,
        "inverted_dice",
        1,
        range(2),
        "runs past max_game_length=10",
        id="max-length",
    ),
    pytest.param(
        InvertedDiceState,
        "clone",
        _clone_sharing_boxes,
        "inverted_dice",
        1,
        range(2),
        "applied to a clone changed the original",
        id="clone-shares",
    ),
    pytest.param(
        InvertedDiceState,
        "apply",
        _refusal_that_counts,
        "inverted_dice",
        2,
        range(2),
        "changed the state",
        id="refusal-mutates",
    ),
    pytest.param(
        InvertedDiceState,
        "apply",
        _plays_on_after_the_end,
        "inverted_dice",
        1,
        range(2),
        "after the end of the game was accepted",
        id="plays-on",
    ),
    pytest.param(
        DiceRoundsGame,
        "new_initial_state",
        _unseeded_dice,
        "inverted_dice",
        1,
        range(2),
        "replaying the seed",
        id="unseeded",
    ),
    pytest.param(
        GameAECEnv,
        "observation_space",
        _space_too_narrow,
        "inverted_dice",
        1,
        range(2),
        r"the AEC env \(player_0\) shows an observation outside its declared observation space",
        id="aec-space",
    ),
    pytest.param(
        GameAECEnv,
        "_step_rewards",
        _halved_rewards,
        "inverted_dice",
        1,
        range(2),
        "AEC rewards stepped sum to",
        id="reward-sum",
    ),
    pytest.param(
        GameAECEnv,
        "reset",
        _paid_from_the_starting_scores,
        "keldice",
        1,
        range(1),
        r"AEC rewards .* sum to \[-?\d+\.0\], the final score is",
        id="return-promise-aec",
    ),
    pytest.param(
        SingleAgentEnv,
        "reset",
        _paid_from_the_starting_scores,
        "keldice",
        1,
        range(3, 4),
        "Gymnasium rewards of seat 0 sum to .*, the final score is",
        id="return-promise-gymnasium",
    ),
    pytest.param(
        parallel,
        "step_rewards",
        _halved_parallel_rewards,
        "roll_five",
        2,
        range(3, 6),
        "Parallel rewards sum to",
        id="return-promise-parallel",
    ),
    pytest.param(
        GameAECEnv,
        "observe",
        _another_seats_observation,
        "inverted_dice",
        2,
        range(2),
        "an observation other than the core's",
        id="aec-view",
    ),
    pytest.param(
        LegalActionSpace,
        "sample",
        _sampling_the_whole_space,
        "inverted_dice",
        1,
        range(2),
        r"sample\(\) gave action",
        id="sample-illegal",
    ),
    pytest.param(
        SingleAgentEnv,
        "_info",
        _info_with_a_full_mask,
        "inverted_dice",
        1,
        ID_GYM,
        r"info\['action_mask'\] is not the core's",
        id="gymnasium-view",
    ),
    pytest.param(
        SingleAgentEnv,
        "action_masks",
        lambda original: lambda self: np.ones_like(original(self)),
        "inverted_dice",
        1,
        ID_GYM,
        r"action_masks\(\) is not the core's",
        id="gymnasium-action-masks",
    ),
    pytest.param(
        SingleAgentEnv,
        "_end_by_illegal_action",
        _free_illegal_actions,
        "inverted_dice",
        1,
        ID_GYM,
        r"illegal action \d+ gave reward 0.0",
        id="gymnasium-illegal",
    ),
    pytest.param(
        SingleAgentEnv,
        "__setstate__",
        _copies_reseed_opponents,
        "inverted_dice",
        2,
        ID_GYM,
        "deep copy of the Gymnasium env and the original different steps",
        id="gymnasium-copy",
    ),
    pytest.param(
        GameParallelEnv,
        "_checked_moves",
        _applies_before_checking,
        "roll_five",
        2,
        range(3, 5),
        "a Parallel step .*(changed the game|was accepted)",
        id="parallel-refusal",
    ),
    pytest.param(
        GameParallelEnv,
        "_observations",
        _parallel_masks_zeroed,
        "roll_five",
        2,
        range(3, 5),
        "the Parallel env shows player_0 a mask other than the core's",
        id="parallel-view",
    ),
]


@pytest.mark.parametrize("owner, name, make_bug, env, num_players, games, message", PLANTED_BUGS)
def test_planted_bugs_are_reported(monkeypatch, owner, name, make_bug, env, num_players, games, message):
    monkeypatch.setattr(owner, name, make_bug(getattr(owner, name)))
    tally = fuzz.fuzz(ENVS[env], num_players, games, sampling=fuzz.FULL)
    assert tally.failures, f"the planted bug in {owner.__name__}.{name} went unnoticed"
    assert any(re.search(message, f.message) for f in tally.failures), [f.message for f in tally.failures]


def test_the_return_promise_holds_where_the_old_accounting_broke_it():
    """Keldice starts at -4 and Invers with a tile in hand: the rewards pay it (score mode)."""
    for name, players in (("keldice", 1), ("keldice", 3), ("invers", 2)):
        tally = fuzz.fuzz(
            ENVS[name], players, range(0, 6, 3), sampling=fuzz.Sampling(steps=0.0, games=0.0)
        )  # score mode, AEC and Gymnasium
        assert tally.failures == [] and tally.checks["return promise"] > 0 and set(tally.forms) == {"aec", "gymnasium"}


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
    assert "fuzz total (2..3 of 4 games, seed 5, deep 0.03125, deep games 0.125): games 2, steps" in logs[1].read_text()
    assert fuzz.main(["--env", "invers", "--games", "4", "--seed", "5"]) == 0
    whole = capsys.readouterr().out
    steps = re.search(r"invers 2p: games 4, steps (\d+), invariant checks (\d+), failures 0", whole)
    assert fuzz.main(["--sum", *map(str, logs)]) == 0
    summed = capsys.readouterr().out
    assert f"invers: games 4, steps {steps[1]}, invariant checks {steps[2]}, failures 0, " in summed


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


def test_sampling_options_and_their_replay_command(capsys):
    with pytest.raises(SystemExit):
        fuzz.main(["--env", "invers", "--deep", "2"])
    assert "argument --deep: expected a number between 0 and 1, got '2'" in capsys.readouterr().err
    assert fuzz.main(["--env", "roll_five", "--players", "2", "--games", "3", "--full"]) == 0
    assert "deep 1, deep games 1): games 3," in capsys.readouterr().out
    failure = fuzz.Failure("invers", {"num_players": 2}, 7, "", {}, fuzz.Sampling(steps=0.5, games=0.125))
    assert failure.replay_command().endswith("--games 1 --seed 7 --deep 0.5")
    assert (
        fuzz.Failure("invers", {"num_players": 2}, 7, "", {}, fuzz.FULL)
        .replay_command()
        .endswith("--deep 1.0 --deep-games 1.0")
    )
