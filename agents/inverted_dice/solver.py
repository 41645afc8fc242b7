"""Exact optimal play of solitaire Inverted Dice, by backward induction over score sheets.

**State.** Between turns, all that matters for the rest of a solitaire game is which
boxes are open and, for each bonus section, whether its +50 can still be earned (no box
of it crossed out). The state is ``open boxes (20 bits) | alive flags (3 bits)``, and is
*canonical*: a section with no open box has its flag cleared (its bonus is paid or lost,
either way settled), a section with every box open has it set. So a section of ``n``
boxes takes ``2^(n+1) - 2`` values instead of ``3^n`` (open / scored / crossed for each
box), and the whole game 62 x 2046 x 62 = 7,864,824 states (not 3^20), indexed by the 23
bits (a dense table of 2^23 entries, 94% of them used).

**Value.** ``V(state)`` is the expected points still to come under optimal play (0 once
every box is written). A turn writes exactly one box, so states with ``n`` open boxes
depend only on states with ``n - 1``: layer by layer, every state's turn is solved
exactly by :func:`agents.inverted_dice.turn.plan_turn`, all states of a layer in
batches. The same pass carries ``M(state)``, the expected *square* of the points to
come under that policy, so the standard deviation of the final score is exact:
``sqrt(M - V^2)``.

**Reduced instances.** ``solve(max_open=n)`` solves only the states with at most ``n``
open boxes: the last ``n`` rounds of every game. Their values are exactly those of the
full solve; tests check them against a brute-force search.

**Figures**: 226.1896 expected points, standard deviation 34.45 (exact). The solve
holds a few hundred MiB and takes minutes of CPU time, once: its tables are cached
(below). The ``free_cross_out`` option gives bit-for-bit the same tables, as it must:
crossing out box ``c`` instead of scoring an open sum ``i`` never pays (from then on, a
player who scored ``i`` can copy every move of one who crossed out ``c``, writing ``c``
where the other writes ``i``, and ends at least ``i`` points ahead), and crossing out
before the last roll never beats rolling on and crossing out after it.

**Cache.** :func:`cached_solution` stores the full solve with :mod:`agents.solution_cache`
(``inverted_dice_v1_standard.npz`` / ``..._free-cross-out.npz``, 126 MB = 120 MiB each: the
value and second moment of every state, float64) and reloads it in seconds. Run
``python -m agents.inverted_dice.solver --help`` for the command line.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents import solution_cache
from agents.inverted_dice.turn import TurnPlan, plan_turn
from envs.games import inverted_dice as rules

NUM_SECTIONS = len(rules.SECTIONS)
NUM_STATES = 1 << (rules.NUM_BOXES + NUM_SECTIONS)
ALL_OPEN = (1 << rules.NUM_BOXES) - 1
ALL_ALIVE = (1 << NUM_SECTIONS) - 1
#: The state at the start of a game.
START = ALL_OPEN << NUM_SECTIONS | ALL_ALIVE
#: States solved per batch: large enough to amortise numpy's per-call cost, small
#: enough that a batch's working set stays in the processor's cache.
BATCH = 256
#: Bumped whenever the meaning or layout of a cached table changes.
CACHE_VERSION = 1

_SECTION_MASKS = np.array(rules.SECTION_MASKS)
_BOX = np.arange(rules.NUM_BOXES)[:, None]  # 0-based boxes, as a column against a batch
_BOX_SECTION = np.array(
    [next(s for s, (_, lo, hi) in enumerate(rules.SECTIONS) if lo <= b + 1 <= hi) for b in range(rules.NUM_BOXES)]
)[:, None]
_BOX_SECTION_MASK = _SECTION_MASKS[_BOX_SECTION]


def canonical_flags(open_mask, alive):
    """The alive flags as stored: cleared for sections with no open box, set for sections all open."""
    for s, section in enumerate(_SECTION_MASKS.tolist()):
        part = open_mask & section
        alive = np.where(part == 0, alive & ~(1 << s), np.where(part == section, alive | (1 << s), alive))
    return alive


def state_index(open_mask, alive):
    """The state of a sheet: ``open_mask`` bit ``b - 1`` for open box ``b``, ``alive`` bit ``s``
    for a live section ``s``."""
    return np.asarray(open_mask, np.int64) << NUM_SECTIONS | canonical_flags(open_mask, alive)


@functools.cache
def _open_counts() -> np.ndarray:
    return np.bitwise_count(np.arange(1 << rules.NUM_BOXES, dtype=np.uint32))


def states_with_open(n: int) -> np.ndarray:
    """Every canonical state with exactly ``n`` open boxes, ascending."""
    masks = np.flatnonzero(_open_counts() == n).astype(np.int64)
    candidates = (masks[:, None] << NUM_SECTIONS | np.arange(ALL_ALIVE + 1)).ravel()
    flags = candidates & ALL_ALIVE
    return candidates[canonical_flags(candidates >> NUM_SECTIONS, flags) == flags]


def solved_states(max_open: int) -> np.ndarray:
    """The states a solve up to ``max_open`` open boxes covers, layer by layer (the cache's order)."""
    return np.concatenate([states_with_open(n) for n in range(max_open + 1)])


def ending_states(states: np.ndarray):
    """Where writing each box leads from each state: ``(is_open, points, scored, crossed)``.

    Each is ``(boxes, len(states))``: whether box ``b`` is open, the points scoring it
    pays (``b``, plus 50 if it completes a live section), and the next state after
    scoring it or crossing it out.
    """
    open_mask, alive = states >> NUM_SECTIONS, states & ALL_ALIVE
    is_open = (open_mask >> _BOX & 1).astype(bool)
    rest = open_mask & ~(1 << _BOX)
    section_alive = alive >> _BOX_SECTION & 1
    points = _BOX + 1 + rules.SECTION_BONUS * (section_alive & (rest & _BOX_SECTION_MASK == 0))
    scored = rest << NUM_SECTIONS | canonical_flags(rest, alive)
    crossed = rest << NUM_SECTIONS | canonical_flags(rest, alive & ~(1 << _BOX_SECTION))
    return is_open, points, scored, crossed


def ending_values(states: np.ndarray, value: np.ndarray, moment: np.ndarray):
    """What writing each box is worth in each state: ``(score, cross, score_moment, cross_moment)``.

    Each is ``(boxes, len(states))``; scoring box ``b`` pays ``b`` points plus 50 if it
    completes a live section, then the rest of the game from the next state (``value``,
    ``moment``: tables over states, already solved for one box fewer). Not open: ``-inf``.
    """
    is_open, points, scored, crossed = ending_states(states)
    after_score = value[scored]
    return (
        np.where(is_open, points + after_score, -np.inf),
        np.where(is_open, value[crossed], -np.inf),
        np.where(is_open, points * (points + 2 * after_score) + moment[scored], 0.0),
        np.where(is_open, moment[crossed], 0.0),
    )


@dataclass
class Solution:
    """Optimal values of every state with at most ``max_open`` open boxes.

    ``value[state]`` and ``second_moment[state]`` (dense over all 2^23 state indices;
    unused entries are 0) are the expected points to come and their expected square.
    """

    free_cross_out: bool
    max_open: int
    value: np.ndarray
    second_moment: np.ndarray

    def covers(self, states) -> np.ndarray:
        """Whether the solution holds the values of each of ``states`` (at most ``max_open`` open boxes)."""
        return np.bitwise_count(np.asarray(states, np.int64) >> NUM_SECTIONS) <= self.max_open

    def std(self, state: int) -> float:
        """Standard deviation of the points to come from ``state`` under the optimal policy."""
        return float(np.sqrt(max(self.second_moment[state] - self.value[state] ** 2, 0.0)))

    def plan(self, states) -> TurnPlan:
        """The optimal play of the turn that starts in each of ``states`` (one state or an array of
        them; each must have an open box): a plan of batch ``len(states)``, state ``k``'s in column ``k``."""
        states = np.atleast_1d(np.asarray(states, np.int64))
        unplayable = ~self.covers(states) | (states >> NUM_SECTIONS == 0)
        if unplayable.any():
            state = int(states[np.argmax(unplayable)])
            raise ValueError(
                f"state {state:#x} has {(state >> NUM_SECTIONS).bit_count()} open boxes; "
                f"this solution covers 1..{self.max_open}"
            )
        return plan_turn(*ending_values(states, self.value, self.second_moment), self.free_cross_out)


def solve(free_cross_out: bool = False, max_open: int = rules.NUM_BOXES) -> Solution:
    """Backward induction over the states with at most ``max_open`` open boxes."""
    if not 0 <= max_open <= rules.NUM_BOXES:
        raise ValueError(f"max_open must be in 0..{rules.NUM_BOXES}, got {max_open}")
    value = np.zeros(NUM_STATES)  # zero pages cost no memory until written
    moment = np.zeros(NUM_STATES)
    for n in range(1, max_open + 1):
        layer = states_with_open(n)
        for start in range(0, len(layer), BATCH):
            batch = layer[start : start + BATCH]
            plan = plan_turn(*ending_values(batch, value, moment), free_cross_out)
            value[batch] = plan.value
            moment[batch] = plan.second_moment
    return Solution(bool(free_cross_out), max_open, value, moment)


# -- cache ---------------------------------------------------------------------------------


def _rules_key(free_cross_out: bool, max_open: int) -> dict:
    """Everything a cached table depends on; a file whose key differs is not used."""
    return {
        "game": rules.InvertedDice.name,
        "version": CACHE_VERSION,
        "num_dice": rules.NUM_DICE,
        "max_rolls": rules.MAX_ROLLS,
        "sections": [list(s) for s in rules.SECTIONS],
        "section_bonus": rules.SECTION_BONUS,
        "free_cross_out": bool(free_cross_out),
        "max_open": max_open,
    }


def cache_path(free_cross_out: bool, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the full solution of these rules is cached (see :func:`agents.solution_cache.cache_dir`)."""
    rule_set = "free-cross-out" if free_cross_out else "standard"
    return solution_cache.cache_dir(cache_dir) / f"inverted_dice_v{CACHE_VERSION}_{rule_set}.npz"


def solve_command(free_cross_out: bool, cache_dir: Path) -> str:
    """The command line that solves these rules again and replaces their cache file in ``cache_dir``."""
    command = "python -m agents.inverted_dice.solver --force"
    if free_cross_out:
        command += " --free-cross-out"
    if cache_dir.resolve() != solution_cache.cache_dir().resolve():
        command += f" --cache-dir {cache_dir}"
    return command


def save_solution(solution: Solution, path: str | os.PathLike) -> None:
    states = solved_states(solution.max_open)
    solution_cache.save(
        path,
        _rules_key(solution.free_cross_out, solution.max_open),
        value=solution.value[states],
        second_moment=solution.second_moment[states],
    )


def load_solution(path: str | os.PathLike, free_cross_out: bool, max_open: int = rules.NUM_BOXES) -> Solution:
    """The solution stored at ``path``; :class:`~agents.solution_cache.CacheError` if it is
    unreadable, corrupt or for other rules."""
    states = solved_states(max_open)
    lengths = {"value": len(states), "second_moment": len(states)}
    tables = solution_cache.load(
        path, _rules_key(free_cross_out, max_open), lengths, solve_command(free_cross_out, Path(path).parent)
    )
    value, moment = np.zeros(NUM_STATES), np.zeros(NUM_STATES)
    value[states], moment[states] = tables["value"], tables["second_moment"]
    return Solution(bool(free_cross_out), max_open, value, moment)


@functools.cache
def _cached(free_cross_out: bool, path: Path, force: bool) -> Solution:
    if path.exists() and not force:
        return load_solution(path, free_cross_out)
    print(
        f"Solving Inverted Dice (free_cross_out={free_cross_out}) exactly (1.5-2 minutes of CPU time); "
        f"caching it in {path}",
        file=sys.stderr,
    )
    solution = solve(free_cross_out)
    save_solution(solution, path)
    return solution


def cached_solution(
    free_cross_out: bool = False, cache_dir: str | os.PathLike | None = None, force: bool = False
) -> Solution:
    """The full solution: from memory, else from the cache file, else solved and cached.

    Solutions stay in memory for the process, so every agent after the first loads at
    once. A cache file that is corrupt or belongs to other rules raises
    :class:`~agents.solution_cache.CacheError` (naming the file and the problem) rather
    than being overwritten silently; ``force=True`` (``--force``) re-solves and replaces it.
    """
    return _cached(bool(free_cross_out), cache_path(free_cross_out, cache_dir).resolve(), bool(force))


def exact_optimum(game: rules.InvertedDice) -> tuple[float, str]:
    """The expected final score of optimal play from a fresh sheet under ``game``'s rules (its
    ``free_cross_out``), and where it comes from, in words: the benchmark's reference of a
    solitaire Inverted Dice task, found through :data:`agents.registry.EXACT_OPTIMA`."""
    return (
        float(cached_solution(game.free_cross_out).value[START]),
        "the exact optimum: the solver's expected score of a fresh sheet (agents/inverted_dice/solver.py)",
    )


# -- command line --------------------------------------------------------------------------


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        # "tabletop solve" when the tabletop command runs it (training/tabletop.py passes that), else the module's own
        prog=prog or "python -m agents.inverted_dice.solver",
        description="Solve solitaire Inverted Dice exactly (or load the cached solution) and print "
        "the optimal expected score and its standard deviation.",
    )
    parser.add_argument("--free-cross-out", action="store_true", help="the free_cross_out rule option")
    parser.add_argument(
        "--cache-dir", help=f"cache folder (default: ${solution_cache.CACHE_ENV} or {solution_cache.DEFAULT_CACHE_DIR})"
    )
    parser.add_argument("--force", action="store_true", help="solve again and overwrite the cache file")
    args = parser.parse_args(argv)

    path = cache_path(args.free_cross_out, args.cache_dir)
    action = "solved" if args.force or not path.exists() else "loaded"
    started = time.perf_counter()
    try:
        solution = cached_solution(args.free_cross_out, args.cache_dir, args.force)
    except solution_cache.CacheError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2  # bad input, as every command line of the project says it
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    rules_name = "free_cross_out=True" if args.free_cross_out else "standard rules"
    print(f"Inverted Dice, solitaire, {rules_name}")
    print(f"optimal expected score: {solution.value[START]:.6f}")
    print(f"standard deviation:     {solution.std(START):.6f}")
    print(f"{action} in {elapsed:.1f} s, peak memory {peak:.0f} MiB")
    print(f"cache: {path} ({path.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
