"""TorchRL: the masked PPO example learns Inverted Dice solitaire within a short run.

Skipped when TorchRL is not installed (``pip install -e ".[torchrl]"`` installs it).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason='TorchRL is not installed (pip install -e ".[torchrl]")')

import torch  # noqa: E402

from training.integrations.torchrl_ppo import solitaire_envs, train  # noqa: E402

torch.set_num_threads(1)


def test_masked_ppo_beats_a_random_player_at_inverted_dice_solitaire():
    curve = train("inverted_dice", iterations=6, frames_per_batch=1024, eval_games=40, seed=0)
    for point in curve:
        print(point)
    assert curve[0]["env_steps"] == 0 and curve[-1]["env_steps"] == 6 * 1024
    assert curve[-1]["return"] > curve[-1]["random_return"] + 20
    assert curve[-1]["return"] > curve[0]["return"] + 20


def test_a_game_without_a_solitaire_form_is_refused_naming_those_with_one():
    assert "inverted_dice" in solitaire_envs() and "invers" not in solitaire_envs()
    with pytest.raises(ValueError, match="trains a game of one player: expected one of"):
        train("invers")
