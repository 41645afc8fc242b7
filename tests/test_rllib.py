"""Ray RLlib: the key-renaming env for every registered env, and masked PPO self-play on a local
Ray and on a two-node cluster (Ray's own multi-node test helper, two one-CPU nodes in this process).

Skipped when ray is not installed (``pip install -e ".[rllib]"`` installs it). Run with ``-s`` to see
where each env runner of the two-node run ran.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib", reason='Ray RLlib is not installed (pip install -e ".[rllib]")')

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from agents.registry import make_agent  # noqa: E402
from agents.rllib import SHARED_POLICY, masked_greedy_actions  # noqa: E402
from envs import ENVS  # noqa: E402
from envs.integrations.rllib import ACTION_MASK, OBSERVATIONS, make_rllib_env  # noqa: E402
from envs.registry import make_game  # noqa: E402
from tests.test_docs import code_blocks  # noqa: E402
from training import benchmark, evaluate, train_rllib  # noqa: E402
from training.framework.command import default_config  # noqa: E402
from training.framework.config import config_from_dict  # noqa: E402
from training.pipelines.rllib.config import RLlibConfig  # noqa: E402
from training.pipelines.rllib.learner import RLlib, build_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guides" / "integrations.md"


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


@pytest.fixture(scope="module")
def two_nodes():
    """A Ray cluster of two nodes with one CPU each: two env runners of one CPU must use both."""
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    cluster.shutdown()


def node_ids(cluster: Cluster) -> set[str]:
    return {node.node_id for node in cluster.list_all_nodes()}


def write_config(tmp_path, **values):
    """configs/invers_rllib.yaml with a tiny budget and network, and ``values`` over it."""
    config = yaml.safe_load(open("configs/invers_rllib.yaml"))
    config.update(
        iterations=1,
        rollout_steps=200,
        checkpoint_every=1,
        policy_kwargs={"net_arch": [32, 32], "activation_fn": "tanh"},
        ppo={**config["ppo"], "batch_size": 100, "n_epochs": 1},
        **values,
    )
    path = tmp_path / "invers_rllib.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_run_on_a_two_node_cluster_runs_on_both_resumes_and_is_evaluated_and_benchmarked(
    two_nodes, tmp_path, monkeypatch, capsys
):
    """RAY_ADDRESS names the cluster for the run, --address for its resume; its env runners run
    on both nodes, and metadata.json records Ray's version, the nodes and where each runner ran."""
    monkeypatch.setenv("RAY_ADDRESS", two_nodes.address)
    config = write_config(tmp_path, workers=2, evaluation={"enabled": False})
    run = tmp_path / "run"
    assert train_rllib.main(["--config", str(config), "--run-dir", str(run), "--no-progress"]) == 0
    facts = json.loads((run / "metadata.json").read_text())["ray"]
    with capsys.disabled():
        addresses = {node["node_id"]: node["address"] for node in facts["nodes"]}
        for index, node in enumerate(facts["env_runner_nodes"]):
            print(f"\nenv runner {index}: node {node} at {addresses[node]}")
    assert facts["version"] == ray.__version__ and facts["address"] == two_nodes.address
    assert {node["node_id"] for node in facts["nodes"]} == node_ids(two_nodes) and facts["cpus"] == 2
    assert set(facts["env_runner_nodes"][-2:]) == node_ids(two_nodes)  # the two remote runners, one on each node

    monkeypatch.delenv("RAY_ADDRESS")
    resume = ["--resume", str(run), "--iterations", "2", "--address", two_nodes.address, "--no-progress"]
    assert train_rllib.main(resume) == 0
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["iterations"] == 2 and [s["ended"] for s in metadata["sessions"]] == ["completed"] * 2
    assert set(metadata["ray"]["env_runner_nodes"][-2:]) == node_ids(two_nodes)

    capsys.readouterr()
    out = tmp_path / "evaluation"
    assert evaluate.main(["--checkpoint", str(run), "--agents", "random", "--games", "2", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"Run: {run} (--checkpoint); game Invers(")
    report = tmp_path / "benchmark"
    assert benchmark.main(["--agent", f"invers={run}", "--quick", "--out", str(report), "--no-progress"]) == 0
    results = json.loads((report / "benchmark.json").read_text())
    envs = {task["task"]: task["env"] for task in results["tasks"]}
    played = results["aggregates"]["tasks"]
    assert played and {envs[task] for task in played} == {"invers"}  # the run's env alone, each of its tasks

    # Whole games with the trained policy in both seats: an illegal choice would raise.
    module = make_agent("invers", str(run), make_game("invers")).module
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


def test_a_local_run_starts_its_own_ray_beside_a_running_cluster_and_is_evaluated(
    two_nodes, tmp_path, monkeypatch, capsys
):
    """No address and no RAY_ADDRESS: a Ray of the run's own, not the cluster started last on the machine
    (which a bare ray.init joins, then refuses the run's CPU count). evaluate.py --checkpoint RUN then
    plays agents/rllib.py's module alone."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    config = write_config(
        tmp_path,
        env_kwargs={"max_plies": 40},
        workers=0,
        evaluation={"games": 2, "random_opening_plies": 2},
    )
    run = tmp_path / "run"
    assert train_rllib.main(["--config", str(config), "--run-dir", str(run), "--no-progress", "--no-eval"]) == 0
    facts = json.loads((run / "metadata.json").read_text())["ray"]
    assert facts["address"] == "local" and len(facts["nodes"]) == 1
    assert facts["nodes"][0]["node_id"] not in node_ids(two_nodes)
    assert facts["env_runner_nodes"] == [facts["nodes"][0]["node_id"]]  # workers: 0, the driver samples
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


def test_the_guide_s_rllib_snippet_runs_beside_a_running_cluster(two_nodes, monkeypatch):
    """With RAY_ADDRESS naming a cluster (as a cluster file left on the machine does), the guide's bare
    ``ray.init(num_cpus=2)`` joined it and raised ``ValueError: When connecting to an existing cluster,
    num_cpus and num_gpus must not be provided.``"""
    (snippet,) = [block for block in code_blocks(GUIDE.read_text(), "python") if "ray.init(" in block]
    monkeypatch.setenv("RAY_ADDRESS", two_nodes.address)
    monkeypatch.chdir(ROOT)
    exec(compile(snippet, "<snippet>", "exec", dont_inherit=True), {"__name__": "__snippet__"})
    assert not ray.is_initialized()  # the snippet shut its own Ray down


def test_more_workers_than_the_cluster_has_cpus_is_one_line_before_anything_runs(two_nodes, tmp_path, capsys):
    """It was a hang: env runners that wait forever for a CPU."""
    run = tmp_path / "run"
    argv = ["--env", "invers", "--workers", "3", "--address", two_nodes.address, "--run-dir", str(run), "--no-eval"]
    assert train_rllib.main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"error: the run reserves 3 CPUs (3 workers x 1 + 0 learners x 1), but the Ray cluster "
        f"({two_nodes.address}) has 2; lower workers or the CPUs per worker or learner, or add nodes"
    )
    assert not run.exists() and not ray.is_initialized()


def test_rollout_steps_rllib_cannot_learn_from_are_refused_before_ray_starts(tmp_path, capsys):
    """``--rollout-steps 1`` passed, then crashed in RLlib's learner, leaving the run marked running."""
    run = tmp_path / "run"
    assert train_rllib.main(["--env", "invers", "--rollout-steps", "1", "--run-dir", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"error: --rollout-steps 1 (over {default_config(RLlib, 'invers')}): rollout_steps (1) must be at least 4: "
        "2 seats x 2 envs "
        "sampling (2 env runners x 1 envs_per_worker), so that every env ends each iteration with a move to "
        "learn from\n"
    )
    assert not run.exists() and not ray.is_initialized()


def test_the_env_runner_learner_and_network_keys_reach_rllibs_config():
    config = config_from_dict(
        RLlibConfig,
        {
            "env": "invers",
            "workers": 3,
            "envs_per_worker": 4,
            "cpus_per_worker": 0.5,
            "gpus_per_worker": 0.25,
            "learners": 2,
            "cpus_per_learner": 2,
            "gpus_per_learner": 1,
            "rollout_steps": 1024,
            "ppo": {"batch_size": 128},
            "policy_kwargs": {"net_arch": [32, 16], "activation_fn": "tanh"},
        },
    )
    rllib = build_config(config)
    assert (rllib.num_env_runners, rllib.num_envs_per_env_runner) == (3, 4)
    assert (rllib.num_cpus_per_env_runner, rllib.num_gpus_per_env_runner) == (0.5, 0.25)
    assert (rllib.num_learners, rllib.num_cpus_per_learner, rllib.num_gpus_per_learner) == (2, 2, 1)
    assert (rllib.train_batch_size_per_learner, rllib.minibatch_size) == (512, 128)  # each learner's half
    module_config = rllib.rl_module_spec.rl_module_specs[SHARED_POLICY].model_config
    assert module_config["fcnet_activation"] == "tanh" and module_config["fcnet_hiddens"] == [32, 16]
