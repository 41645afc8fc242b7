"""Masked PPO with TorchRL on a solitaire game: its PettingZoo wrapper, ``MaskedCategorical``, ``ClipPPOLoss``.

    pip install -e ".[torchrl]"
    python -m training.integrations.torchrl_ppo                          # Inverted Dice, one player
    python -m training.integrations.torchrl_ppo --iterations 40 --frames-per-batch 2048

The env is TorchRL's ``PettingZooWrapper`` around the AEC env with ``use_mask=True``: the
player's group ``player_0`` carries its observation, its action mask and its reward, which
TorchRL's ``RewardScaling`` divides by the game's score range (:func:`reward_scale`). The
policy is TorchRL's ``ProbabilisticActor`` drawing from ``MaskedCategorical`` over an MLP's
logits and that mask (it never draws an illegal move); the critic is a second MLP; TorchRL's
``Collector``, ``GAE`` and ``ClipPPOLoss`` do the rest, all reading the group's keys.

After each iteration the greedy policy (the most likely legal action of the logits) plays
``--eval-games`` games on fixed seeds through the project's game loop, and its mean score
is printed beside a random player's on the same games; iteration 0 is the untrained network.
The example trains games of one player (``num_players=1``): with several, TorchRL's AEC
wrapper pays each player only on the steps it is shown, the problem
:mod:`envs.integrations.tianshou` solves for Tianshou.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.envs import RewardScaling, TransformedEnv
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from agents.base import Agent
from envs.registry import ENVS, get_entry, make_game
from training.integrations.returns import ReturnCurve

GROUP = "player_0"  #: the solitaire player's group in TorchRL's PettingZoo wrapper
OBSERVATION = (GROUP, "observation", "observation")
ACTION_MASK = (GROUP, "action_mask")
#: The keys GAE and the loss read and write, all in the player's group.
KEYS = {
    "reward": (GROUP, "reward"),
    "done": (GROUP, "done"),
    "terminated": (GROUP, "terminated"),
    "value": (GROUP, "state_value"),
    "advantage": (GROUP, "advantage"),
    "value_target": (GROUP, "value_target"),
}


class GreedyLogitsAgent(Agent):
    """Plays an MLP's most likely legal action (the trained policy's evaluation)."""

    name = "torchrl"

    def __init__(self, game, network: torch.nn.Module, seed: int | None = None):
        self.network = network
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = self.network(torch.as_tensor(np.asarray(observation, np.float32))).double().numpy()
        logits[~(np.asarray(action_mask) > 0)] = -np.inf
        return int(logits.argmax())


def solitaire_envs() -> list[str]:
    """The envs whose game can be played by one player."""
    return [name for name, entry in ENVS.items() if entry.game_class().min_players == 1]


def make_env(env: str, seed: int) -> TransformedEnv:
    """TorchRL's wrapper of env ``env``'s AEC env for one player, masks on, its rewards scaled by
    the game's score range (:func:`reward_scale`)."""
    wrapped = PettingZooWrapper(env=get_entry(env).load_module().env(num_players=1), use_mask=True, seed=seed)
    return TransformedEnv(wrapped, RewardScaling(loc=0.0, scale=reward_scale(env), in_keys=[KEYS["reward"]]))


def reward_scale(env: str) -> float:
    """One over the game's score range: a solitaire game pays its points as rewards (hundreds in a
    game), and a critic fitted to returns of that size swamps the policy's share of the clipped
    gradient; scaled, a whole game's return lies in [0, 1] (the greedy evaluation still reads scores)."""
    low, high = make_game(env, num_players=1).score_bounds()
    return 1.0 / (high - low)


def train(
    env: str = "inverted_dice",
    iterations: int = 10,
    frames_per_batch: int = 1024,
    epochs: int = 4,
    minibatch_size: int = 256,
    hidden: int = 64,
    lr: float = 1e-3,
    eval_games: int = 50,
    seed: int = 0,
    out=sys.stdout,
) -> list[dict]:
    """Train masked PPO on ``env`` solitaire; print and return the return curve (per iteration)."""
    if env not in solitaire_envs():
        raise ValueError(
            f"the TorchRL example trains a game of one player: expected one of {solitaire_envs()}, not {env!r}"
        )
    torch.manual_seed(seed)
    game = make_game(env, num_players=1)
    (observation_size,) = game.observation_shape
    actor_net = MLP(in_features=observation_size, out_features=game.num_actions, num_cells=[hidden, hidden])
    policy = ProbabilisticActor(
        TensorDictModule(actor_net, in_keys=[OBSERVATION], out_keys=[(GROUP, "logits")]),
        in_keys={"logits": (GROUP, "logits"), "mask": ACTION_MASK},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "action_log_prob"),
    )
    critic = TensorDictModule(
        MLP(in_features=observation_size, out_features=1, num_cells=[hidden, hidden]),
        in_keys=[OBSERVATION],
        out_keys=[KEYS["value"]],
    )
    advantage = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    advantage.set_keys(**KEYS)
    loss = ClipPPOLoss(policy, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=True)
    loss.set_keys(**KEYS, action=(GROUP, "action"), sample_log_prob=(GROUP, "action_log_prob"))
    optimizer = torch.optim.Adam(loss.parameters(), lr=lr)
    collector = Collector(
        make_env(env, seed),
        policy,
        frames_per_batch=frames_per_batch,
        total_frames=frames_per_batch * iterations,
        auto_register_policy_transforms=False,  # the policy keeps no state between steps
    )
    curve = ReturnCurve(game, eval_games, "score", "iteration", out)
    curve.record(0, 0, GreedyLogitsAgent(game, actor_net))
    for iteration, data in enumerate(collector, start=1):
        with torch.no_grad():
            advantage(data)
        rows = data.reshape(-1)
        for _ in range(epochs):
            for batch in torch.randperm(len(rows)).split(minibatch_size):
                terms = loss(rows[batch])
                total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optimizer.step()
        collector.update_policy_weights_()
        curve.record(iteration, iteration * frames_per_batch, GreedyLogitsAgent(game, actor_net))
    collector.shutdown()
    return curve.points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.integrations.torchrl_ppo",
        description="Masked PPO with TorchRL on a solitaire game; prints the mean score per iteration.",
    )
    parser.add_argument("--env", default="inverted_dice", choices=solitaire_envs())
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--frames-per-batch", type=int, default=1024)
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    train(args.env, args.iterations, args.frames_per_batch, eval_games=args.eval_games, seed=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
