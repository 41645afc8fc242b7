"""How much is there above Six Hundred's ``td``? A decision-time search on it, and a bound.

    python benchmarks/six_hundred_headroom.py                          # 5,000 games, the ceilings' seeds
    python benchmarks/six_hundred_headroom.py --games 500 --agents heuristic td td:lookahead=4

**The search.** ``td:lookahead=k`` (:mod:`agents.turn_value`) is the shipped ``td`` whose
writes are ranked again one turn deeper: of the ``k`` best categories for the dice it writes,
the one with the most ``points now + W(sheet after)``, where ``W`` is ``td``'s exact
expectimax over the next turn's rolls and locks with ``td``'s learned value at its leaves.
Every agent of ``--agents`` plays the same games (seeds from 3,000,000 on, the ceilings'
held-out games, so ``td``'s row is the ceilings report's), one move at a time (``act``), and
is compared with the heuristic and with ``td`` on the same dice: the ratio of the means
minus 1 as the ceilings measure it, and the paired difference in points, with 95%
intervals; the time per game and per move is each agent's own (the load beside it is
printed). The games are played in blocks of ``--block`` seeds, the scores of every block
kept in ``OUT/scores.json``: a run that is stopped resumes there, and the table is made of
the games every agent has played.

**The optimum of a reduced game.** Six Hundred's own optimum is out of reach (its sheets
are too many), but a game with fewer open categories is solved exactly here: the rungs (an
ascending ladder) and the categories of the other groups are written before the game starts
(nonzero, the Sextet 0, as :data:`PREFILLED` gives them), and the open ones, for example
Numbers and Clusters (ten turns, the Numbers bonus and the game bonus at stake), are played
to the end. Its state is which categories are open, the Numbers total (up to 80) and whether
a category that must score holds a 0, so the optimal expected points to come are a dynamic
program over those states, each turn an exact expectimax over its rolls and locks
(:func:`optimum_values`). The same values played by the heuristic's own turn planner make the
optimal agent (:class:`ReducedOptimum`); it plays the reduced game beside ``--reduced-agents``
(the heuristic and ``td``) on the same dice (seeds from :data:`BOUND_SEED` on), started from the written
sheet by :func:`reduced_start`. Reported: each agent's mean points to come, its difference to
the heuristic's (paired: the optimum's row is the headroom above the heuristic in that game)
and to the optimum's exact value.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from agents.six_hundred.estimate import KEEP_TABLES, ROLL_POINTS
from agents.six_hundred.heuristic import SixHundredHeuristic, lock_values, read_sheet
from benchmarks.ceilings import SEED, ratio_interval
from envs.games import six_hundred as rules
from envs.registry import make_game
from training.evaluation.harness import evaluate_solitaire, mean_ci
from training.evaluation.machine import cpu_model

ENV = "six_hundred"
AGENTS = ("heuristic", "td", "td:lookahead=2", "td:lookahead=4", "td:lookahead=8", "td:lookahead=18")
#: The first seed of the reduced games (the ceilings' games end at 3,005,000).
BOUND_SEED = 3_100_000
#: What the reduced games have written before they start: an ascending ladder and every
#: other category a typical nonzero score (the Sextet 0, which costs no game bonus).
PREFILLED = {
    **dict(zip(rules.RUNGS, (14, 19, 24, 29))),
    **dict(zip(range(rules.FOUR_OF_A_KIND, rules.SEXTET + 1), (24, 26, 21, 24, 30, 30, 30, 0))),
}
#: The reduced games, by name: their open categories (the Numbers always among them).
REDUCED = {
    "numbers": tuple(rules.NUMBERS),
    "numbers+clusters": (*rules.NUMBERS, *range(rules.FOUR_OF_A_KIND, rules.EVENS + 1)),
    "numbers+patterns": (*rules.NUMBERS, *range(rules.SERIES, rules.SEXTET + 1)),
}
THRESHOLD = rules.NUMBERS_BONUS_THRESHOLD


def write_table(values: dict, categories: tuple, mask: int) -> np.ndarray:
    """``(462, len(categories), 81, 2)``: the points now plus the optimal points to come of
    writing each sorted roll into each category of ``categories`` open in ``mask`` (a bit per
    category), for every Numbers total and zero flag (-inf: closed); ``values`` holds the
    optimal values of the states with fewer open categories."""
    table = np.full((len(ROLL_POINTS), len(categories), THRESHOLD + 1, 2), -np.inf)
    totals = np.arange(THRESHOLD + 1)
    for i, c in enumerate(categories):
        if not mask >> i & 1:
            continue
        points = ROLL_POINTS[:, c]
        after = values[mask & ~(1 << i)]
        if c in rules.NUMBERS:
            total = np.minimum(totals + points[:, None], THRESHOLD)
            bonus = np.where((totals < THRESHOLD) & (total >= THRESHOLD), rules.NUMBERS_BONUS, 0)
        else:
            total, bonus = np.broadcast_to(totals, (len(points), THRESHOLD + 1)), 0
        zero = ((points == 0) & (c != rules.SEXTET))[:, None]
        for z in (0, 1):
            table[:, i, :, z] = points[:, None] + bonus + after[total, np.where(zero, 1, z)]
    return table


def optimum_values(categories: tuple) -> dict:
    """The optimal points to come of every state of the reduced game with ``categories`` open at
    the start: ``mask`` (bit ``i``: ``categories[i]`` open) -> ``[Numbers total, zero flag]``."""
    values = {}
    for size in range(len(categories) + 1):
        for subset in itertools.combinations(range(len(categories)), size):
            mask = sum(1 << i for i in subset)
            if not size:  # the end: the game bonus unless a zero was written
                values[mask] = np.array([[rules.GAME_BONUS, 0.0]] * (THRESHOLD + 1))
                continue
            roll_values = write_table(values, categories, mask).max(axis=1).reshape(len(ROLL_POINTS), -1)
            _, two_left = lock_values(roll_values)
            turn = KEEP_TABLES.first_roll @ KEEP_TABLES.best_over_keeps(two_left, include_full_keep=True)
            values[mask] = turn.reshape(THRESHOLD + 1, 2)
    return values


class ReducedOptimum(SixHundredHeuristic):
    """The optimal player of a reduced game: the heuristic's exact turn planner against the
    optimal values of :func:`optimum_values` instead of its estimates."""

    name = "optimum"

    def __init__(self, game, categories: tuple, values: dict):
        super().__init__(game)
        self.categories, self.optimal = categories, values

    def write_tables_of(self, observations: np.ndarray) -> np.ndarray:
        tables = np.full((len(observations), rules.NUM_CATEGORIES, rules.MAX_CATEGORY_POINTS + 1), -np.inf)
        for table, observation in zip(tables, observations):
            sheet = read_sheet(observation)
            mask = sum(1 << i for i, c in enumerate(self.categories) if sheet[c] is None)
            total = min(sum(sheet[c] or 0 for c in rules.NUMBERS), THRESHOLD)
            zero = int(any(v == 0 for c, v in enumerate(sheet) if c != rules.SEXTET))
            by_roll = write_table(self.optimal, self.categories, mask)[:, :, total, zero]  # (462, categories)
            for i, c in enumerate(self.categories):  # a write's value depends on the roll through its points only
                table[c, ROLL_POINTS[:, c]] = by_roll[:, i]
        return tables


def reduced_start(game, categories: tuple, seed: int):
    """Game ``seed`` of the reduced game: :data:`PREFILLED` written but for ``categories``, at
    the first roll of its first open round (the dice to come drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    observation = game.new_initial_state(rng).observe(0)
    for c, points in PREFILLED.items():
        if c not in categories:
            observation[rules.OBS_OPEN.start + c] = 0.0
            observation[rules.OBS_SHEET.start + c] = points / rules.MAX_CATEGORY_POINTS
    observation[rules.OBS_TURNS_LEFT] = len(categories) / rules.NUM_ROUNDS
    return game.sample_state(observation, rng)


def play_reduced(agent, game, categories: tuple, seeds: range) -> np.ndarray:
    """The points each game of ``seeds`` of the reduced game brings ``agent`` (written ones not counted)."""
    banked = sum(v for c, v in PREFILLED.items() if c not in categories)
    points = []
    for seed in seeds:
        agent.reset(seed)
        state = reduced_start(game, categories, seed)
        while not state.is_terminal():
            state.apply(0, agent.act(state.observe(0), state.legal_mask(0)))
        points.append(state.scores()[0] - banked)
    return np.array(points)


def bound_table(name: str, agents: list[str], games: int) -> list[str]:
    """The reduced game ``name`` solved, then played by the optimum and ``agents``: a markdown table."""
    categories = REDUCED[name]
    game = make_game(ENV, num_players=1)
    started = time.perf_counter()
    values = optimum_values(categories)
    exact = float(values[(1 << len(categories)) - 1][0, 0])
    solve = time.perf_counter() - started
    seeds = range(BOUND_SEED, BOUND_SEED + games)
    players = {"optimum": ReducedOptimum(game, categories, values)} | {
        spec: make_agent(ENV, spec, game, seed=BOUND_SEED) for spec in agents
    }
    points, seconds = {}, {}
    for label, agent in players.items():
        started = time.perf_counter()
        points[label] = play_reduced(agent, game, categories, seeds)
        seconds[label] = time.perf_counter() - started
        print(f"{name} {label}: {points[label].mean():.2f} ({seconds[label]:.0f} s)", flush=True)
    heuristic = points.get("heuristic")
    lines = [
        f"### {name}: {len(categories)} turns",
        "",
        f"Open: {', '.join(rules.CATEGORY_NAMES[c] for c in categories)}; solved in {solve:.0f} s: the optimum "
        f"expects **{exact:.2f}** points to come. {games:,} games (seeds {BOUND_SEED:,} on), the same dice for "
        f"every agent; load {os.getloadavg()[0]:.1f}.",
        "",
        "| agent | points to come, 95% CI | − heuristic (paired) | − the optimum's exact value | s / game |",
        "|---|---|---|---|---|",
    ]
    for label, scores in points.items():
        mean, half = mean_ci(scores)
        versus = "—"
        if heuristic is not None and label != "heuristic":
            d, dh = mean_ci(scores - heuristic)
            versus = f"{d:+.2f} [{d - dh:+.2f}, {d + dh:+.2f}]"
        lines.append(
            f"| `{label}` | {mean:.2f} [{mean - half:.2f}, {mean + half:.2f}] | {versus} | "
            f"{mean - exact:+.2f} [{mean - half - exact:+.2f}, {mean + half - exact:+.2f}] | "
            f"{seconds[label] / games:.3f} |"
        )
    return lines + [
        "",
        "The paired column measures the headroom; the exact-value column also carries the luck of these "
        "games' dice (the optimum's own row shows how much).",
    ]


def play_blocks(agents: list[str], games: int, block: int, record: Path) -> dict:
    """Every agent's scores, moves and seconds on seeds ``SEED ..``, block by block, kept in ``record``."""
    saved = json.loads(record.read_text()) if record.is_file() else {}
    game = make_game(ENV, num_players=1)
    for start in range(SEED, SEED + games, block):
        seeds = range(start, min(start + block, SEED + games))
        for spec in agents:
            entry = saved.setdefault(spec, {"scores": [], "moves": 0, "seconds": 0.0, "load": []})
            if len(entry["scores"]) >= seeds.stop - SEED:
                continue
            if len(entry["scores"]) != seeds.start - SEED:
                raise ValueError(f"{record}: {spec} has {len(entry['scores'])} games, not a whole number of blocks")
            agent = make_agent(ENV, spec, game, seed=SEED)
            moves = []
            started = time.perf_counter()
            [result] = evaluate_solitaire(
                game, {spec: agent}, seeds, on_game=lambda _labels, _seed, history, _state: moves.append(len(history))
            )
            entry["seconds"] += time.perf_counter() - started
            entry["scores"] += result.scores.tolist()
            entry["moves"] += sum(moves)
            entry["load"].append(os.getloadavg()[0])
            record.write_text(json.dumps(saved) + "\n")
            print(f"{spec}: {len(entry['scores'])} games, mean {np.mean(entry['scores']):.2f}", flush=True)
    return saved


def search_table(saved: dict) -> list[str]:
    """The markdown table of every agent against the heuristic and ``td`` on the games all played."""
    n = min(len(entry["scores"]) for entry in saved.values())
    scores = {spec: np.array(entry["scores"][:n]) for spec, entry in saved.items()}
    lines = [
        f"Games: {n:,} (seeds {SEED:,} to {SEED + n - 1:,}), the same dice for every agent; "
        f"{cpu_model()}, one core, load (1-minute average) {min(min(e['load']) for e in saved.values()):.1f} to "
        f"{max(max(e['load']) for e in saved.values()):.1f} beside it.",
        "",
        "| agent | mean score, 95% CI | ÷ heuristic − 1 | − heuristic (points, paired) | − td (points, paired) "
        "| s / game | ms / move |",
        "|---|---|---|---|---|---|---|",
    ]

    def versus(spec: str, reference: str) -> str:
        if reference not in scores or spec == reference:
            return "—"
        mean, half = mean_ci(scores[spec] - scores[reference])
        return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]"

    for spec, entry in saved.items():
        mean, half = mean_ci(scores[spec])
        ratio = "—"
        if "heuristic" in scores and spec != "heuristic":
            value, low, high = ratio_interval(scores[spec], scores["heuristic"])
            ratio = f"{value - 1:+.2%} [{low - 1:+.2%}, {high - 1:+.2%}]"
        played = len(entry["scores"])
        lines.append(
            f"| `{spec}` | {mean:.2f} [{mean - half:.2f}, {mean + half:.2f}] | {ratio} | {versus(spec, 'heuristic')} | "
            f"{versus(spec, 'td')} | {entry['seconds'] / played:.3f} | {1000 * entry['seconds'] / entry['moves']:.2f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5_000, help="games per agent (seeds from 3,000,000 on)")
    parser.add_argument("--block", type=int, default=250, help="games per block, kept as they are played")
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), help="agent specs (heuristic and td compared)")
    parser.add_argument("--reduced", nargs="*", default=list(REDUCED), help=f"reduced games: {', '.join(REDUCED)}")
    parser.add_argument("--reduced-games", type=int, default=2_000, help="games of each reduced game")
    parser.add_argument(
        "--reduced-agents", nargs="*", default=["heuristic", "td"], help="agent specs playing the reduced games"
    )
    parser.add_argument("--out", default="results/six_hundred_headroom", help="folder of scores.json and report.md")
    args = parser.parse_args(argv)
    if args.games < 2 or args.block < 1 or args.reduced_games < 2:
        print("error: --games and --reduced-games must be 2 or more, --block positive", file=sys.stderr)
        return 2
    unknown = [name for name in args.reduced if name not in REDUCED]
    if unknown:
        print(f"error: unknown reduced game {unknown[0]!r}; known: {', '.join(REDUCED)}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    saved = play_blocks(args.agents, args.games, args.block, out / "scores.json")
    lines = [
        "# Six Hundred: how much is there above td?",
        "",
        "Generated by `python benchmarks/six_hundred_headroom.py` (its docstring says what each row is).",
        "",
        "## A search on td",
        "",
        *search_table({spec: saved[spec] for spec in args.agents}),
    ]
    if args.reduced:
        lines += ["", "## The optimum of reduced games"]
        for name in args.reduced:
            lines += ["", *bound_table(name, args.reduced_agents, args.reduced_games)]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
