"""The pipelines' shared network (training/pipelines/network.py): built without a PPO model, the same weights
as MaskablePPO draws for the same seed, and saved in the model.zip format the agents load."""

from __future__ import annotations

import gymnasium
import pytest
import torch
from sb3_contrib import MaskablePPO

import envs  # noqa: F401 (registers the Gymnasium ids)
from agents.run_folder import MODEL_FILE, CheckpointError
from agents.trained import TrainedAgent, load_model
from envs.games.invers import Invers
from envs.registry import get_entry, make_game
from training.framework.schema import ConfigError, table
from training.pipelines.network import MLP_SETTINGS, POLICY_SETTINGS, build_policy, policy_kwargs, save_policy

SETTINGS = {"net_arch": {"pi": [16], "vf": [8, 8]}, "activation_fn": "relu", "ortho_init": True}


def test_a_policy_built_alone_has_maskableppo_s_weights_for_the_same_seed():
    game = Invers(max_plies=30)
    env = gymnasium.make(get_entry("invers").gym_id, max_plies=30)
    model = MaskablePPO("MlpPolicy", env, seed=3, device="cpu", policy_kwargs=policy_kwargs(SETTINGS))
    policy = build_policy(game, SETTINGS, seed=3)
    expected = model.policy.state_dict()
    assert policy.state_dict().keys() == expected.keys()
    assert all(torch.equal(tensor, expected[key]) for key, tensor in policy.state_dict().items())
    assert policy.observation_space == model.observation_space and policy.action_space == model.action_space
    other = build_policy(game, SETTINGS, seed=4).state_dict()
    assert not torch.equal(other["action_net.weight"], expected["action_net.weight"])  # the seed matters


def test_a_saved_policy_loads_as_a_trained_agent_with_its_weights(tmp_path):
    game = Invers(max_plies=30)
    policy = build_policy(game, SETTINGS, seed=0)
    with torch.no_grad():
        policy.action_net.bias += 1.0  # as training leaves it
    save_policy(tmp_path / MODEL_FILE, policy, seed=0)
    loaded = load_model(tmp_path, game).policy.state_dict()
    assert all(torch.equal(tensor, loaded[key]) for key, tensor in policy.state_dict().items())
    agent = TrainedAgent.load(tmp_path, game, seed=0)
    state = game.new_initial_state()
    assert state.legal_mask(0)[agent.act(state.observe(0), state.legal_mask(0))]
    with pytest.raises(CheckpointError, match="expects observations"):
        load_model(tmp_path, make_game("roll_five"))  # the spaces are checked as a MaskablePPO model's are


def test_the_settings_tables_name_what_a_network_takes():
    assert policy_kwargs({"activation_fn": "gelu", "net_arch": [4]}) == {
        "activation_fn": torch.nn.GELU,
        "net_arch": [4],
    }
    with pytest.raises(ConfigError, match="unknown policy_kwargs key"):
        table(MLP_SETTINGS, "policy_kwargs")({"ortho_init": False}, "policy_kwargs")
    with pytest.raises(ConfigError, match="net_arch must be a list of layer sizes"):
        table(MLP_SETTINGS, "policy_kwargs")({"net_arch": {"pi": [4], "vf": [4]}}, "policy_kwargs")
    assert table(POLICY_SETTINGS, "policy_kwargs")(SETTINGS, "policy_kwargs") == SETTINGS
