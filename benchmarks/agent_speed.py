"""Time per move of trained agents in a user's own plain Python loop, beside the harness's setting.

    python benchmarks/agent_speed.py                     # ppo and ppo+search (Invers), ppo and td (Inverted Dice)
    python benchmarks/agent_speed.py --moves 500

A user's loop calls ``make_agent(env, spec, game).act(observation, mask)`` with torch at
its default of one intra-op thread per core; the project's harness sets one thread. The
agents run every forward pass on one thread themselves (:mod:`agents.inference`), so
the two columns should agree (before that, a plain loop was many times slower: the
docs' experiment log, *Speed*). Each agent plays the
same positions (from seeded random games) in both settings, in the same run.
"""

from __future__ import annotations

import argparse
import sys

import torch

from training.evaluation.timed import ms_per_move, random_positions

AGENTS = [
    ("invers", "ppo"),
    ("invers", "ppo+search"),
    ("invers", "search:depth=4"),
    ("inverted_dice", "ppo"),
    ("inverted_dice", "td"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=200, help="positions per agent (default 200)")
    args = parser.parse_args(argv)
    default_threads = torch.get_num_threads()
    print(f"ms per move over {args.moves} positions; torch's default intra-op threads here: {default_threads}")
    print(f"{'env':<14} {'agent':<16} {'plain loop (default threads)':>29} {'one thread set by the caller':>29}")
    for env, spec in AGENTS:
        moves = random_positions(env, args.moves)
        torch.set_num_threads(default_threads)
        plain = ms_per_move(env, spec, moves)
        torch.set_num_threads(1)
        single = ms_per_move(env, spec, moves)
        torch.set_num_threads(default_threads)
        print(f"{env:<14} {spec:<16} {plain:>29.3f} {single:>29.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
