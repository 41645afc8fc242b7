"""Resume is exact where it can be (issue 26): a run stopped at a checkpoint and resumed learns the
same weights as the same run straight through.

Turn-value TD and expert iteration keep every generator, buffer and optimizer they draw on in
their ``state_dict``, and the framework keeps the global generators, so their resumed runs are
bit-for-bit the straight ones. PPO's is not: SB3 cannot carry the episodes in progress over a
checkpoint, so a resumed PPO run starts new episodes (``docs/guides/reproducibility.md``); its
resumes are reproducible instead (``tests/test_robustness.py``).
"""

from __future__ import annotations

import torch

from agents.run_folder import MODEL_FILE, VALUE_FILE
from tests.test_expert_iteration import tiny_config as ei_tiny_config
from tests.test_turn_value import tiny_config
from training import train, train_td

QUIET = ["--no-eval", "--no-progress"]


def same_tensors(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _td_weights(run) -> dict[str, torch.Tensor]:
    return torch.load(run / VALUE_FILE, map_location="cpu", weights_only=False)["state_dict"]


def test_a_resumed_td_run_learns_the_same_weights_as_one_straight_through(tmp_path):
    config = str(tiny_config(tmp_path, games=40))
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train_td.main(["--config", config, "--run-dir", str(straight), *QUIET]) == 0
    assert train_td.main(["--config", config, "--run-dir", str(resumed), "--games", "20", *QUIET]) == 0
    assert not same_tensors(_td_weights(straight), _td_weights(resumed))  # halfway: not there yet
    assert train_td.main(["--resume", str(resumed), "--games", "40", *QUIET]) == 0
    assert same_tensors(_td_weights(straight), _td_weights(resumed))


def policy_weights_of(run) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 (sb3 takes seconds to import; only these tests need it)

    return MaskablePPO.load(str(run / MODEL_FILE), device="cpu").policy.state_dict()


def test_a_resumed_expert_iteration_run_learns_the_same_weights_as_one_straight_through(tmp_path):
    config = str(ei_tiny_config(tmp_path, generations=3, max_snapshots=1))
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train.main(["--config", config, "--run-dir", str(straight), *QUIET]) == 0
    assert train.main(["--config", config, "--run-dir", str(resumed), "--generations", "2", *QUIET]) == 0
    assert train.main(["--resume", str(resumed), "--generations", "3", *QUIET]) == 0
    assert same_tensors(policy_weights_of(straight), policy_weights_of(resumed))
