"""Time per move of the Invers searches on fixed positions: the search bot compiled and in
Python, its move values, and the network search.

    python benchmarks/search_speed.py                                   # the table, printed
    python benchmarks/search_speed.py --page docs/benchmarks/search_speed.md
    python benchmarks/search_speed.py --network RUN_DIR --positions 200

The positions come from random games (seeded, every fifth ply from ply 5 on), so every run
and every commit searches the same ones. Each figure is the best of ``--repeats`` passes
over them, to be robust to a busy machine, except the Python search from depth 5 on, timed
in one pass (it takes seconds a move there). The rows compare, side by side in one run:

* ``search:depth=d``, the bot (:mod:`agents.invers.compiled_search`), one ``act`` a move
  and the whole set in one ``act_batch`` call, against the Python search it replaced
  (:mod:`agents.invers.reference_search`), with the moves that differ between the two
  (each position searched with the same root shuffle by both);
* ``move_values`` at depth 4, the teacher's labels (every root move with a full window);
* ``ppo+search:depth=d``, the network inside its search as it plays, in compiled code
  (:mod:`agents.invers.compiled_network_search`), one search a move and in one batch,
  against the generic search with torch's forward pass (:mod:`agents.search`, what it
  played before) and the Python ``search:depth=4``, with the moves that differ between
  the compiled and the generic one; and its move values at depth 2 (the teacher's labels).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from agents.invers.reference_search import oracle_move, oracle_points
from agents.registry import make_agent
from agents.search import NetworkSearch
from agents.shipped import shipped_network
from envs.registry import make_game
from training.evaluation.machine import MachineRecord, measurement_page
from training.framework.console import USER_ERRORS, fail
from training.framework.schema import ConfigError

BOT_DEPTHS = (1, 2, 3, 4, 5, 6)
NETWORK_DEPTHS = (1, 2, 3)
#: the Python search from this depth on is timed in one pass
ONE_PASS_FROM = 5

NOTES = """
Each figure is milliseconds per move on the same positions (best of the passes; the Python
search from depth 5 on in one pass). "compiled" is the bot `search` as every command plays
it (`agents/invers/compiled_search.py`, Numba), one `act` a move; "in one batch" searches
every position in one `act_batch` call; "Python" is the search it replaced, kept as its
reference (`agents/invers/reference_search.py`). "moves that differ" searches every
position with the same root shuffle in both: 0 wherever the two are the same search
(`tests/test_invers_compiled_search.py` checks it on 10,000 positions). The figures depend
on the machine and its load, printed above: compare the columns of one run.
"""


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


def best_ms(play: Callable, states: list, repeats: int) -> float:
    """Milliseconds per position of ``play(state)`` over ``states``, the best of ``repeats`` passes."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for state in states:
            play(state)
        best = min(best, time.perf_counter() - start)
    return 1000.0 * best / len(states)


def batch_ms(bot, states: list, repeats: int) -> float:
    """Milliseconds per position of one ``act_batch`` call over all of ``states``."""
    observations = np.array([s.observe(s.to_move) for s in states])
    masks = np.array([s.legal_mask(s.to_move) for s in states])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        bot.act_batch(observations, masks)
        best = min(best, time.perf_counter() - start)
    return 1000.0 * best / len(states)


def differing_moves(game, states: list, depth: int) -> int:
    """Positions where the compiled and the Python search choose different moves, each
    position's root shuffled by the same generator in both."""
    bot = make_agent("invers", f"search:depth={depth}", game, seed=0)
    observations = np.array([s.observe(s.to_move) for s in states])
    masks = np.array([s.legal_mask(s.to_move) for s in states])
    compiled = bot.act_batch(observations, masks, rngs=[np.random.default_rng(k) for k in range(len(states))])
    python = [oracle_move(s, depth, np.random.default_rng(k)) for k, s in enumerate(states)]
    return int(np.sum(compiled != np.array(python)))


def bot_rows(game, states: list, repeats: int) -> list[list[str]]:
    rows = []
    for depth in BOT_DEPTHS:
        bot = make_agent("invers", f"search:depth={depth}", game, seed=0)
        bot.act_batch(np.array([states[0].observe(states[0].to_move)]), np.ones((1, 24)))  # compiled or loaded
        compiled = best_ms(lambda s: bot.act(s.observe(s.to_move), s.legal_mask(s.to_move)), states, repeats)
        in_batch = batch_ms(bot, states, repeats)
        rng = np.random.default_rng(0)
        python = best_ms(lambda s: oracle_move(s, depth, rng), states, 1 if depth >= ONE_PASS_FROM else repeats)
        rows.append(
            [
                f"`search:depth={depth}`",
                f"{compiled:.3f}",
                f"{in_batch:.3f}",
                f"{python:.2f}",
                f"{python / compiled:.0f}×",
                str(differing_moves(game, states, depth)),
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    teacher = make_agent("invers", "search:depth=4", game, seed=0)
    compiled = best_ms(teacher.move_values, states, repeats)
    python = best_ms(lambda s: oracle_points(s, 4), states, repeats)
    rows.append(
        ["`search:depth=4` move values", f"{compiled:.3f}", "—", f"{python:.2f}", f"{python / compiled:.0f}×", "—"]
    )
    return rows


def network_rows(game, network: str, states: list, repeats: int, python_depth_4: float) -> list[list[str]]:
    """``ppo+search`` as it plays (compiled), one act a move and in one batch, against the
    generic search with torch's forward pass (what it played before), with the moves the two
    choose differently on the same root shuffles; and the teacher's move values at depth 2."""
    rows = []
    observations = np.array([s.observe(s.to_move) for s in states])
    masks = np.array([s.legal_mask(s.to_move) for s in states])
    for depth in NETWORK_DEPTHS:
        agent = make_agent("invers", f"ppo+search:depth={depth},path={network}", game, seed=0)
        agent.act_batch(observations[:1], masks[:1])  # compiled or loaded
        generic = NetworkSearch(agent.search.network, depth=depth)
        compiled = best_ms(agent.search.search, states, repeats)
        in_batch = batch_ms(agent, states, repeats)
        torch_ms = best_ms(generic.search, states, repeats)
        differ = sum(
            agent.search.search(state, np.random.default_rng(k)).action
            != generic.search(state, np.random.default_rng(k)).action
            for k, state in enumerate(states)
        )
        rows.append(
            [
                f"`ppo+search:depth={depth}`",
                f"{compiled:.3f}",
                f"{in_batch:.3f}",
                f"{torch_ms:.2f}",
                f"{python_depth_4 / compiled:.1f}×",
                f"{torch_ms / compiled:.1f}×",
                str(differ),
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    teacher = make_agent("invers", f"ppo+search:depth=2,path={network}", game, seed=0)
    generic = NetworkSearch(teacher.search.network, depth=2)
    compiled = best_ms(teacher.search.exact_values, states, repeats)
    torch_ms = best_ms(generic.exact_values, states, repeats)
    rows.append(
        [
            "`ppo+search:depth=2` move values",
            f"{compiled:.3f}",
            "—",
            f"{torch_ms:.2f}",
            f"{python_depth_4 / compiled:.1f}×",
            f"{torch_ms / compiled:.1f}×",
            "—",
        ]
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", help="run directory or model .zip (default: the shipped network)")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--page", type=Path, help="also write the tables as a docs page (Markdown)")
    args = parser.parse_args(argv)
    network = args.network or str(shipped_network("invers"))
    # the page names the network as a reader finds it: the shipped one by its place in the repository
    named = "the shipped network (`checkpoints/invers/shipped`)" if args.network is None else f"the network `{network}`"
    torch.set_num_threads(1)
    game = make_game("invers")
    try:  # the network is loaded (or refused in one line) before any position is timed
        if args.positions <= 0 or args.repeats <= 0:
            raise ConfigError("--positions and --repeats must be positive")
        if args.page is not None and not args.page.parent.is_dir():
            raise ConfigError(f"--page {args.page}: no folder {args.page.parent}")
        make_agent("invers", f"ppo:path={network}", game)
    except (*USER_ERRORS, ValueError) as error:  # make_agent reports a spec it cannot build as a ValueError
        return fail(error)
    record = MachineRecord()
    states = positions(game, args.positions)
    print(f"{len(states)} positions, best of {args.repeats}\n")
    header = ["search", "compiled (ms)", "compiled, in one batch (ms)", "Python (ms)", "Python / compiled"]
    header.append("moves that differ")
    rows = bot_rows(game, states, args.repeats)
    python_depth_4 = float(rows[BOT_DEPTHS.index(4)][3])
    network_header = [
        "search",
        "compiled (ms)",
        "compiled, in one batch (ms)",
        "generic, torch (ms)",
        "Python `search:depth=4` / compiled",
        "generic / compiled",
        "moves that differ",
    ]
    networks = network_rows(game, network, states, args.repeats, python_depth_4)
    tables = [(header, rows), (network_header, networks)]
    text = []
    for table_header, table_rows in tables:
        text += ["| " + " | ".join(table_header) + " |", "|" + "---|" * len(table_header)]
        text += ["| " + " | ".join(row) + " |" for row in table_rows] + [""]
    print("\n" + "\n".join(text))
    if args.page is not None:
        command = "python benchmarks/search_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        page = measurement_page("Search speed", command.strip(), record, header, rows, NOTES)
        page += "\n".join(
            [
                "",
                "## The network search",
                "",
                f"`ppo+search` with {named}, on the same positions: as every command plays it, in"
                " compiled code (`agents/invers/compiled_network_search.py`), one search a move and"
                " every position in one `act_batch` call; against the generic search with torch's"
                " forward pass (`agents/search.py`, what it played before) and the Python"
                ' `search:depth=4` of the table above. "moves that differ" searches every position'
                " with the same root shuffle in both: the two add up the network's products in"
                " other orders, so values differ in their last bits, and a move differs only where"
                " two moves tie to within that rounding (`tests/test_invers_compiled_network_search.py`"
                " checks the compiled search against the generic one given the same values,"
                " position for position).",
                "",
                *text[len(rows) + 3 :],
            ]
        )
        args.page.write_text(page)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
