"""The rollout agent against its own base, in every env: how much the rollouts add, and what a move costs.

    python benchmarks/rollout_strength.py                       # every env, bases random and ppo, 30 games each
    python benchmarks/rollout_strength.py --games 100 --n 32 --env invers

For each env and base (``random``, and ``ppo`` where a network is shipped for the env),
``rollout:n=N,base=BASE`` plays its base through the evaluation harness
(:mod:`training.evaluation.harness`): a one-player game (Inverted Dice, Six Hundred) as both
agents playing the same seeds, reported as mean scores and their paired difference with 95%
intervals; a game of several players as a pairing, the rollout agent in every seat in turn
and its base in the others, reported as the rollout agent's score share (wins + half the
draws) with its 95% Wilson interval. Invers has no chance, so its games open with two random
plies (as its evaluations do), which makes games between deterministic agents differ. The
time per move of both agents is measured in the same games, on one torch thread. At the
defaults the whole run takes about six minutes of one core.
"""

from __future__ import annotations

import argparse
import sys

import torch

from agents.registry import make_agent
from agents.shipped import shipped_envs
from envs.registry import ENVS, get_entry, make_game
from training.evaluation.harness import evaluate_pairing, evaluate_solitaire, mean_ci
from training.evaluation.timed import TimedAgent
from training.framework.console import USER_ERRORS, fail
from training.framework.schema import ConfigError

BASES = ("random", "ppo")
#: Random plies opening every game of an env without chance (see the module doc).
OPENING_PLIES = {"invers": 2}
BASE_SEED = 20_000


def measure(env: str, base: str, rollout: TimedAgent, opponent: TimedAgent, games: int) -> str:
    """The rollout agent against its base in ``games`` games of ``env``: the result as one table cell."""
    game = rollout.game
    if game.num_players == 1:
        results = evaluate_solitaire(game, {"rollout": rollout, base: opponent}, range(BASE_SEED, BASE_SEED + games))
        ours, theirs = (result.scores for result in results)
        (mean, half), (base_mean, base_half) = mean_ci(ours), mean_ci(theirs)
        difference, difference_half = mean_ci(ours - theirs)
        return (
            f"score {mean:.1f} [{mean - half:.1f}, {mean + half:.1f}] against {base_mean:.1f} "
            f"[{base_mean - base_half:.1f}, {base_mean + base_half:.1f}]; difference {difference:+.1f} "
            f"[{difference - difference_half:+.1f}, {difference + difference_half:+.1f}]"
        )
    result = evaluate_pairing(game, ("rollout", rollout), (base, opponent), games, BASE_SEED, OPENING_PLIES.get(env, 0))
    share, low, high = result.share()
    counts = "/".join(str(int((result.outcomes == outcome).sum())) for outcome in (1, 0, -1))
    distinct = f", {result.distinct_games} distinct" if result.distinct_games < result.games else ""
    return f"score share {share:.3f} [{low:.3f}, {high:.3f}] (win / draw / loss {counts}{distinct})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30, help="games per env and base (default 30)")
    parser.add_argument(
        "--n", type=int, default=16, help="the rollout agent's continuations per legal move (default 16)"
    )
    parser.add_argument(
        "--confidence",
        type=float,
        default=0.0,
        help="the rollout agent's confidence: keep the base's move unless another is better by this many "
        "standard errors (default 0: the best mean)",
    )
    parser.add_argument("--base", action="append", choices=BASES, help="base (repeatable; default: all)")
    parser.add_argument("--env", action="append", help="env name (repeatable; default: all)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:  # every agent is built (or refused in one line) before any game is played
        if args.games < 1:
            raise ConfigError(f"--games must be positive, got {args.games}")
        names = [get_entry(name).name for name in args.env] if args.env else list(ENVS)
        pairings = []
        for env in names:
            game = make_game(env)
            for base in args.base or BASES:
                if base == "ppo" and env not in shipped_envs():
                    continue
                spec = f"rollout:n={args.n},confidence={args.confidence},base={base}"
                rollout = make_agent(env, spec, game, seed=0)
                pairings.append((env, base, TimedAgent(rollout), TimedAgent(make_agent(env, base, game, seed=1))))
    except (*USER_ERRORS, KeyError, ValueError) as error:  # an unknown env; a spec make_agent cannot build
        return fail(error)
    print(
        f"rollout:n={args.n},confidence={args.confidence},base=BASE against BASE, {args.games} games each; "
        "95% intervals; ms per move on one thread"
    )
    print("\n| env | base | the rollout agent against its base | ms / move, rollout | ms / move, base |")
    print("|---|---|---|---|---|", flush=True)
    for env, base, rollout, opponent in pairings:
        cell = measure(env, base, rollout, opponent, args.games)
        print(f"| {env} | {base} | {cell} | {rollout.ms_per_move:.1f} | {opponent.ms_per_move:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
