"""``vec_env: batched``: SB3's VecEnv over the native batched env plays ``vec_env: game``'s games and trains."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks

from tests.test_game_vec_env import sb3_trace, vec_config
from tests.test_training import TINY, tiny_config
from training import train
from training.framework.config import load_config
from training.pipelines.ppo.batched_vec_env import BatchedVecEnv
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.self_play import PoolOpponent
from training.pipelines.ppo.vector import make_training_env


def _play(venv, steps: int):
    """Everything SB3 reads of each step (an info's other keys, e.g. the single env's mask
    and seat, are not SB3's contract)."""
    return sb3_trace(venv, steps, lambda info: (info.get("TimeLimit.truncated", False), info.get("episode")))


def _episode(item) -> dict | None:
    return item[1] if isinstance(item, tuple) else None


@pytest.mark.parametrize(
    "env, extra",
    [
        ("inverted_dice", {}),
        ("six_hundred", {}),
        ("invers", {"opponents": ["greedy"]}),  # a bot that breaks ties at random: act_batch, one generator per game
        ("lost_dice", {"opponents": ["heuristic"]}),  # act_batch with random ties, one generator per game
    ],
)
def test_same_games_as_the_game_vec_env_seed_for_seed(env, extra):
    batched, _ = make_training_env(vec_config("batched", env, n_envs=5, **extra))
    single, _ = make_training_env(vec_config("game", env, n_envs=5, **extra))
    assert isinstance(batched, BatchedVecEnv)
    ours, theirs = _play(batched, 400), _play(single, 400)
    assert any(_episode(t) is not None for t in ours), "no episode ended: play longer"
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:  # the episode's wall time "t" differs, its return and length may not
            assert (a[0], _without_time(a[1])) == (b[0], _without_time(b[1]))


def _without_time(episode: dict | None) -> dict | None:
    return None if episode is None else {k: v for k, v in episode.items() if k != "t"}


def test_generators_round_trip_through_get_attr_and_set_attr():
    venv, _ = make_training_env(vec_config("batched", "six_hundred", n_envs=5))
    venv.reset()
    saved = venv.get_attr("np_random")
    first = _play(venv, 50)
    for index, generator in enumerate(saved):
        venv.set_attr("np_random", generator, indices=[index])
    assert all(g.bit_generator.state == s.bit_generator.state for g, s in zip(venv.get_attr("np_random"), saved))
    assert get_action_masks(venv).shape == (5, venv.action_space.n)
    with pytest.raises(AttributeError, match="per game"):
        venv.set_attr("reward_mode", "win")
    assert first


def test_a_tiny_batched_run_trains_and_resumes(tmp_path):
    run = tmp_path / "run"
    config = tiny_config(tmp_path, vec_env="batched", n_envs=4)
    assert train.main(["--config", str(config), "--run-dir", str(run), "--no-eval", *TINY]) == 0
    assert json.loads((run / "metadata.json").read_text())["timesteps"] >= 256
    assert train.main(["--resume", str(run), "--timesteps", "512", "--no-eval", "--no-progress"]) == 0


def test_self_play_trains_on_the_batched_env_with_a_pool_member_per_game(tmp_path):
    """Each game's copy of a pool seat draws its own member at its start."""
    path = tiny_config(
        tmp_path,
        env="lost_dice",
        env_kwargs={"num_players": 2, "rolls_per_player": 4},
        vec_env="batched",
        n_envs=4,
        self_play={"enabled": True, "pool": ["random", "heuristic"], "snapshot_every": 128, "max_snapshots": 2},
        evaluation={"games": 4, "opponents": ["random"]},
    )
    config = load_config(PPOConfig, path)
    venv, self_play = make_training_env(config)
    venv.reset()
    for _ in range(40):
        venv.step(get_action_masks(venv).argmax(axis=1))
    (opponent,) = venv.env.opponents
    members = {id(copy.member) for copy in venv.env._per_game[id(opponent)]}
    assert isinstance(opponent, PoolOpponent) and len(members) == 2  # both fixed members, game by game
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval", *TINY]) == 0


class _FirstLegal:
    """A member that acts one position at a time: the lowest legal action."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class _LastLegalInBatch(_FirstLegal):
    """A member that acts in batch: the highest legal action of every row, counting its calls."""

    calls = 0

    def act_batch(self, observations, action_masks):
        self.calls += 1
        return np.array([np.flatnonzero(mask)[-1] for mask in action_masks])


def test_a_pool_seat_plays_each_game_by_that_games_member_and_a_batched_member_in_one_call(tmp_path):
    config = load_config(
        PPOConfig,
        tiny_config(
            tmp_path,
            env="lost_dice",
            env_kwargs={"num_players": 2},
            vec_env="batched",
            self_play={"enabled": True, "pool": ["random"]},
            evaluation={"games": 6, "opponents": ["heuristic", "random"]},  # whole openings at two players
        ),
    )
    venv, _ = make_training_env(config)
    (seat,) = venv.env.opponents
    games = venv.env._per_game[id(seat)]
    one_at_a_time, batched = _FirstLegal(), _LastLegalInBatch()
    for k, game in enumerate(games):
        game.member = batched if k % 2 else one_at_a_time
    rng = np.random.default_rng(0)
    masks = (rng.random((len(games), seat.game.num_actions)) < 0.5).astype(np.int8)
    masks[:, 0] = masks[:, -1] = 1
    observations = np.zeros((len(games), *seat.game.observation_shape), np.float32)
    actions = seat.act_batch(observations, masks, games=games)
    np.testing.assert_array_equal(actions, np.where(np.arange(len(games)) % 2, seat.game.num_actions - 1, 0))
    assert batched.calls == 1
