"""Time per move of OpenSpiel's searches as agents (:mod:`agents.openspiel`).

    python benchmarks/openspiel_speed.py                 # each env's OpenSpiel agent, 30 positions
    python benchmarks/openspiel_speed.py --moves 100 --simulations 200

Every agent plays the same positions of seeded random games (the view of a player to
act), on one thread, in a plain loop: ``make_agent(env, spec, game).act(observation,
mask)``. The time includes drawing the position behind the view and building the
OpenSpiel state the search starts from.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.registry import make_agent
from envs.registry import ENVS, make_game


def spec_for(env: str, simulations: int) -> str:
    algorithm = "ismcts" if make_game(env).hidden_information else "mcts"
    return f"openspiel:{algorithm},simulations={simulations}"


def positions(env: str, count: int, seed: int = 0) -> list:
    """``count`` (observation, mask) views of players to act in seeded random games."""
    game, rng, found = make_game(env), np.random.default_rng(seed), []
    while len(found) < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and len(found) < count:
            for player in state.acting_players():
                mask = state.legal_mask(player)
                found.append((state.observe(player), mask))
                state.apply(player, int(rng.choice(np.flatnonzero(mask))))
    return found[:count]


def ms_per_move(env: str, spec: str, moves: list) -> float:
    agent = make_agent(env, spec, make_game(env), seed=0)
    started = time.perf_counter()
    for observation, mask in moves:
        agent.act(observation, mask)
    return 1000 * (time.perf_counter() - started) / len(moves)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=30, help="positions per env (default 30)")
    parser.add_argument("--simulations", type=int, default=50, help="simulations per move (default 50)")
    parser.add_argument("--env", nargs="+", default=list(ENVS), help="envs (default: all)")
    args = parser.parse_args(argv)
    print("| env | agent | positions | ms per move |")
    print("|---|---|---|---|")
    for env in args.env:
        spec = spec_for(env, args.simulations)
        print(f"| {env} | `{spec}` | {args.moves} | {ms_per_move(env, spec, positions(env, args.moves)):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
