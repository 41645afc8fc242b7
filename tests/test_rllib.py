"""Ray RLlib: the key-renaming env for every registered env, and masked PPO self-play.

Skipped when ray is not installed (``pip install -e ".[rllib]"`` installs it).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason='Ray RLlib is not installed (pip install -e ".[rllib]")')

from envs import ENVS  # noqa: E402
from envs.integrations.rllib import ACTION_MASK, OBSERVATIONS, make_rllib_env  # noqa: E402


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


def test_masked_ppo_self_play_on_a_two_worker_local_cluster_never_plays_an_illegal_move():
    import ray

    from training.pipelines.rllib.learner import SHARED_POLICY, build_config, masked_greedy_actions

    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config("invers", workers=2, seed=0, env_options={"max_plies": 60}, batch_size=400).build_algo()
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 800
        module = algo.get_module(SHARED_POLICY)
        algo.stop()
    finally:
        ray.shutdown()

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
