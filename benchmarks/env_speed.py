"""Random-legal-play steps per second of every env, single process: AEC, Gymnasium, Parallel.

    python benchmarks/env_speed.py                 # every env, plus PettingZoo's connect_four_v3 for scale
    python benchmarks/env_speed.py --env inverted_dice --steps 200000
    python benchmarks/env_speed.py --batched              # the native batched envs at N = 1, 64, 1024, 4096
    python benchmarks/env_speed.py --batched --page docs/benchmarks/batched_env_speed.md   # the docs page of that table

The AEC loop is PettingZoo's canonical one (``agent_iter`` / ``last`` / ``step``, a
uniformly random legal action from the mask), so the figure is comparable with any
PettingZoo env measured the same way; ``connect_four_v3`` is measured alongside as the
reference on the same machine and moment. The Gymnasium loop steps the single-agent
env (opponents random) with a random legal action from ``action_masks()``. The Parallel
loop (simultaneous games) counts one agent-step per acting agent of each ``step``, so it
compares with the AEC figure agent-step for agent-step. Each figure
is the best of ``--repeats`` runs, to be robust to a busy machine. Targets (2-core
machine): Inverted Dice ≥ 30,000 AEC steps/s; Six Hundred and Invers ≥ 20,000; Lost Dice
and Keldice ≥ 2 × connect_four_v3 in the same run; Roll Five ≥ 2× connect_four_v3 in both
its AEC and Parallel forms.

``--batched`` measures the native batched envs instead: ``gymnasium.make_vec(id, N)``
(:mod:`envs.batched.vector_env`) stepped with a uniformly random legal action per game,
chosen from ``info["action_mask"]`` by the compiled sampler of the env's action space
(:func:`envs.vector.sample_legal`, "the picker" below), so the figure is the env's
(rules, random opponents, observations, masks, rewards, autoresets); a step of ``N``
games counts ``N`` steps. Beside it, the single Gymnasium env in the same run, the
ratio at the largest ``N``, and the largest ``N`` played as the README and the batched
guide play it, ``env.step(env.action_space.sample())``, with its share of the picker's
speed. Beside them, where pgx is installed (``pip install -e ".[pgx]"``, part of the ``test``
extra), pgx's ``connect_four`` (JAX, ``jit`` of ``vmap``, on the CPU) in the same run and at the
same batch sizes, played the same way: a uniformly random legal action per game from its mask,
drawn inside the compiled step, finished games reset at once (``pgx.experimental.auto_reset``).
JAX spreads its work over every core, the project's envs use one. Targets (2-core
machine): at N = 4096, Inverted Dice and Six Hundred ≥ 1,000,000 steps/s, and every env
≥ 10× its own single Gymnasium env.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import gymnasium
import numpy as np

import envs  # noqa: F401  (registers the ids)
from envs.registry import ENVS, get_entry
from envs.vector import sample_legal
from training.evaluation.machine import MachineRecord, measurement_page


def aec_steps_per_second(make_env, steps: int, seed: int = 0) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            done += 1
        env.reset()
    return done / (time.perf_counter() - start)


def parallel_agent_steps_per_second(make_env, steps: int, seed: int = 0) -> float:
    """Agent-steps per second of a Parallel env: each ``step`` counts one per acting agent."""
    env = make_env()
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        actions = {}
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            if mask.any():
                actions[agent] = int(rng.choice(np.flatnonzero(mask)))
        observations, *_ = env.step(actions)
        done += len(actions)
        if not env.agents:
            observations, _ = env.reset()
    return done / (time.perf_counter() - start)


def gymnasium_steps_per_second(gym_id: str, steps: int, seed: int = 0) -> float:
    env = gymnasium.make(gym_id).unwrapped  # no checker wrappers: measure the env itself
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


#: The pgx game measured beside the project's envs: the reference every JAX-env paper quotes.
PGX_GAME = "connect_four"


def pgx_steps_per_second(num_envs: int, seconds: float, seed: int = 0) -> float:
    """Steps per second of pgx's :data:`PGX_GAME` batched by ``jax.vmap`` under ``jax.jit``: each
    step draws a uniformly random legal action per game and resets finished games, in one
    compiled call, as :func:`batched_steps_per_second` plays the project's envs. Needs the pgx
    extra (ImportError otherwise)."""
    import jax  # noqa: PLC0415 (the pgx extra: imported only when measured)
    import jax.numpy as jnp  # noqa: PLC0415
    import pgx  # noqa: PLC0415
    from pgx.experimental import auto_reset  # noqa: PLC0415

    game = pgx.make(PGX_GAME)

    @jax.jit
    def step(state, key):
        pick, reset = jax.random.split(key)
        legal = jnp.log(state.legal_action_mask.astype(jnp.float32))
        actions = jax.random.categorical(pick, legal, axis=1)
        return jax.vmap(auto_reset(game.step, game.init))(state, actions, jax.random.split(reset, num_envs))

    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(game.init))(jax.random.split(key, num_envs))
    keys = iter(jax.random.split(key, 1_000_000))
    for _ in range(3):  # compiled, buffers warm
        state = step(state, next(keys))
    jax.block_until_ready(state)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            state = step(state, next(keys))
        jax.block_until_ready(state)
        steps += 10 * num_envs
    return steps / (time.perf_counter() - start)


def pgx_installed() -> bool:
    try:
        import pgx  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


def batched_steps_per_second(gym_id: str, num_envs: int, seconds: float, seed: int = 0) -> float:
    """Steps per second of the batched env, each game's action drawn from ``info["action_mask"]``
    by the compiled sampler of the env's action space (:func:`envs.vector.sample_legal`)."""
    env = gymnasium.make_vec(gym_id, num_envs, copy=False)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):  # compiled kernels loaded, buffers warm
        _, _, _, _, info = env.step(sample_legal(rng, info["action_mask"]))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            _, _, _, _, info = env.step(sample_legal(rng, info["action_mask"]))
        steps += 10 * num_envs
    return steps / (time.perf_counter() - start)


def sampler_steps_per_second(gym_id: str, num_envs: int, seconds: float, seed: int = 0) -> float:
    """Steps per second of the batched env played by its documented sampler,
    ``env.step(env.action_space.sample())``, as the README and the batched guide step it."""
    env = gymnasium.make_vec(gym_id, num_envs, copy=False)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(3):
        env.step(env.action_space.sample())
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            env.step(env.action_space.sample())
        steps += 10 * num_envs
    return steps / (time.perf_counter() - start)


def best_of(measure, repeats: int) -> float:
    return max(measure() for _ in range(repeats))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", action="append", help="env name (repeatable; default: all)")
    parser.add_argument("--steps", type=int, default=100_000, help="steps per measurement (default 100000)")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per figure; the best is kept (default 3)")
    parser.add_argument("--no-reference", action="store_true", help="skip PettingZoo's connect_four_v3")
    parser.add_argument("--batched", action="store_true", help="measure the native batched envs (see above) instead")
    parser.add_argument(
        "--num-envs",
        type=int,
        nargs="+",
        default=[1, 64, 1024, 4096],
        help="--batched: batch sizes (default 1 64 1024 4096)",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="--batched: seconds per batched figure (default 3)")
    parser.add_argument(
        "--page",
        type=Path,
        help="also write the table as a docs page (Markdown) that records the machine, its load and the date",
    )
    args = parser.parse_args(argv)
    try:
        names = [get_entry(n).name for n in args.env] if args.env else list(ENVS)
    except KeyError as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return 2
    if args.page is not None and not args.page.parent.is_dir():
        print(f"error: --page {args.page}: no folder {args.page.parent}", file=sys.stderr)
        return 2
    if args.batched:
        if any(n < 1 for n in args.num_envs) or args.seconds <= 0:
            print("error: --num-envs must be positive and --seconds above 0", file=sys.stderr)
            return 2
        return batched_table(names, args, argv)

    record = MachineRecord()
    started = time.perf_counter()
    loops = len(names) * 2 + sum(get_entry(n).parallel for n in names) + (not args.no_reference)
    print(
        f"{loops} measurements x best of {args.repeats} runs of {args.steps:,} steps; a row per env as it is done",
        flush=True,
    )
    print(f"{'env':<28} {'AEC steps/s':>12} {'Gymnasium steps/s':>18} {'Parallel agent-steps/s':>23}", flush=True)
    rows = []
    if not args.no_reference:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import connect_four_v3  # noqa: PLC0415 (needs pygame, of the dev extra; warns)
        rate = best_of(lambda: aec_steps_per_second(connect_four_v3.env, args.steps), args.repeats)
        print(f"{'connect_four_v3 (reference)':<28} {rate:>12,.0f} {'—':>18} {'—':>23}", flush=True)
        rows.append(["PettingZoo `connect_four_v3` (reference, same loop)", f"{rate:,.0f}", "—", "—"])
    for name in names:
        entry = get_entry(name)
        module = entry.load_module()
        aec = best_of(lambda: aec_steps_per_second(module.env, args.steps), args.repeats)
        gym = best_of(lambda: gymnasium_steps_per_second(entry.gym_id, args.steps), args.repeats)
        par = (
            f"{best_of(lambda: parallel_agent_steps_per_second(module.parallel_env, args.steps), args.repeats):,.0f}"
            if entry.parallel
            else "—"
        )
        print(f"{entry.versioned_name:<28} {aec:>12,.0f} {gym:>18,.0f} {par:>23}", flush=True)
        rows.append([f"`{entry.versioned_name}`", f"{aec:,.0f}", f"{gym:,.0f}", par])
    print(f"measured in {time.perf_counter() - started:.0f} s")
    if args.page is not None:
        header = ["env", "AEC steps/s", "Gymnasium steps/s", "Parallel agent-steps/s"]
        notes = (
            f"Random legal play, best of {args.repeats} runs of {args.steps:,} steps per figure, one process; "
            f"measured in {time.perf_counter() - started:.0f} s. " + SINGLE_NOTES
        )
        write_page(args.page, "Env speed", argv, record, header, rows, notes)
    return 0


#: What the tables measure, printed under them on the docs pages.
SINGLE_NOTES = """The AEC loop is PettingZoo's own (`agent_iter` / `last` / `step`, a random legal action
from the mask), so the figure compares with any PettingZoo env measured the same way, and
`connect_four_v3` runs beside the envs as the reference on the same machine and moment.
The Gymnasium loop steps the single-agent env (random opponents); the Parallel loop counts
one agent-step per acting agent. The figures depend on the machine and its load: compare
rows of one run, not runs of two machines."""

BATCHED_NOTES = """Random legal play through `gymnasium.make_vec(id, num_envs=N, copy=False)` (a legal
action per game chosen from `info["action_mask"]` by the action space's compiled sampler, the
"picker"; default player counts, random
opponents); a step of `N` games counts `N` steps. "single" is the single Gymnasium env in
the same run, then the ratio of the largest batch to it. The last column plays the largest
batch as the documentation does, `env.step(env.action_space.sample())` (the action space
draws every game's legal action in compiled code), beside the picker's speed. With the default
`copy=True` the env hands out fresh observation and mask arrays every step, which costs a
little more. A larger batch is not always faster: with each figure the best of several
runs, a figure at the largest N below a smaller N's is the machine's, not a moment of load.
pgx's `connect_four` (JAX, `jit` of `vmap`) is measured in the same run where pgx is installed,
played the same way (a random legal action per game and the reset of finished games inside
its compiled step); JAX spreads a step over every core, the project's envs use one.
The figures depend on the machine and its load: compare rows of one run, not runs of two
machines."""


def write_page(path: Path, title: str, argv: list[str] | None, record: MachineRecord, header, rows, notes: str) -> None:
    command = "python benchmarks/env_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    path.write_text(measurement_page(title, command.strip(), record, header, rows, notes))
    print(f"wrote {path}")


def batched_table(names: list[str], args, argv: list[str] | None) -> int:
    """The ``--batched`` table: single env, then the native env at every batch size."""
    record = MachineRecord()
    started = time.perf_counter()
    print("steps/s, random legal play", flush=True)
    print(
        f"{'env':<16} {'single':>9}" + "".join(f"{'N=' + str(n):>12}" for n in args.num_envs) + f"  {'ratio':>6}",
        flush=True,
    )
    rows = []
    for name in names:
        entry = get_entry(name)
        single = best_of(lambda: gymnasium_steps_per_second(entry.gym_id, args.steps), args.repeats)
        rates = [
            best_of(lambda n=n: batched_steps_per_second(entry.gym_id, n, args.seconds), args.repeats)
            for n in args.num_envs
        ]
        sampled = best_of(lambda: sampler_steps_per_second(entry.gym_id, args.num_envs[-1], args.seconds), args.repeats)
        print(
            f"{entry.versioned_name:<16} {single:>9,.0f}"
            + "".join(f"{r:>12,.0f}" for r in rates)
            + f"  {rates[-1] / single:>5.0f}x  {sampled:>12,.0f} ({sampled / rates[-1]:.2f} of the picker's)",
            flush=True,
        )
        rows.append(
            [
                f"`{entry.versioned_name}`",
                f"{single:,.0f}",
                *(f"{r:,.0f}" for r in rates),
                f"{rates[-1] / single:.0f}×",
                f"{sampled:,.0f} ({sampled / rates[-1]:.2f})",
            ]
        )
    if pgx_installed():
        rates = [best_of(lambda n=n: pgx_steps_per_second(n, args.seconds), args.repeats) for n in args.num_envs]
        print(f"{'pgx ' + PGX_GAME:<16} {'—':>9}" + "".join(f"{r:>12,.0f}" for r in rates), flush=True)
        rows.append([f"pgx `{PGX_GAME}` (JAX, every core)", "—", *(f"{r:,.0f}" for r in rates), "—", "—"])
    else:
        print(f"pgx {PGX_GAME}: not measured, pgx is not installed (pip install -e '.[pgx]')", flush=True)
    print(f"measured in {time.perf_counter() - started:.0f} s")
    if args.page is not None:
        header = [
            "env",
            "single Gymnasium env",
            *(f"N = {n}" for n in args.num_envs),
            f"N = {args.num_envs[-1]} ÷ single",
            f"N = {args.num_envs[-1]}, `action_space.sample()` (÷ the picker's)",
        ]
        notes = (
            f"Each figure the best of {args.repeats} runs ({args.seconds:g} s each batched), so that a moment "
            f"when other work had the cores does not make it; measured in {time.perf_counter() - started:.0f} s. "
            + BATCHED_NOTES
        )
        write_page(args.page, "Batched env speed", argv, record, header, rows, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
