"""The shipped agents against their games' ceilings, each acting alone (one forward pass a move;
Invers' network also inside its own search, Six Hundred's ``td`` also with its lookahead).

    python benchmarks/ceilings.py                    # every ceiling: results/ceilings/report.md (make results)
    python benchmarks/ceilings.py --only invers      # one game's ceilings, the others' kept from the last run
    python benchmarks/ceilings.py --games-scale 0.1  # a tenth of the games: a quick look, wider intervals
    python benchmarks/ceilings.py --workers 2        # the bars measured in two processes (make results)

A ceiling is a bar the project sets for its best network: above the level of its bots, or
level with the best of them where no player could get far above it:

* **Inverted Dice**: the network's mean score at least 99% of the exact solver's on the same
  dice (``ppo`` against ``optimal``, the ratio of the two means);
* **Six Hundred**: a shipped agent (``td``, ``td`` with its one-turn lookahead at every write,
  ``td:lookahead=18``, or ``ppo``) at least 5% above the heuristic on the same dice (the ratio
  of the means, minus 1);
* **Invers**: the network alone (``ppo``) above ``search:depth=3`` (its share of the points,
  wins + ½ draws, seat-paired openings, two random opening plies), above ``search:depth=4``, and
  the next moonshots: the network alone and inside its own search (``ppo+search``, depth 3)
  above ``search:depth=5``, a reference the compiled search makes affordable;
* **Roll Five** (tournament mode, as everywhere else): the network level with ``search`` at
  two players (its share against it within [0.49, 0.51]), and at four players level with
  ``search``'s own score at that table: the paired difference of the network's score and a
  copy of ``search``'s in the same seat against the same three ``search`` opponents on the
  same games, within ±0.01. (``python benchmarks/roll_five_headroom.py`` measures how little
  room there is above ``search``.)

A bar "above" is met when the 95% interval of the figure lies entirely above it; a bar
"level" when it lies entirely within the bar ± its tolerance (``within``). The ratios'
intervals are the delta method's for a ratio of paired means, ``R = mean(a) / mean(b)``:
half-width ``1.96 · sd(a_i − R · b_i) / (√n · mean(b))``. Shares have Wilson's interval,
paired differences the normal one (:mod:`training.evaluation.harness`). Every game is
seeded from ``SEED`` on, seeds that no training run, learning curve or results page uses,
so the figures are held out; the tables come out the same, digit for digit, on every run.
With ``--workers`` the bars are measured in that many processes, those that took longest
on the last run (``ceilings.json`` keeps each bar's seconds) first; every bar is seeded on
its own, so the report is the same. ``--report-only`` rewrites ``report.md`` from the
``ceilings.json`` a run left, without playing a game; ``--only`` measures the games it names
again and keeps the other games' rows of that record (made at the same ``--games-scale``),
so that one re-shipped agent does not replay every ceiling.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from envs.registry import make_game
from training.evaluation.harness import (
    DEFAULT_BATCH,
    Z95,
    clipped_mean_ci,
    evaluate_pairings,
    evaluate_solitaire,
    opening_scores,
)
from training.evaluation.machine import cpu_model

SEED = 3_000_000  #: the first game's seed: held out from every other measurement of the project
OPENING_PLIES = 2  #: uniformly random plies opening each Invers game, so that the games differ
#: Roll Five's tables: tournament mode, as its network is trained and every other report plays it
#: (in casual mode most games between good players are shared wins)
ROLL_FIVE = {"mode": "tournament"}


@dataclass
class Ceiling:
    """One bar and what the shipped agent measured against it."""

    game: str
    players: int
    agent: str
    against: str
    measure: str
    bar: float
    value: float
    low: float
    high: float
    games: int
    #: a level bar: the interval within ``bar ± within``; None: the interval above ``bar``
    within: float | None = None

    @property
    def met(self) -> bool:
        if self.within is None:
            return self.low > self.bar
        return self.bar - self.within <= self.low and self.high <= self.bar + self.within


#: a row's fixed fields, in the order :func:`ceilings` lists them (``within`` only for a level bar)
FIXED = ("game", "players", "agent", "against", "measure", "bar", "within")


def ratio_interval(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """``mean(a) / mean(b)`` of paired samples and its 95% interval (the delta method)."""
    ratio = float(a.mean() / b.mean())
    half = Z95 * float(np.std(a - ratio * b, ddof=1)) / (math.sqrt(len(a)) * float(b.mean()))
    return ratio, ratio - half, ratio + half


def solitaire_ratio(env: str, agent: str, reference: str, games: int, minus: float) -> tuple[float, float, float, int]:
    """``agent``'s mean score over ``reference``'s on the same ``games`` seeds, minus ``minus``."""
    game = make_game(env, num_players=1)
    agents = {spec: make_agent(env, spec, game, seed=SEED) for spec in (agent, reference)}
    results = evaluate_solitaire(game, agents, range(SEED, SEED + games), batch=DEFAULT_BATCH)
    ratio, low, high = ratio_interval(results[0].scores, results[1].scores)
    return ratio - minus, low - minus, high - minus, games


def pairing_share(env: str, options: dict, agent: str, opponent: str, games: int, opening: int):
    """``agent``'s share of the points against ``opponent`` in every other seat, at the table ``options`` set up."""
    game = make_game(env, **options)
    [result] = evaluate_pairings(
        game,
        [((agent, make_agent(env, agent, game, seed=SEED)), (opponent, make_agent(env, opponent, game, seed=SEED)))],
        games,
        SEED,
        opening,
        batch=DEFAULT_BATCH,
    )
    value, low, high = result.share()
    return value, low, high, games


def above_own_share(env: str, options: dict, agent: str, opponent: str, games: int):
    """``agent``'s score minus a copy of ``opponent``'s in the same seat, against the same
    ``opponent`` copies in the other seats on the same games (paired), at the table ``options`` set up."""
    game = make_game(env, **options)

    def pairing(candidate: str):
        return (candidate, make_agent(env, candidate, game, seed=SEED)), (
            opponent,
            make_agent(env, opponent, game, seed=SEED),
        )

    mine, theirs = evaluate_pairings(game, [pairing(agent), pairing(opponent)], games, SEED, 0, batch=DEFAULT_BATCH)
    value, low, high = clipped_mean_ci(opening_scores(mine.scores - theirs.scores, mine.openings), -1.0, 1.0)
    return value, low, high, games


def ceilings(scale: float) -> dict[str, list[tuple[tuple, Callable]]]:
    """Each game's bars: the row's fixed fields and the measurement that fills in the rest."""

    def n(games: int) -> int:
        return max(10, round(games * scale))

    return {
        "inverted_dice": [
            (
                ("inverted_dice", 1, "ppo", "optimal", "mean score ÷ optimal's, same dice", 0.99),
                lambda: solitaire_ratio("inverted_dice", "ppo", "optimal", n(20_000), 0.0),
            )
        ],
        "six_hundred": [
            (
                ("six_hundred", 1, spec, "heuristic", "mean score ÷ heuristic's − 1, same dice", 0.05),
                lambda spec=spec, games=games: solitaire_ratio("six_hundred", spec, "heuristic", n(games), 1.0),
            )
            # 1,000 games of the lookahead keep make results short (its 5,000-game figure, on the
            # same seeds: benchmarks/six_hundred_headroom.py)
            for spec, games in (("td", 5_000), ("td:lookahead=18", 1_000), ("ppo", 5_000))
        ],
        "invers": [
            (
                ("invers", 2, agent, bot, "share (wins + ½ draws), seat-paired openings", 0.5),
                lambda agent=agent, bot=bot, games=games: pairing_share(
                    "invers", {}, agent, bot, n(games), OPENING_PLIES
                ),
            )
            for agent, bot, games in (
                ("ppo", "search:depth=3", 1_000),
                ("ppo", "search:depth=4", 1_000),
                ("ppo", "search:depth=5", 1_000),
                ("ppo+search", "search:depth=5", 400),  # the network's own search, compiled: about 2 ms a move
            )
        ],
        "roll_five": [
            (
                ("roll_five", 2, "ppo", "search", "share (wins + ½ draws), seat-paired openings", 0.5, 0.01),
                lambda: pairing_share("roll_five", {**ROLL_FIVE, "num_players": 2}, "ppo", "search", n(20_000), 0),
            ),
            (
                ("roll_five", 4, "ppo", "3 × search", "score − search's own score in the seat, paired", 0.0, 0.01),
                lambda: above_own_share("roll_five", {**ROLL_FIVE, "num_players": 4}, "ppo", "search", n(20_000)),
            ),
        ],
    }


GAMES = tuple(ceilings(1.0))


def fmt(ceiling: Ceiling) -> tuple[str, str]:
    """The figure with its interval, and the bar, as the report prints them."""
    if ceiling.measure.startswith("mean score ÷"):
        percent = ceiling.measure.endswith("− 1, same dice")

        def show(x: float) -> str:
            return f"{x:+.2%}" if percent else f"{x:.2%}"

        figure = f"**{show(ceiling.value)}** [{show(ceiling.low)}, {show(ceiling.high)}]"
    else:
        sign = "" if ceiling.measure.startswith("share") else "+"

        def show(x: float) -> str:
            return f"{x:g}"

        figure = f"**{ceiling.value:{sign}.4f}** [{ceiling.low:{sign}.4f}, {ceiling.high:{sign}.4f}]"
    if ceiling.within is None:
        return figure, f"above {show(ceiling.bar)}"
    if ceiling.bar == 0:
        return figure, f"level: within ±{show(ceiling.within)}"
    return figure, f"level: within [{show(ceiling.bar - ceiling.within)}, {show(ceiling.bar + ceiling.within)}]"


def report(rows: list[Ceiling], scale: float) -> str:
    lines = [
        "# Ceilings of the shipped agents",
        "",
        "Each shipped agent acting alone (one forward pass a move; Invers' network also inside its own "
        "search, `ppo+search`), against the bar the project sets "
        "for its game (`python benchmarks/ceilings.py`, run by `make results`; the method is in its "
        f"docstring). Games seeded from {SEED:,} on, seeds that no training run, learning curve or "
        "results page uses; a bar is met when the whole 95% interval lies above it (a level bar: within it).",
        "",
        "| game | players | agent | against | measure | result, 95% CI | bar | met | games |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        result, bar = fmt(row)
        lines.append(
            f"| {row.game} | {row.players} | `{row.agent}` | `{row.against}` | {row.measure} | {result} | {bar} | "
            f"{'yes' if row.met else 'no'} | {row.games:,} |"
        )
    if any(row.game == "roll_five" for row in rows):
        lines += [
            "",
            "How far above `search` any Roll Five player can get, with every kind of information about the "
            "others (down to knowing their final results), is measured by `python benchmarks/roll_five_headroom.py` "
            "(see docs/history/roll_five.md).",
        ]
    if scale != 1:
        lines += ["", f"Games scaled by {scale} (`--games-scale`): not the report `make results` writes."]
    return "\n".join(lines) + "\n"


def saved_rows(record: Path) -> tuple[float, list[Ceiling]]:
    """The games scale and the rows of a run's ``ceilings.json``."""
    saved = json.loads(record.read_text())
    fields = list(Ceiling.__dataclass_fields__)  # a record from before level bars has no ``within``
    return saved["games_scale"], [Ceiling(**{k: row[k] for k in fields if k in row}) for row in saved["rows"]]


def kept_rows(record: Path, measured: list[str], games_scale: float) -> list[Ceiling]:
    """The rows of the games not ``measured`` in an earlier run's record (none if there is no
    record, or it was made at another ``games_scale``)."""
    if not record.is_file():
        return []
    saved_scale, rows = saved_rows(record)
    return [row for row in rows if row.game not in measured] if saved_scale == games_scale else []


def task_key(task: tuple[str, int, float]) -> str:
    """A bar's name in the record's ``seconds``: its game and its place among the game's bars."""
    return f"{task[0]}/{task[1]}"


def measure_bar(task: tuple[str, int, float]) -> tuple[float, float, float, int, float]:
    """One bar's measurement (``(game, index of its bar, games scale)``), and its seconds."""
    game, index, scale = task
    started = time.perf_counter()
    value, low, high, games = ceilings(scale)[game][index][1]()
    return value, low, high, games, time.perf_counter() - started


def measured(tasks: list[tuple[str, int, float]], workers: int, last_seconds: dict[str, float]):
    """:func:`measure_bar` of each task, in order: in this process, or in ``workers`` processes
    taking the tasks that took longest last time (``last_seconds``, by :func:`task_key`) first.
    Each bar is seeded on its own, so the figures are the same either way."""
    if workers == 1:
        yield from map(measure_bar, tasks)
        return
    order = sorted(range(len(tasks)), key=lambda k: -last_seconds.get(task_key(tasks[k]), 0.0))
    context = multiprocessing.get_context("spawn")  # forked torch and Numba threads can deadlock
    with context.Pool(workers) as pool:
        found = dict(zip(order, pool.imap(measure_bar, [tasks[k] for k in order])))
    yield from (found[k] for k in range(len(tasks)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="GAME", help=f"these games' ceilings only: {', '.join(GAMES)}")
    parser.add_argument("--games-scale", type=float, default=1.0, help="scale every game count (a quick look)")
    parser.add_argument(
        "--workers", type=int, default=1, help="processes measuring the bars (default 1); the figures are the same"
    )
    parser.add_argument("--out", default="results/ceilings", help="folder of report.md and ceilings.json")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite report.md from OUT/ceilings.json, playing nothing"
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.report_only:
        record = out / "ceilings.json"
        if not record.is_file():
            print(f"error: no {record}: run python benchmarks/ceilings.py first", file=sys.stderr)
            return 2
        games_scale, rows = saved_rows(record)
        (out / "report.md").write_text(report(rows, games_scale))
        print(f"Report written to {out / 'report.md'}")
        return 0
    unknown = [game for game in args.only or [] if game not in GAMES]
    if unknown:
        print(f"error: unknown game {unknown[0]!r}; the ceilings' games: {', '.join(GAMES)}", file=sys.stderr)
        return 2
    if not args.games_scale > 0:
        print(f"error: --games-scale must be positive, got {args.games_scale}", file=sys.stderr)
        return 2
    if args.workers <= 0:
        print(f"error: --workers must be positive, got {args.workers}", file=sys.stderr)
        return 2
    bars = ceilings(args.games_scale)
    tasks = [
        (game, index, args.games_scale)
        for game in bars
        if not args.only or game in args.only
        for index in range(len(bars[game]))
    ]
    record = out / "ceilings.json"
    last_seconds = json.loads(record.read_text()).get("seconds", {}) if record.is_file() else {}
    rows, timings, seconds_by_task = [], {}, {}
    for task, (value, low, high, games, seconds) in zip(tasks, measured(tasks, args.workers, last_seconds)):
        game, index, _ = task
        seconds_by_task[task_key(task)] = round(seconds, 1)
        fields = bars[game][index][0]
        rows.append(Ceiling(**dict(zip(FIXED, fields)), value=value, low=low, high=high, games=games))
        timings[f"{rows[-1].game} {rows[-1].players}p {rows[-1].agent} vs {rows[-1].against}"] = round(seconds, 1)
        print(f"{rows[-1].game} {rows[-1].agent} vs {rows[-1].against}: {fmt(rows[-1])[0]} ({seconds:.0f} s)")
    if args.only:
        rows = kept_rows(record, args.only, args.games_scale) + rows
    rows.sort(key=lambda row: list(GAMES).index(row.game))  # stable: each game's bars in their order
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(report(rows, args.games_scale))
    saved = {
        "games_scale": args.games_scale,
        "rows": [asdict(r) | {"met": r.met} for r in rows],
        "seconds": last_seconds | seconds_by_task,
    }
    record.write_text(json.dumps(saved, indent=1) + "\n")
    (out / "timing.md").write_text(
        f"# Ceilings: time per measurement\n\nMachine: {cpu_model()}; load as it was.\n\n"
        + "\n".join(f"* {name}: {s} s" for name, s in timings.items())
        + "\n"
    )
    print(f"Report written to {out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
