"""Which two-player tables OpenSpiel's exact methods can handle: tree sizes, and CFR where it fits.

    python benchmarks/openspiel_exact.py                        # the sizes, then CFR and CFR+ on Invers, 2 plies
    python benchmarks/openspiel_exact.py --plies 3 --iterations 10 --solvers cfr+

Exploitability, NashConv and CFR walk the whole game tree, every decision and every
chance outcome, at every iteration (OpenSpiel's Python CFR keeps a table entry per
information state). The first table counts the histories of each game's smallest
two-player table, walking its tree depth first up to ``--cap`` histories, with the widest
decision and chance nodes met on the way: a tree that the walk does not finish is beyond
these methods in Python. The second runs CFR (and CFR+) on Invers cut to ``--plies``
plies under ``reward_mode="margin"``: each player's lead in flipped tiles when the cut
ends the game, so the table is zero-sum and not every game a draw (under ``"win"``, a cut
Invers game is always one, and every policy is a Nash equilibrium). After each
iteration it prints the exploitability of the average policy, which falls towards 0,
and the time since the solver started, exploitability included.
"""

from __future__ import annotations

import argparse
import time

import pyspiel
from open_spiel.python.algorithms import cfr, exploitability

import envs.integrations.openspiel  # noqa: F401 (registers the games)
from envs.integrations.openspiel import PREFIX
from training.framework.console import fail
from training.framework.schema import ConfigError

#: Each game's smallest two-player table: the fewest rolls, plies or turns its options allow.
SMALLEST = [
    ("invers", {"max_plies": 2}),
    ("invers", {"max_plies": 3}),
    ("invers", {"max_plies": 4}),
    ("lost_dice", {"rolls_per_player": 1}),
    ("keldice", {"rolls_per_player": 1}),
    ("roll_five", {"turn_based": True}),
    ("inverted_dice", {}),
    ("six_hundred", {}),
]

SOLVERS = {"cfr": cfr.CFRSolver, "cfr+": cfr.CFRPlusSolver}


def load(env: str, **params) -> pyspiel.Game:
    return pyspiel.load_game(PREFIX + env, {"players": 2, **params})


class TreeTooLarge(Exception):
    """The walk met more histories than its cap."""


def tree_size(game: pyspiel.Game, cap: int) -> dict[str, int | bool]:
    """Histories, decision nodes and the widest decision and chance nodes of ``game``'s tree, walked
    depth first up to ``cap`` histories (``complete``: whether the walk finished)."""
    size = {"histories": 0, "decisions": 0, "widest decision": 0, "widest chance": 0, "complete": True}

    def walk(state: pyspiel.State) -> None:
        if size["histories"] == cap:
            raise TreeTooLarge
        size["histories"] += 1
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions = [action for action, _ in state.chance_outcomes()]
            size["widest chance"] = max(size["widest chance"], len(actions))
        else:
            actions = state.legal_actions()
            size["decisions"] += 1
            size["widest decision"] = max(size["widest decision"], len(actions))
        for action in actions:
            walk(state.child(action))

    try:
        walk(game.new_initial_state())
    except TreeTooLarge:
        size["complete"] = False
    return size


def exploitabilities(game: pyspiel.Game, solver: str, iterations: int) -> list[tuple[float, float]]:
    """The exploitability of ``solver``'s average policy after each iteration, with the seconds
    since the solver started."""
    started = time.perf_counter()
    algorithm = SOLVERS[solver](game)
    curve = []
    for _ in range(iterations):
        algorithm.evaluate_and_update_policy()
        curve.append(
            (float(exploitability.exploitability(game, algorithm.average_policy())), time.perf_counter() - started)
        )
    return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cap", type=int, default=300_000, help="histories walked per tree (default 300000)")
    parser.add_argument("--plies", type=int, default=2, help="Invers's max_plies for CFR (default 2)")
    parser.add_argument("--iterations", type=int, default=20, help="CFR iterations (default 20)")
    parser.add_argument("--solvers", nargs="+", choices=list(SOLVERS), default=list(SOLVERS), help="default: both")
    parser.add_argument("--no-sizes", action="store_true", help="skip the tree sizes")
    args = parser.parse_args(argv)
    for option in ("cap", "plies", "iterations"):
        if getattr(args, option) < 1:
            return fail(ConfigError(f"--{option} must be positive, got {getattr(args, option)}"))
    if not args.no_sizes:
        print(f"## Two-player game trees (walked up to {args.cap:,} histories)\n")
        print("| game | parameters | histories | decision nodes | widest decision | widest chance | walk |")
        print("|---|---|---|---|---|---|---|")
        for env, params in SMALLEST:
            started = time.perf_counter()
            size = tree_size(load(env, **params), args.cap)
            counted = f"{size['histories']:,}" if size["complete"] else f"more than {size['histories']:,}"
            print(
                f"| {env} | {params or 'defaults'} | {counted} | {size['decisions']:,} | {size['widest decision']} "
                f"| {size['widest chance'] or '-'} | {time.perf_counter() - started:.1f} s |",
                flush=True,
            )
    game = load("invers", max_plies=args.plies, reward_mode="margin")
    size = tree_size(game, args.cap)
    print(
        f"\n## CFR on Invers, {args.plies} plies, reward_mode margin\n\n{size['histories']:,} histories, "
        f"{size['decisions']:,} decision nodes (information states: the game has perfect information)\n"
    )
    curves = {solver: exploitabilities(game, solver, args.iterations) for solver in args.solvers}
    print("| iteration | " + " | ".join(f"{solver} exploitability | {solver} s" for solver in curves) + " |")
    print("|---|" + "---|---|" * len(curves))
    for k in range(args.iterations):
        cells = " | ".join(f"{curve[k][0]:.4f} | {curve[k][1]:.1f}" for curve in curves.values())
        print(f"| {k + 1} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
