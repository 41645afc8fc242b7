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

from envs.registry import ENVS, make_game
from training.evaluation.timed import ms_per_move, random_positions


def spec_for(env: str, simulations: int) -> str:
    algorithm = "ismcts" if make_game(env).hidden_information else "mcts"
    return f"openspiel:{algorithm},simulations={simulations}"


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
        print(f"| {env} | `{spec}` | {args.moves} | {ms_per_move(env, spec, random_positions(env, args.moves)):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
