"""Time per move of the Six Hundred turn planners, on decisions from play, before and after compiling them.

    python benchmarks/six_hundred_speed.py                                  # the table, printed
    python benchmarks/six_hundred_speed.py --before /tmp/before             # beside an older checkout
    python benchmarks/six_hundred_speed.py --before /tmp/before --page docs/benchmarks/six_hundred_speed.md

The decisions are those ``td`` and ``td:lookahead=18`` made in play before their planner was
compiled (``tests/fixtures/six_hundred_td_moves.json``: the moves of seeded games recorded
at commit 2c927b8, replayed here into observations), so every run and every commit times
the same ones. Each agent (``heuristic``, ``td``, ``td:lookahead=18``) plays them one ``act``
a move and all in one ``act_batch`` call, each figure the best of ``--repeats`` passes; every
``td`` plays the network the moves were recorded with (:data:`RECORDED_NETWORK`).

``--before DIR`` (a checkout of an older commit, e.g. ``git worktree add /tmp/before
2c927b8``) times the same decisions with that tree's code in a subprocess, in the same run:
the page's before and after columns. "moves that differ" compares this tree's moves with
the recorded ones; a **near tie** is a differing move whose value, by this tree's planner,
is within :data:`NEAR_TIE` points of the recorded move's (the network's float32 sums in
another order than torch's tip it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from envs.games import six_hundred as rules
from training.evaluation.machine import MachineRecord, measurement_page
from training.framework.console import fail
from training.framework.schema import ConfigError

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
RECORDED = FIXTURES / "six_hundred_td_moves.json"
#: The network the moves were recorded with (the shipped ``td`` of commit 2c927b8): every
#: ``td`` here plays it, so that moves compare and both checkouts time the same network.
RECORDED_NETWORK = FIXTURES / "six_hundred_td_2c927b8.pt"
AGENTS = ("heuristic", "td", "td:lookahead=18")
#: Points within which two moves' values count as a tie that rounding may tip.
NEAR_TIE = 1e-3


def with_recorded_network(spec: str) -> str:
    """``spec`` (an agent of :data:`AGENTS`) playing :data:`RECORDED_NETWORK` where it is a ``td``."""
    if not spec.startswith("td"):
        return spec
    return f"{spec}{',' if ':' in spec else ':'}path={RECORDED_NETWORK}"


def recorded_decisions(spec: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(observations, masks, actions)`` of every decision ``spec`` (``td`` or
    ``td:lookahead=18``) made in the recorded games, replayed from their seeds."""
    recorded = json.loads(RECORDED.read_text())
    game = rules.SixHundred()
    observations, masks, actions = [], [], []
    for number, moves in enumerate(recorded[spec]):
        state = game.new_initial_state(np.random.default_rng(recorded["first_seed"] + number))
        for action in moves:
            observations.append(state.observe(0))
            masks.append(state.legal_mask(0))
            actions.append(action)
            state.apply(0, action)
        if not state.is_terminal():
            raise ValueError(f"{RECORDED}: game {number} of {spec} does not end with its recorded moves")
    return np.array(observations), np.array(masks), np.array(actions)


def decision_value(agent, observation: np.ndarray, action: int) -> float:
    """What ``agent``'s plan (a turn planner without lookahead) says ``action`` is worth: the
    write's value on the last roll, else the value of the keep the action leaves locked
    (scoring before the last roll: keeping every die)."""
    from agents.six_hundred.estimate import KEEP_TABLES, ROLL_POINTS  # noqa: PLC0415 (--before's older checkout has none)

    plan = agent.plan_turn(observation)
    dice = tuple(int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1)
    roll = int(observation[rules.OBS_ROLL].argmax()) + 1
    if action >= rules.SCORE and roll == rules.MAX_ROLLS:
        category = action - rules.SCORE
        table = agent.write_tables_of(observation[None])[0]
        return float(table[category, ROLL_POINTS[KEEP_TABLES.roll_index[tuple(sorted(dice))], category]])
    num_locked = int(round(observation[rules.OBS_LOCKED].sum()))
    locked = dice if action >= rules.SCORE else dice[:num_locked] + tuple(dice[p] for p in rules.lock_positions(action))
    return float(plan.lock_values[roll][KEEP_TABLES.keep_index[tuple(sorted(locked))]])


def agreement(spec: str) -> tuple[int, int, int]:
    """``(decisions, moves that differ from the recorded ones, of which near ties)`` for ``spec``
    played one ``act`` a move."""
    observations, masks, recorded = recorded_decisions(spec)
    game = rules.SixHundred()
    agent = make_agent(rules.SixHundred.name, with_recorded_network(spec), game, seed=0)
    moves = np.array([agent.act(o, m) for o, m in zip(observations, masks)])
    differ = np.flatnonzero(moves != recorded)
    planner = make_agent(rules.SixHundred.name, with_recorded_network("td"), game, seed=0)
    near = sum(
        abs(decision_value(planner, observations[k], moves[k]) - decision_value(planner, observations[k], recorded[k]))
        <= NEAR_TIE
        for k in differ
    )
    return len(recorded), len(differ), int(near)


def timings(repeats: int) -> dict[str, dict[str, float]]:
    """ms a move of every agent of :data:`AGENTS` on its recorded decisions: one ``act`` a move and in one batch."""
    game = rules.SixHundred()
    out = {}
    for spec in AGENTS:
        observations, masks, _ = recorded_decisions("td:lookahead=18" if "lookahead" in spec else "td")
        agent = make_agent(rules.SixHundred.name, with_recorded_network(spec), game, seed=0)
        agent.act_batch(observations[:3], masks[:3])  # compiles what it runs
        alone = batch = float("inf")
        for _ in range(repeats):
            agent.reset(0)
            start = time.perf_counter()
            for observation, mask in zip(observations, masks):
                agent.act(observation, mask)
            alone = min(alone, time.perf_counter() - start)
            agent.reset(0)
            start = time.perf_counter()
            agent.act_batch(observations, masks)
            batch = min(batch, time.perf_counter() - start)
        out[spec] = {"act": 1e3 * alone / len(masks), "batch": 1e3 * batch / len(masks), "decisions": len(masks)}
    return out


def timings_in(tree: Path, repeats: int) -> dict[str, dict[str, float]]:
    """:func:`timings` of the code in ``tree`` (another checkout): this script in a subprocess
    whose imports resolve to that tree."""
    result = subprocess.run(
        [sys.executable, __file__, "--timings-only", "--repeats", str(repeats)],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
        raise SystemExit(f"the timing in {tree} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


NOTES = f"""
Each figure is milliseconds per move on the same decisions (the moves `td` and
`td:lookahead=18` made in seeded games before the planner was compiled,
`tests/fixtures/six_hundred_td_moves.json`), every `td` with the network it played them with,
the best of the passes: "act" one move at a
time, "batch" every decision in one `act_batch` call. "before" is the numpy planner the
compiled one replaced, timed from a checkout of its commit (2c927b8: `git worktree add
BEFORE 2c927b8`) in the same run; "after" is
`agents/six_hundred/compiled_plan.py` (Numba). "moves that differ" plays every recorded
decision again with this tree's agent; a near tie is a differing move whose value, by this
tree's planner, is within {NEAR_TIE:g} points of the recorded move's
(`tests/test_six_hundred_compiled_plan.py` holds the count). The figures depend on the
machine and its load, printed above: compare the columns of one run.
"""


def table(after: dict, before: dict | None, agreements: dict) -> tuple[list[str], list[list[str]]]:
    """The page's header and rows: each agent's ms a move, after (and before) the change, and its agreement."""
    header = ["agent", "decisions"]
    header += (
        ["before: act (ms)", "before: batch (ms)", "after: act (ms)", "after: batch (ms)", "batch: before / after"]
        if before
        else ["act (ms)", "batch (ms)"]
    )
    header.append("moves that differ (near ties)")
    rows = []
    for spec, row in after.items():
        differ = agreements.get(spec)
        cells = [f"`{spec}`", f"{row['decisions']:,}"]
        if before:
            old = before[spec]
            cells += [f"{old['act']:.3f}", f"{old['batch']:.3f}"]
        cells += [f"{row['act']:.3f}", f"{row['batch']:.3f}"]
        if before:
            cells.append(f"{before[spec]['batch'] / row['batch']:.1f}×")
        cells.append("—" if differ is None else f"{differ[1]} of {differ[0]:,} ({differ[2]})")
        rows.append(cells)
    return header, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout of an older commit to time beside this one")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the decisions; each figure the best")
    parser.add_argument("--page", type=Path, help="write the Markdown page here")
    parser.add_argument("--timings-only", action="store_true", help=argparse.SUPPRESS)  # --before's subprocess
    args = parser.parse_args(argv)
    if args.repeats < 1:
        return fail(ConfigError(f"--repeats must be 1 or more, got {args.repeats}"))
    if args.timings_only:
        print(json.dumps(timings(args.repeats)))
        return 0
    if args.page is not None and not args.page.parent.is_dir():
        return fail(ConfigError(f"--page {args.page}: no folder {args.page.parent}"))
    if args.before is not None and not (args.before / "agents" / "six_hundred").is_dir():
        return fail(ConfigError(f"--before {args.before}: not a checkout of this project (no agents/six_hundred/)"))
    record = MachineRecord()
    before = timings_in(args.before.resolve(), args.repeats) if args.before else None
    after = timings(args.repeats)
    agreements = {spec: agreement(spec) for spec in ("td", "td:lookahead=18")}
    header, rows = table(after, before, agreements)
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(row))
    if args.page:
        command = "python benchmarks/six_hundred_speed.py" + (" --before BEFORE" if args.before else "")
        command += f" --page {args.page}"
        args.page.write_text(measurement_page("Six Hundred planner speed", command, record, header, rows, NOTES))
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
