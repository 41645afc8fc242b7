"""Time per move of the Invers searches on fixed positions: the network search and the bot.

    python benchmarks/search_speed.py                       # the shipped network, depths 1-3; the bot, depths 1-4
    python benchmarks/search_speed.py --network RUN_DIR --positions 200

The positions come from random games (seeded, every fifth ply from ply 5 on), so every run
and every commit searches the same ones; each figure is the best of ``--repeats`` passes,
to be robust to a busy machine. What matters is the ratio of two searches measured in the
same run: the issue's comparison is the network search against ``search:depth=4`` at no
more time per move. The bot's move values (``move_values``, the teacher's labels) are
timed too: they search every root move with a full window.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

from agents.registry import make_agent
from agents.shipped import shipped_network
from envs.registry import make_game
from training.framework.console import USER_ERRORS, fail
from training.framework.schema import ConfigError


def positions(game, count: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))
            if state.ply >= 5 and state.ply % 5 == 0 and not state.is_terminal():
                found.append(state.clone())
    return found


def best_ms(play, states: list, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for state in states:
            play(state)
        best = min(best, time.perf_counter() - start)
    return 1000.0 * best / len(states)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default=str(shipped_network("invers")), help="run directory or model .zip")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    game = make_game("invers")
    try:  # the network is loaded (or refused in one line) before any position is timed
        if args.positions <= 0 or args.repeats <= 0:
            raise ConfigError("--positions and --repeats must be positive")
        searches = {
            depth: make_agent("invers", f"ppo+search:depth={depth},path={args.network}", game, seed=0)
            for depth in (1, 2, 3)
        }
    except (*USER_ERRORS, ValueError) as error:  # make_agent reports a spec it cannot build as a ValueError
        return fail(error)
    states = positions(game, args.positions)
    rows = []
    for depth, agent in searches.items():
        rows.append((f"ppo+search:depth={depth}", best_ms(agent.search.search, states, args.repeats)))
    for depth in (1, 2, 3, 4):
        bot = make_agent("invers", f"search:depth={depth}", game, seed=0)
        rows.append(
            (
                f"search:depth={depth}",
                best_ms(lambda s: bot.act(s.observe(s.to_move), s.legal_mask(s.to_move)), states, args.repeats),
            )
        )
    teacher = make_agent("invers", "search:depth=4", game, seed=0)
    rows.append(("search:depth=4 move_values", best_ms(teacher.move_values, states, args.repeats)))
    reference = dict(rows)["search:depth=4"]
    print(f"{len(states)} positions, best of {args.repeats}\n")
    print("| search | ms / move | ratio to search:depth=4 |\n|---|---|---|")
    for name, ms in rows:
        print(f"| `{name}` | {ms:.2f} | {ms / reference:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
