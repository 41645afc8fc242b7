"""Every shipped network gives a row the same output, bit for bit, alone and in any batch
(:func:`agents.inference.row_blocks`): what makes an agent's games played as rows of a batch
the games it plays one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from agents.inference import ROW_BLOCK, row_blocks
from agents.registry import make_agent
from agents.shipped import checkpoints_root, shipped_envs
from envs.registry import make_game

#: Batch sizes around and far beyond the padding block.
BATCHES = (1, 3, ROW_BLOCK - 1, ROW_BLOCK + 1, 100, 1000)


def shipped_policies() -> list[tuple[str, int]]:
    """``(env, players)`` of every shipped PPO network: ``shipped/`` at the default table, ``shipped_<n>p/`` at n."""
    tables = [(env, make_game(env).num_players) for env in shipped_envs("ppo")]
    tables += [
        (folder.parent.name, int(folder.name.removeprefix("shipped_").removesuffix("p")))
        for folder in sorted(checkpoints_root().glob("*/shipped_[0-9]p"))
    ]
    return tables


def outputs_alone_and_in_batches(compute, rows: np.ndarray) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    alone = np.concatenate([compute(rows[i : i + 1]) for i in range(len(rows))])
    return alone, {
        size: np.concatenate([compute(rows[i : i + size]) for i in range(0, len(rows), size)]) for size in BATCHES
    }


def random_rows(shape: tuple[int, ...], count: int = 1000) -> np.ndarray:
    """Observations of 0s and 1s with some fractions: the values the envs' observations take."""
    rng = np.random.default_rng(0)
    rows = (rng.random((count, *shape)) < 0.4).astype(np.float32)
    return rows * np.where(rng.random(rows.shape) < 0.2, rng.random(rows.shape), 1.0).astype(np.float32)


@pytest.mark.parametrize("env, players", shipped_policies(), ids=lambda value: str(value))
def test_a_shipped_policy_gives_a_row_the_same_logits_alone_and_in_any_batch(env, players):
    game = make_game(env, num_players=players)
    network = make_agent(env, "ppo", game).network
    alone, batches = outputs_alone_and_in_batches(
        lambda rows: network.logits(rows, row_independent=True), random_rows(game.observation_shape)
    )
    for size, logits in batches.items():
        differ = int((logits != alone).any(axis=1).sum())
        assert differ == 0, f"{env} at {players}: {differ} rows' logits differ in batches of {size} from alone"


@pytest.mark.parametrize("env", shipped_envs("td"))
def test_a_shipped_turn_value_network_values_a_sheet_the_same_alone_and_in_any_batch(env):
    net = make_agent(env, "td", make_game(env, num_players=1)).net
    alone, batches = outputs_alone_and_in_batches(net.values, random_rows((net.num_features,)))
    for size, values in batches.items():
        assert np.array_equal(values, alone), f"{env}: values differ in batches of {size} from alone"


def test_row_blocks_pads_to_a_multiple_of_the_block_with_zero_rows():
    rows = np.ones((ROW_BLOCK + 3, 5), np.float32)
    padded = row_blocks(rows).numpy()
    assert padded.shape == (2 * ROW_BLOCK, 5) and padded.dtype == np.float32
    assert (padded[: len(rows)] == 1).all() and (padded[len(rows) :] == 0).all()
    assert row_blocks(np.ones((ROW_BLOCK, 5))).shape == (ROW_BLOCK, 5)
