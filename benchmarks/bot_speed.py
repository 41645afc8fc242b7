"""Bots acting in batch: moves/s of ``act`` one at a time against ``act_batch``, and the batched env with them.

    python benchmarks/bot_speed.py                      # every batched bot; 2,048 positions each
    python benchmarks/bot_speed.py --positions 8192 --seconds 5 --games 2048

Two tables, one run:

* **Bots.** Each bot that has an ``act_batch`` decides the same ``--positions`` positions
  (every acting seat of seeded random games), one ``act`` call each, then in batches of
  ``--batch`` rows (default 1,024) through ``act_batch``; moves/s of both, their ratio,
  and whether the actions were the same (two bots seeded alike: they must be).
* **Batched env.** ``gymnasium.make_vec(id, num_envs=--num-envs, opponents="heuristic")``
  stepped with random legal learner actions (``action_space.sample()``), learner
  steps/s: *before*, the heuristic with its ``act_batch`` hidden, so the env plays it as it
  did before the bots had one (a copy per game, ``act`` in a Python loop over the games
  waiting for it); *after*, the heuristic as it is (one ``act_batch`` call per opponent
  turn of all the games). Each game's default table, Inverted Dice and Six Hundred at two
  players (their default is solitaire: no opponent).
* **Evaluation.** The evaluation harness (:mod:`training.evaluation.harness`) playing
  ``--games`` games of a table whose agents all act in batch, games/s: one game at a time
  (the harness's default) against ``--eval-batch`` games at once (``batch=``, the games as
  rows of the batched twin), and whether the two played the same games (every history).

The figures depend on the machine and its load, printed with them: compare the columns of
one run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import gymnasium
import numpy as np

import envs  # noqa: F401  (registers the ids)
from agents.registry import make_agent
from envs.registry import get_entry, make_game
from training.evaluation.harness import evaluate_pairing, evaluate_solitaire
from training.evaluation.machine import MachineRecord

#: (env, bot spec) of every bot with an ``act_batch``.
BOTS = [
    ("lost_dice", "heuristic"),
    ("lost_dice", "search"),
    ("keldice", "heuristic"),
    ("keldice", "search"),
    ("roll_five", "heuristic"),
    ("inverted_dice", "heuristic"),
    ("six_hundred", "heuristic"),
]
#: (env, agent, opponent or None for a one-player game) of the evaluation table.
EVALUATIONS = [
    ("lost_dice", "ppo", "heuristic"),
    ("keldice", "search", "heuristic"),
    ("roll_five", "ppo", "heuristic"),
    ("inverted_dice", "heuristic", None),
    ("six_hundred", "heuristic", None),
]
#: (env, options) of the batched env with heuristic opponents.
TABLES = [
    ("lost_dice", {}),
    ("keldice", {}),
    ("roll_five", {}),
    ("inverted_dice", {"num_players": 2}),
    ("six_hundred", {"num_players": 2}),
]


def positions(env: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (observation, mask) rows of every acting seat of seeded random games, stacked."""
    game, rng = make_game(env), np.random.default_rng(seed)
    observations, masks = [], []
    while len(observations) < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and len(observations) < count:
            for player in state.acting_players():
                mask = state.legal_mask(player)
                observations.append(state.observe(player))
                masks.append(mask)
                state.apply(player, int(rng.choice(np.flatnonzero(mask))))
    return np.array(observations), np.array(masks)


def bot_speeds(env: str, spec: str, observations: np.ndarray, masks: np.ndarray, batch: int) -> tuple:
    """(moves/s of ``act``, moves/s of ``act_batch`` in batches of ``batch``, same actions)."""
    game = make_game(env)
    one, batched = make_agent(env, spec, game, seed=0), make_agent(env, spec, game, seed=0)
    started = time.perf_counter()
    expected = [one.act(o, m) for o, m in zip(observations, masks)]
    one_rate = len(masks) / (time.perf_counter() - started)
    started = time.perf_counter()
    actions = [
        batched.act_batch(observations[i : i + batch], masks[i : i + batch]) for i in range(0, len(masks), batch)
    ]
    batch_rate = len(masks) / (time.perf_counter() - started)
    return one_rate, batch_rate, bool(np.array_equal(np.concatenate(actions), expected))


@contextlib.contextmanager
def act_batch_hidden(bot_class: type):
    """``bot_class`` without its ``act_batch`` for a while: the batched env then plays it one
    copy per game, as it did before the method existed (``envs/batched/vector_env.py``)."""
    method = bot_class.__dict__["act_batch"]
    delattr(bot_class, "act_batch")
    try:
        yield
    finally:
        bot_class.act_batch = method


def env_steps_per_second(env: str, options: dict, num_envs: int, seconds: float, seed: int = 0) -> float:
    """Learner steps/s of the batched env with heuristic opponents, random legal learner actions."""
    vector_env = gymnasium.make_vec(get_entry(env).gym_id, num_envs, opponents="heuristic", **options)
    vector_env.reset(seed=seed)
    vector_env.action_space.seed(seed)
    vector_env.step(vector_env.action_space.sample())  # compiled kernels loaded, buffers warm
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        vector_env.step(vector_env.action_space.sample())
        steps += num_envs
    return steps / (time.perf_counter() - started)


def evaluation_speeds(env: str, spec: str, opponent: str | None, games: int, batch: int) -> tuple:
    """(games/s one at a time, games/s in batches of ``batch``, same games) of the harness."""
    game = make_game(env)
    agent = make_agent(env, spec, game, seed=0)
    histories: dict[int, list] = {0: [], batch: []}
    rates = {}
    for size in (batch, 0, batch):  # the first pass loads the twin's compiled kernels: not timed
        histories[size].clear()
        started = time.perf_counter()
        record = lambda *played, size=size: histories[size].append(played[2])  # noqa: E731 (the game's history)
        if opponent is None:
            evaluate_solitaire(game, {spec: agent}, range(games), on_game=record, batch=size)
        else:
            versus = make_agent(env, opponent, game, seed=1)
            evaluate_pairing(game, (spec, agent), (opponent, versus), games, 0, on_game=record, batch=size)
        rates[size] = games / (time.perf_counter() - started)
    return rates[0], rates[batch], histories[0] == histories[batch]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=2048, help="positions per bot (default 2048)")
    parser.add_argument("--batch", type=int, default=1024, help="rows per act_batch call (default 1024)")
    parser.add_argument("--num-envs", type=int, default=256, help="games of the batched env (default 256)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per batched-env figure (default 3)")
    parser.add_argument("--games", type=int, default=512, help="games per evaluation figure (default 512)")
    parser.add_argument("--eval-batch", type=int, default=256, help="games at once in the evaluation (default 256)")
    args = parser.parse_args(argv)
    if min(args.positions, args.batch, args.num_envs, args.games, args.eval_batch) < 1 or args.seconds <= 0:
        print(
            "error: --positions, --batch, --num-envs, --games and --eval-batch must be positive and --seconds above 0",
            file=sys.stderr,
        )
        return 2

    record = MachineRecord()
    print(f"{os.cpu_count()} cores, load average {record.load_at_start} (1, 5, 15 minutes) at the start", flush=True)
    print(f"\nbots: {args.positions:,} positions each; act one at a time, act_batch in batches of {args.batch:,}")
    print(f"{'env':<15} {'bot':<10} {'act moves/s':>12} {'act_batch moves/s':>18} {'ratio':>7}  same", flush=True)
    for env, spec in BOTS:
        one, batched, same = bot_speeds(env, spec, *positions(env, args.positions), args.batch)
        print(f"{env:<15} {spec:<10} {one:>12,.0f} {batched:>18,.0f} {batched / one:>6.0f}x  {same}", flush=True)

    print(f"\nbatched env, {args.num_envs} games, heuristic opponents: learner steps/s, random legal learner actions")
    print(f"{'env':<26} {'before (act per game)':>22} {'after (act_batch)':>18} {'ratio':>7}", flush=True)
    for env, options in TABLES:
        bot_class = type(make_agent(env, "heuristic", make_game(env, **options)))
        with act_batch_hidden(bot_class):
            before = env_steps_per_second(env, options, args.num_envs, args.seconds)
        after = env_steps_per_second(env, options, args.num_envs, args.seconds)
        table = get_entry(env).gym_id + "".join(f" {k}={v}" for k, v in options.items())
        print(f"{table:<26} {before:>22,.0f} {after:>18,.0f} {after / before:>6.1f}x", flush=True)
    print(f"\nevaluation harness, {args.games:,} games per table: games/s, one at a time and {args.eval_batch} at once")
    print(f"{'env':<15} {'table':<22} {'one at a time':>14} {'in batch':>10} {'ratio':>7}  same games", flush=True)
    for env, spec, opponent in EVALUATIONS:
        one, batched, same = evaluation_speeds(env, spec, opponent, args.games, args.eval_batch)
        table = f"{spec} vs {opponent}" if opponent else f"{spec} (solitaire)"
        print(f"{env:<15} {table:<22} {one:>14,.1f} {batched:>10,.1f} {batched / one:>6.1f}x  {same}", flush=True)
    print(f"\n{record.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
