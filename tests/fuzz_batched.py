"""Invariant fuzzing at scale: a million random legal games per env, through its batched rules twin.

    python -m tests.fuzz_batched --games 1000000 --workers 2 --out results/fuzz   # every env (make fuzz)
    python -m tests.fuzz_batched --env lost_dice --games 20000 --seed 3
    python -m tests.fuzz_batched --env invers --games 1 --seed 41                 # game 41 alone, as it was played

The all-forms fuzzer (:mod:`tests.fuzz`) plays every game through the Python adapters
(AEC, Gymnasium, Parallel), too slowly for a million games per env (its games per second
are in its own report, ``results/fuzz/forms.txt``). This one plays each env's batched twin
(:mod:`envs.batched`, bit-exact with the rules core: :mod:`tests.batched_check`),
thousands of games at once, with its checks vectorized over the batch, and replays a
seeded sample of its games through the rules core.

An env's ``--games`` are shared evenly between its player counts and the combinations of
its boolean options (a "cell" each). Game ``i`` of a cell has the chance seed ``--seed + i``
(its stream seeded as ``reset(seed=...)`` seeds the single env) and its actions come from
a counter-based draw of that seed and the ply alone (the acting player's ``k``-th legal
action, ``k`` uniform), so a game is the same whatever else the batch holds: ``--games 1
--seed S`` plays the cell's game of seed ``S`` again.

On **every step**, for every running game:

* somebody acts; every seat's legal mask is 0/1, the acting seats' not empty and the
  others' all zeros;
* every score lies inside ``game.score_bounds()``, and the game within ``max_game_length``;
* the acting seat's observation is finite and inside ``game.observation_bounds()``; every
  seat's, on one step in ``--deep`` (default 8).

At **the end of every game**: nobody acts, the returns are +1, 0 or -1. **One game in
``--replay``** (default 100) is played again by the rules core from the same seed and the
twin's actions, and everything a learner or an opponent can read at its end (acting
players, end, truncation, scores, returns, every seat's mask and observation:
:func:`tests.batched_check.core_facts`) must be equal.

A failure does not stop the run: it is counted, the first ones are kept with the seed and
the actions that replay them, and the game's row goes on with the next game. The exit
status is 1 if anything failed. ``--out DIR`` writes ``DIR/report.md`` (with the machine,
its load and the command) and ``DIR/fuzz.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from envs.batched import streams as random_streams
from envs.core import Game
from envs.registry import ENVS, get_entry
from tests.batched_check import core_facts
from tests.fuzz import option_variants, parse_option, player_counts
from training.evaluation.machine import MachineRecord, machine

#: Games played side by side in one twin.
ROWS = 2048
#: Failures kept with their replay (all are counted).
KEPT_FAILURES = 10

_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


@dataclass(frozen=True)
class Cell:
    """One player count and option combination of an env, and the seeds of its games."""

    env: str
    players: int
    options: dict
    first_seed: int
    games: int

    def game(self) -> Game:
        return get_entry(self.env).game_class()(num_players=self.players, **self.options)

    def label(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.env} {self.players}p" + (f" ({options})" if options else "")


@dataclass
class Tally:
    """What a cell (or several, added up) played and found."""

    games: int = 0
    steps: int = 0  #: actions played
    checks: int = 0  #: invariants checked, one per game and check
    replays: int = 0  #: games replayed by the rules core
    failures: int = 0
    wall_s: float = 0.0
    kept: list[str] = field(default_factory=list)  #: the first failures, each with its replay

    def add(self, other: Tally) -> None:
        for name in ("games", "steps", "checks", "replays", "failures", "wall_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.kept += other.kept[: KEPT_FAILURES - len(self.kept)]


def uniform(seeds: np.ndarray, plies: np.ndarray) -> np.ndarray:
    """A draw in [0, 1) for each (game seed, ply), by SplitMix64: a game's actions depend on it alone."""
    with np.errstate(over="ignore"):
        z = seeds.astype(np.uint64) * _GOLDEN + (plies.astype(np.uint64) + np.uint64(1)) * _MIX2
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def kth_legal(masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Each row's ``floor(draw * legal count)``-th legal action."""
    wanted = np.floor(draws * masks.sum(axis=1)).astype(np.int64)
    return np.argmax(masks.cumsum(axis=1, dtype=np.int64) > wanted[:, None], axis=1)


class CellFuzzer:
    """Plays one cell's games in a batched twin of :data:`ROWS` rows and checks them (see the module)."""

    def __init__(self, cell: Cell, deep: int, replay: int) -> None:
        self.cell, self.deep, self.replay = cell, deep, replay
        self.game = cell.game()
        rows = min(ROWS, cell.games)
        self.twin = get_entry(cell.env).batched_class()(self.game, rows)
        self.streams = random_streams.new_streams(rows)
        self.seeds = np.full(rows, -1, np.int64)  #: the game each row plays, by its seed; -1: none
        self.broken = np.zeros(rows, bool)  #: the row's game failed a check: it stops, the row takes the next
        self.plies = np.zeros(rows, np.int64)
        self.masks = np.zeros((rows, self.game.num_actions), np.int8)
        self.observations = np.zeros((rows, *self.game.observation_shape), np.float32)
        self.score_low, self.score_high = self.game.score_bounds()
        self.observation_low, self.observation_high = self.game.observation_bounds()
        self.next_seed = cell.first_seed
        self.tally = Tally()

    def run(self) -> Tally:
        started = time.perf_counter()
        self.start(np.arange(len(self.seeds)))
        step = 0
        while (live := np.flatnonzero(self.seeds >= 0)).size:
            self.check_running(live, deep=step % self.deep == 0)
            playing = live[~self.broken[live]]
            seats = self.twin.acting()[playing].argmax(axis=1)
            self.twin.legal_masks(playing, seats, self.masks[: playing.size])
            actions = kth_legal(self.masks[: playing.size], uniform(self.seeds[playing], self.plies[playing]))
            self.twin.apply(playing, seats, actions)
            self.plies[playing] += 1
            self.tally.steps += playing.size
            done = live[self.twin.terminal()[live] | self.broken[live]]
            if done.size:
                self.check_ended(done[~self.broken[done]])
                self.broken[done] = False
                self.start(done)
            step += 1
        self.tally.wall_s = time.perf_counter() - started
        return self.tally

    def start(self, rows: np.ndarray) -> None:
        """The next games of the cell in ``rows``; rows left over once every game is dealt go idle."""
        count = min(rows.size, self.cell.first_seed + self.cell.games - self.next_seed)
        self.seeds[rows[count:]] = -1
        rows = rows[:count]
        if not rows.size:
            return
        seeds = np.arange(self.next_seed, self.next_seed + rows.size)
        self.next_seed += rows.size
        random_streams.seed_rows(self.streams, rows, seeds.tolist())
        self.twin.start(rows, self.streams)
        self.seeds[rows] = seeds
        self.plies[rows] = 0

    def check_running(self, live: np.ndarray, deep: bool) -> None:
        acting = self.twin.acting()[live]
        self.expect(live, acting.any(axis=1), "a running game with nobody to act")
        self.expect(live, self.plies[live] < self.game.max_game_length, "a game still running at max_game_length")
        scores = self.twin.scores()[live]
        inside = ((scores >= self.score_low) & (scores <= self.score_high)).all(axis=1)
        self.expect(live, inside, f"a score outside score_bounds() {self.score_low, self.score_high}")
        masks, observations = self.masks[: live.size], self.observations[: live.size]
        for seat in range(self.game.num_players):
            seats = np.full(live.size, seat)
            self.twin.legal_masks(live, seats, masks)
            legal = masks.sum(axis=1)
            self.expect(live, ((masks == 0) | (masks == 1)).all(axis=1), f"seat {seat}'s mask is not 0/1")
            self.expect(live, (legal > 0) == acting[:, seat], f"seat {seat}: an empty mask to act, or a mask not to")
            if deep or acting[:, seat].any():
                shown = np.ones(live.size, bool) if deep else acting[:, seat]
                self.twin.observe(live, seats, observations)
                flat = observations.reshape(live.size, -1)
                fine = np.isfinite(flat).all(axis=1)
                fine &= ((flat >= self.observation_low) & (flat <= self.observation_high)).all(axis=1)
                self.expect(live[shown], fine[shown], f"seat {seat}'s observation not finite or outside its bounds")

    def check_ended(self, ended: np.ndarray) -> None:
        self.tally.games += ended.size
        self.expect(ended, ~self.twin.acting()[ended].any(axis=1), "somebody acts in an ended game")
        returns = self.twin.returns()[ended]
        self.expect(ended, np.isin(returns, (-1.0, 0.0, 1.0)).all(axis=1), "returns other than +1, 0, -1")
        for row in ended[self.seeds[ended] % self.replay == 0].tolist():
            self.replay_by_the_core(row)

    def replay_by_the_core(self, row: int) -> None:
        """Game ``row`` played again by the rules core from its seed and the twin's actions; its end compared."""
        self.tally.replays += 1
        self.tally.checks += 1
        history = self.twin.history(row)
        try:
            state = self.game.new_initial_state(np.random.default_rng(int(self.seeds[row])))
            for seat, action in history:
                state.apply(seat, action)
            differ = [name for name, value in core_facts(state).items() if not self.twin_equals(row, name, value)]
        except Exception as error:  # noqa: BLE001 (the core refusing the twin's game is a finding, not a crash)
            differ = [f"the core raised {type(error).__name__}: {error}"]
        if differ:
            self.fail(row, f"the rules core's replay differs at the end: {', '.join(differ)}")

    def twin_equals(self, row: int, name: str, expected: np.ndarray) -> bool:
        twin = self.twin
        rows = np.array([row])
        if name.startswith(("legal mask of seat ", "observation of seat ")):
            seat = np.array([int(name.rsplit(" ", 1)[1])])
            out = self.masks if name.startswith("legal") else self.observations
            (twin.legal_masks if name.startswith("legal") else twin.observe)(rows, seat, out[:1])
            value = out[0]
        else:
            value = {
                "acting players": twin.acting()[row],
                "is_terminal": twin.terminal()[row],
                "scores": twin.scores()[row],
                "is_truncated": twin.truncated()[row],
                "returns": twin.returns()[row],
            }[name]
        return np.array_equal(np.asarray(value), np.asarray(expected))

    def expect(self, rows: np.ndarray, held: np.ndarray, what: str) -> None:
        self.tally.checks += rows.size
        for row in rows[~held].tolist():
            self.fail(row, what)

    def fail(self, row: int, what: str) -> None:
        """Counts a failure and keeps the first ones; the row's game stops here (its row takes the next game)."""
        self.tally.failures += 1
        if len(self.tally.kept) < KEPT_FAILURES:
            self.tally.kept.append(
                f"{self.cell.label()}, seed {self.seeds[row]}, ply {self.plies[row]}: {what}; actions "
                f"(seat, action): {list(self.twin.history(row))}; again: python -m tests.fuzz_batched --env "
                f"{self.cell.env} --players {self.cell.players} --games 1 --seed {self.seeds[row]}"
                + "".join(f" --option {k}={v}" for k, v in self.cell.options.items())
            )
        self.broken[row] = True


def cells(env: str, games: int, seed: int, players: int | None, options: dict | None) -> list[Cell]:
    """The env's cells, the games shared evenly (the first cells take the remainder)."""
    game_class = get_entry(env).game_class()
    counts = [players] if players is not None else list(player_counts(game_class))
    variants = [options] if options is not None else option_variants(game_class)
    pairs = [(count, variant) for count in counts for variant in variants]
    share, extra = divmod(games, len(pairs))
    return [
        Cell(env, count, variant, seed, share + (k < extra))
        for k, (count, variant) in enumerate(pairs)
        if share + (k < extra)
    ]


def fuzz_cell(arguments: tuple[Cell, int, int]) -> tuple[Cell, Tally]:
    cell, deep, replay = arguments
    return cell, CellFuzzer(cell, deep, replay).run()


def report(tallies: dict[str, Tally], cells_of: dict[str, list[Cell]], seed: int, command: str, record) -> str:
    lines = [
        "# Fuzzing at scale",
        "",
        f"<!-- Generated by `{command}`; run it again to refresh this page, do not edit it. -->",
        "",
        f"`{command}`, one run on {record.describe()} Every game through the env's batched rules twin "
        "(`tests/fuzz_batched.py`: every step's invariants, one game in a hundred replayed by the rules core); "
        f"chance seeds from {seed} in every cell.",
        "",
        "| env | player counts | option combinations | games | actions | invariant checks | replayed by the core "
        "| failures | wall time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for env, tally in tallies.items():
        counts = sorted({c.players for c in cells_of[env]})
        variants = len({json.dumps(c.options, sort_keys=True) for c in cells_of[env]})
        lines.append(
            f"| {env} | {', '.join(map(str, counts))} | {variants} | {tally.games:,} | {tally.steps:,} | "
            f"{tally.checks:,} | {tally.replays:,} | **{tally.failures}** | {tally.wall_s:.0f} s |"
        )
    kept = [line for tally in tallies.values() for line in tally.kept]
    lines += ["", "Failures kept:" if kept else "No failure.", *(f"* {line}" for line in kept), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_batched", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="env name, repeatable (default: every env)")
    parser.add_argument("--games", type=int, default=10_000, help="games per env (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's chance seed in every cell (default 0)")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--option", action="append", type=parse_option, metavar="NAME=VALUE", help="fix a game option")
    parser.add_argument("--deep", type=int, default=8, help="every seat's observation on 1 step in N (default 8)")
    parser.add_argument("--replay", type=int, default=100, help="1 game in N replayed by the rules core (default 100)")
    parser.add_argument("--workers", type=int, default=1, help="processes, one cell each at a time (default 1)")
    parser.add_argument("--out", type=Path, help="write report.md and fuzz.json here")
    args = parser.parse_args(argv)
    names = args.env or list(ENVS)
    unknown = [name for name in names if name not in ENVS]
    if unknown or args.games < 1 or args.deep < 1 or args.replay < 1 or args.workers < 1:
        parser.error(
            f"unknown env {unknown[0]!r}; known envs: {', '.join(ENVS)}"
            if unknown
            else "--games, --deep, --replay and --workers must be positive"
        )
    record = MachineRecord()
    options = dict(args.option) if args.option else None
    cells_of = {env: cells(env, args.games, args.seed, args.players, options) for env in names}
    jobs = [(cell, args.deep, args.replay) for env in names for cell in cells_of[env]]
    tallies = {env: Tally() for env in names}
    with multiprocessing.get_context("spawn").Pool(args.workers) if args.workers > 1 else _Serial() as pool:
        for cell, tally in pool.imap_unordered(fuzz_cell, jobs):
            tallies[cell.env].add(tally)
            print(
                f"{cell.label()}: games {tally.games:,}, actions {tally.steps:,}, checks {tally.checks:,}, "
                f"replays {tally.replays:,}, failures {tally.failures}, {tally.wall_s:.0f} s",
                flush=True,
            )
    for line in (line for tally in tallies.values() for line in tally.kept):
        print(f"FAILED {line}")
    failures = sum(tally.failures for tally in tallies.values())
    print(f"fuzz_batched total: games {sum(t.games for t in tallies.values()):,}, failures {failures}")
    if args.out is not None:
        command = shlex.join(["python", "-m", "tests.fuzz_batched", *(argv if argv is not None else sys.argv[1:])])
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "report.md").write_text(report(tallies, cells_of, args.seed, command, record))
        summary = {
            "command": command,
            "seed": args.seed,
            "machine": machine(),
            "envs": {env: asdict(tally) for env, tally in tallies.items()},
        }
        (args.out / "fuzz.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 1 if failures else 0


class _Serial:
    """A pool of one: the cells in this process (quicker to start, and a debugger sees them)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def imap_unordered(self, function, jobs):
        return map(function, jobs)


if __name__ == "__main__":
    sys.exit(main())
