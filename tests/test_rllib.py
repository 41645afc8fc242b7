"""Ray RLlib: the key-renaming env for every registered env, and masked PPO self-play.

Skipped when ray is not installed (``pip install -e ".[rllib]"`` installs it).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib", reason='Ray RLlib is not installed (pip install -e ".[rllib]")')

from agents.registry import make_agent  # noqa: E402
from agents.rllib import SHARED_POLICY, masked_greedy_actions  # noqa: E402
from envs import ENVS  # noqa: E402
from envs.integrations.rllib import ACTION_MASK, OBSERVATIONS, make_rllib_env  # noqa: E402
from envs.registry import make_game  # noqa: E402
from training import evaluate, train_rllib  # noqa: E402
from training.framework.config import load_config  # noqa: E402
from training.pipelines.rllib.config import RLlibConfig  # noqa: E402
from training.pipelines.rllib.learner import RLlib, build_config  # noqa: E402


@pytest.mark.parametrize("name", list(ENVS))
def test_the_rllib_env_plays_a_whole_game_with_rllibs_keys(name):
    env = make_rllib_env({"env": name})
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(env.env.unwrapped.game.max_game_length + 1):
        (agent,) = observations
        assert set(observations[agent]) == {OBSERVATIONS, ACTION_MASK}
        assert env.observation_spaces[agent].contains(observations[agent])
        legal = np.flatnonzero(observations[agent][ACTION_MASK])
        observations, rewards, terminateds, truncateds, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            returns[a] += r
        if terminateds["__all__"] or truncateds["__all__"]:
            break
    else:
        pytest.fail("the game did not end within max_game_length moves")
    state = env.env.unwrapped.game_state
    expected = state.returns() if env.env.unwrapped.reward_mode == "win" else state.scores()
    assert [returns[a] for a in env.possible_agents] == pytest.approx(expected.tolist())


def test_train_rllib_runs_the_users_config_saves_resumes_and_never_plays_an_illegal_move(tmp_path):
    """The path a user runs: ``train_rllib.py`` on a config file, through the run framework."""
    config = yaml.safe_load(open("configs/invers_rllib.yaml"))
    config.update(
        env_kwargs={"max_plies": 60},
        iterations=2,
        workers=2,
        rollout_steps=400,
        checkpoint_every=1,
        policy_kwargs={"net_arch": [32, 32], "activation_fn": "tanh"},
    )
    path = tmp_path / "invers_rllib.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train_rllib.main(["--config", str(path), "--run-dir", str(run), "--no-progress"]) == 0
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["iterations"] == 2 and metadata["algorithm"] == "rllib"
    assert (run / "rllib_checkpoint.zip").is_file()
    saved = load_config(RLlibConfig, run / "config.yaml")
    assert saved.env_kwargs == {"max_plies": 60}  # the game's options reach the envs
    module_config = build_config(saved).rl_module_spec.rl_module_specs[SHARED_POLICY].model_config
    assert module_config["fcnet_activation"] == "tanh" and module_config["fcnet_hiddens"] == [32, 32]
    assert train_rllib.main(["--resume", str(run), "--iterations", "3", "--no-progress"]) == 0
    assert json.loads((run / "metadata.json").read_text())["iterations"] == 3

    learner = RLlib(saved, run, RLlib.read_checkpoint(run))
    try:
        module = learner.algo.get_module(SHARED_POLICY)
    finally:
        learner.close()
    # Whole games with the trained policy in both seats: an illegal choice would raise.
    env = ENVS["invers"].load_module().env(max_plies=60)
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = observation["action_mask"]
            (action,) = masked_greedy_actions(module, observation["observation"][None], mask[None])
            assert mask[action], f"illegal action {action}"
            env.step(int(action))
    # Masks that allow a single, arbitrary action: the policy must take it.
    observations = np.random.default_rng(1).random((24, 151), dtype=np.float32)
    masks = np.eye(24, dtype=np.int8)[np.random.default_rng(2).permutation(24)]
    actions = masked_greedy_actions(module, observations, masks)
    assert (masks[np.arange(24), actions] == 1).all()


def test_an_rllib_run_folder_is_evaluated_as_its_modules_greedy_masked_action(tmp_path, capsys):
    """evaluate.py --checkpoint RUN on a train_rllib.py run: agents/rllib.py loads the shared module alone."""
    config = yaml.safe_load(open("configs/invers_rllib.yaml"))
    config.update(
        env_kwargs={"max_plies": 40},
        iterations=1,
        workers=0,
        rollout_steps=200,
        checkpoint_every=1,
        policy_kwargs={"net_arch": [32, 32], "activation_fn": "tanh"},
        evaluation={"games": 2, "random_opening_plies": 2},
    )
    path = tmp_path / "invers_rllib.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train_rllib.main(["--config", str(path), "--run-dir", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    assert evaluate.main(["--checkpoint", str(run), "--agents", "random"]) == 0
    assert capsys.readouterr().out.startswith(
        f"Run: {run} (--checkpoint); game Invers(num_players=2, max_plies=40) (the run's env_kwargs), "
        "2 random opening plies (the run's evaluation.random_opening_plies), "
        "2 games per pairing (the run's evaluation.games)"
    )
    game = make_game("invers", max_plies=40)
    agent = make_agent("invers", str(run), game)
    state, rng = game.new_initial_state(np.random.default_rng(0)), np.random.default_rng(1)
    observations, masks, actions = [], [], []
    while not state.is_terminal():
        (player,) = state.acting_players()
        observations.append(state.observe(player))
        masks.append(state.legal_mask(player))
        actions.append(agent.act(observations[-1], masks[-1]))
        state.apply(player, int(rng.choice(np.flatnonzero(masks[-1]))))
    assert actions == masked_greedy_actions(agent.module, np.array(observations), np.array(masks)).tolist()
    assert actions == agent.act_batch(np.array(observations), np.array(masks)).tolist()  # the batched env's opponents
    assert all(mask[action] for mask, action in zip(masks, actions))
