"""Masked PPO with Tianshou on any env of the collection, every reward delivered.

    pip install -e ".[tianshou]"
    python -m training.integrations.tianshou_ppo --env inverted_dice            # solitaire
    python -m training.integrations.tianshou_ppo --env lost_dice --epochs 30 --run-dir runs/lost_dice_ts
    python training/evaluate.py --checkpoint runs/lost_dice_ts                 # the run as an agent

Seat 0 learns (Tianshou's PPO over :class:`agents.tianshou_policy.MaskedActorPolicy`);
every other seat is a uniformly random legal player. The env is Tianshou's
``PettingZooEnv`` through :class:`envs.integrations.tianshou.TianshouAECEnv`, which pays
each player on its own rows what the others' moves paid it and shows everyone the end
of the game. Each epoch collects whole games, then updates the policy; after it, the
learner's greedy masked action (:class:`agents.tianshou.TianshouAgent`) plays
``--eval-games`` games on fixed seeds through the project's game loop, and its mean
return (the env's rewards: the score solitaire, the result +1 / 0 / -1 otherwise) is
printed beside a random player's on the same seeds; epoch 0 is the untrained network.

Tianshou's PPO computes its advantages over a player's rows as if they followed one
another in the game, bootstrapping each from ``obs_next``, which in a multi-agent buffer
is the next player's observation, and ends them only at the episode's last row.
:class:`MaskedPPO` bootstraps each row from the value of the same player's next row and
ends a player's episode at its last row (the wrapper's ``info["final"]``); in a
solitaire game that is plain PPO.

The run folder (``--run-dir``) holds ``config.yaml`` (the env, its options, these
settings), ``metadata.json`` (algorithm ``tianshou_ppo``), ``tianshou_policy.pt`` and
``return_curve.csv`` (epoch, env steps, the learner's and random's mean returns), so
``training/evaluate.py``, ``training/ladder.py`` and ``training/benchmark.py`` play it.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import yaml
from tianshou.algorithm import PPO
from tianshou.algorithm.algorithm_base import OnPolicyAlgorithm, TrainingStats
from tianshou.algorithm.multiagent.marl import MultiAgentOnPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer, to_torch_as
from tianshou.env import DummyVectorEnv
from tianshou.utils.torch_utils import policy_within_training_step

from agents.run_folder import CONFIG_FILE, METADATA_FILE, RETURN_CURVE_FILE, TIANSHOU_POLICY_FILE
from agents.tianshou import ALGORITHM, TianshouAgent
from agents.tianshou_policy import build_networks, masked_policy, save_policy
from envs.aec import resolve_reward_mode
from envs.core import Game
from envs.integrations.tianshou import FINAL, make_tianshou_env
from envs.registry import ENVS, make_game
from training.integrations.returns import ReturnCurve


@dataclass
class Settings:
    """What a run trains with (written to the run's ``config.yaml``)."""

    env: str
    env_kwargs: dict = field(default_factory=dict)
    epochs: int = 10
    episodes_per_epoch: int = 16  #: whole games collected before each update
    repeat: int = 4  #: passes of PPO over each epoch's rows
    batch_size: int = 256
    hidden_sizes: list[int] = field(default_factory=lambda: [64, 64])
    lr: float = 3e-3
    gamma: float = 1.0  #: games are short and scored at the end: undiscounted
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    eval_games: int = 50
    seed: int = 0


class MaskedPPO(PPO):
    """Tianshou's PPO with each player's advantages computed over its own rows (see the module docstring)."""

    def _add_returns_and_advantages(self, batch, buffer, indices):
        with torch.no_grad():
            values = torch.cat(
                [self.critic(minibatch.obs) for minibatch in batch.split(self.max_batchsize, shuffle=False)]
            ).flatten()
        batch.v_s = values
        scale = np.sqrt(self.ret_rms.var + self._eps) if self.return_scaling else 1.0  # as Tianshou's PPO scales
        values = values.cpu().numpy().astype(np.float64) * scale
        advantages = player_advantages(
            np.asarray(batch.rew, np.float64), values, player_ends(batch, buffer, indices), self.gamma, self.gae_lambda
        )
        returns = advantages + values
        if self.return_scaling:
            self.ret_rms.update(returns)
        batch.adv = to_torch_as(advantages, batch.v_s)
        batch.returns = to_torch_as(returns / scale, batch.v_s)
        return batch


def player_ends(batch, buffer, indices: np.ndarray) -> np.ndarray:
    """For one player's rows in buffer order, whether each is the last of its game there:
    the player's final row (the wrapper's ``info["final"]``, or the episode's end), or the
    last of a game that the buffer holds only the start of (its sub-buffer ends; the row
    is then bootstrapped from its own value)."""
    if FINAL not in batch.info.get_keys():
        raise ValueError(f"MaskedPPO needs the rows of envs.integrations.tianshou's env (info[{FINAL!r}] is missing)")
    final = np.asarray(batch.info[FINAL], bool) | np.asarray(batch.terminated, bool) | np.asarray(batch.truncated, bool)
    offsets = getattr(buffer, "_offset", np.zeros(1, np.int64))  # a VectorReplayBuffer's sub-buffers
    part = np.searchsorted(offsets, indices, side="right")
    cut = np.append(part[1:] != part[:-1], True) & ~final
    return np.where(final, 1, np.where(cut, 2, 0))


def player_advantages(rewards: np.ndarray, values: np.ndarray, ends: np.ndarray, gamma: float, lam: float):
    """GAE over one player's rows in order: row ``i + 1`` is the same player's next state
    unless ``ends[i]`` (1: its game ended there, nothing follows; 2: cut off, bootstrapped
    from its own value)."""
    advantages = np.zeros_like(values)
    following = 0.0
    for i in reversed(range(len(values))):
        if ends[i]:
            following = 0.0
            next_value = 0.0 if ends[i] == 1 else values[i]
        else:
            next_value = values[i + 1]
        following = rewards[i] + gamma * next_value - values[i] + gamma * lam * following
        advantages[i] = following
    return advantages


class RandomOpponent(OnPolicyAlgorithm):
    """A uniformly random legal player for the seats that do not learn (Tianshou's masked random policy)."""

    def __init__(self, action_space):
        super().__init__(policy=MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(action_space))

    def _update_with_batch(self, batch, batch_size, repeat) -> TrainingStats:
        return TrainingStats()


def train(settings: Settings, run_dir: Path | None = None, out=sys.stdout) -> list[dict]:
    """Train as ``settings`` say, print and return the return curve; write the run folder to ``run_dir``."""
    if settings.env not in ENVS:
        raise ValueError(f"unknown env {settings.env!r}: expected one of {', '.join(ENVS)}")
    torch.manual_seed(settings.seed)
    np.random.seed(settings.seed)  # Tianshou's random players draw from numpy's global generator
    game = make_game(settings.env, **settings.env_kwargs)
    reward_mode = resolve_reward_mode(settings.env_kwargs.get("reward_mode"), game)
    env = make_tianshou_env(settings.env, **settings.env_kwargs)
    actor, critic = build_networks(game.observation_shape, game.num_actions, settings.hidden_sizes)
    learner = MaskedPPO(
        policy=masked_policy(actor, game.num_actions),
        critic=critic,
        optim=AdamOptimizerFactory(lr=settings.lr),
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        ent_coef=settings.ent_coef,
        max_grad_norm=0.5,
        return_scaling=True,  # the value's targets in units of the returns' spread: scores and results alike
    )
    opponents = [RandomOpponent(env.action_space) for _ in range(game.num_players - 1)]
    algorithm = MultiAgentOnPolicyAlgorithm(algorithms=[learner, *opponents], env=env)
    envs = DummyVectorEnv([lambda: make_tianshou_env(settings.env, **settings.env_kwargs)])
    envs.seed(settings.seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(20_000, len(envs)))
    collector.reset()
    curve, steps = ReturnCurve(game, settings.eval_games, reward_mode, "epoch", out), 0
    curve.record(0, steps, TianshouAgent(game, actor.eval()))
    for epoch in range(1, settings.epochs + 1):
        with policy_within_training_step(algorithm.policy):
            steps += collector.collect(n_episode=settings.episodes_per_epoch).n_collected_steps
            algorithm.update(buffer=collector.buffer, batch_size=settings.batch_size, repeat=settings.repeat)
        collector.reset_buffer(keep_statistics=True)
        curve.record(epoch, steps, TianshouAgent(game, actor.eval()))
    if run_dir is not None:
        write_run(run_dir, settings, actor, critic, game, curve.points)
    return curve.points


def write_run(run_dir: Path, settings: Settings, actor, critic, game: Game, curve: list[dict]) -> None:
    """The run folder: config, metadata, the policy file and the return curve."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(asdict(settings), sort_keys=False))
    save_policy(
        run_dir / TIANSHOU_POLICY_FILE, actor, critic, game.observation_shape, game.num_actions, settings.hidden_sizes
    )
    with open(run_dir / RETURN_CURVE_FILE, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)
    metadata = {"algorithm": ALGORITHM, "seed": settings.seed, "epochs": settings.epochs, "curve": RETURN_CURVE_FILE}
    (run_dir / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    defaults = Settings(env="")
    parser = argparse.ArgumentParser(
        prog="python -m training.integrations.tianshou_ppo",
        description="Masked PPO with Tianshou (seat 0 against random players); prints the return per epoch.",
    )
    parser.add_argument("--env", required=True, choices=list(ENVS))
    parser.add_argument("--env-kwargs", default="{}", help='game options as a YAML mapping, e.g. "{num_players: 3}"')
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--episodes-per-epoch", type=int, default=defaults.episodes_per_epoch)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--lr", type=float, default=defaults.lr)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--run-dir", type=Path, help="where to write the run folder (default: none written)")
    args = parser.parse_args(argv)
    env_kwargs = yaml.safe_load(args.env_kwargs)
    if not isinstance(env_kwargs, dict):
        parser.error(f'--env-kwargs must be a YAML mapping such as "{{num_players: 3}}", got {args.env_kwargs!r}')
    torch.set_num_threads(1)
    # Tianshou's collector warns at every epoch that a multi-agent return (one per player) is not 1-D.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    settings = Settings(
        env=args.env,
        env_kwargs=env_kwargs,
        epochs=args.epochs,
        episodes_per_epoch=args.episodes_per_epoch,
        eval_games=args.eval_games,
        lr=args.lr,
        seed=args.seed,
    )
    train(settings, args.run_dir)
    if args.run_dir is not None:
        print(f"saved {args.run_dir / TIANSHOU_POLICY_FILE}; python training/evaluate.py --checkpoint {args.run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
