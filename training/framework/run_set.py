"""Training a run set: one run of a recipe per seed, into one folder, then their report.

``train.py --env E --seeds 1 2 3 4 5`` writes ``checkpoints/<env>/<time>-<pipeline>-seeds1-5/``
with ``run_set.json`` and a run folder per seed (``seed1/`` ...), each an ordinary run: the
same command with ``--seed N --run-dir <set>/seedN`` (its own checkpoints, ``--resume``,
closing evaluation), its output in ``seedN.log``. Then
:func:`training.evaluation.run_set_report.run_set_report` scores the set.

Where the runs go:

* on this machine, as child processes, at most as many at once as the CPUs allow (a run
  reserves one CPU, or its config's ``workers``); ``--parallel N`` sets how many;
* on a Ray cluster with ``--address`` (or ``RAY_ADDRESS``): each run is a Ray task that
  reserves the run's CPUs on some node, trains there into a temporary folder and hands
  back the whole run folder, which the driver writes into the set. Nodes need the package
  installed, not the driver's files. A run so placed starts anew if its node is lost
  (Ray's task retries), and the same seed gives the same run on any node of one CPU model.

``train.py --resume <set>`` finishes what is missing: a run never started starts, a run
stopped before its budget resumes (locally), a finished one is kept, and the report is made
again. A child that fails leaves its log and the others go on; the command then exits 1
naming the seeds that failed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from agents.run_folder import EVALUATION_DIR, METADATA_FILE
from training.evaluation.run_set_report import SET_REPORT_FILES, run_set_report
from training.framework import ray_cluster
from training.framework.paths import checkpoint_root
from training.framework.run_set_folder import closing_games, read_run_set, runs_of, seed_folder, seed_log, write_run_set
from training.framework.schema import ConfigError

#: Options of the set's command that each run's command does not repeat: the set chooses them per run.
SET_OPTIONS = {"--seeds": "many", "--run-dir": 1, "--seed": 1, "--address": 1, "--parallel": 1, "--resume": 1}


def run_command(argv: list[str]) -> list[str]:
    """The training command of one run of the set: the set's own arguments without the options
    the set decides per run (:data:`SET_OPTIONS`)."""
    kept, skip_values = [], False
    for word in argv:
        name = word.split("=", 1)[0]
        if name in SET_OPTIONS:
            skip_values = "=" not in word and SET_OPTIONS[name]
            continue
        if skip_values and not word.startswith("--"):
            if skip_values == 1:
                skip_values = False
            continue
        skip_values = False
        kept.append(word)
    return kept


def trained(run_dir: Path) -> bool:
    """Whether the run reached its budget: its last session ended complete."""
    path = run_dir / METADATA_FILE
    sessions = (json.loads(path.read_text()).get("sessions") or [{}]) if path.is_file() else [{}]
    return sessions[-1].get("ended") == "completed"


def finished(run_dir: Path) -> bool:
    """Whether the run is trained and its closing evaluation's games are written."""
    return trained(run_dir) and closing_games(run_dir).is_file()


def train_command(base: list[str], seed: int, run_dir: Path) -> list[str]:
    """Seed ``seed``'s fresh run into ``run_dir``: the set's command with the seed and folder its own,
    the same on this machine and in a Ray task."""
    return [
        sys.executable,
        "-m",
        "training.train",
        *base,
        "--seed",
        str(seed),
        "--run-dir",
        str(run_dir),
        "--no-progress",
    ]


def child_command(base: list[str], run_set: Path, seed: int) -> list[str]:
    """What seed ``seed`` still needs: a fresh run into ``seed<N>/``, a resume of the one stopped
    there, or the closing evaluation of one trained but not evaluated (stopped during it)."""
    run_dir = seed_folder(run_set, seed)
    if trained(run_dir):
        out = run_dir / EVALUATION_DIR
        return [
            sys.executable,
            "-m",
            "training.evaluate",
            "--checkpoint",
            str(run_dir),
            "--out",
            str(out),
            "--overwrite",
        ]
    if (run_dir / METADATA_FILE).is_file():
        return [sys.executable, "-m", "training.train", "--resume", str(run_dir), "--no-progress"]
    return train_command(base, seed, run_dir)


def train_locally(run_set: Path, base: list[str], seeds: list[int], parallel: int) -> list[int]:
    """Train the seeds' runs as child processes, ``parallel`` at once; the seeds that failed."""

    def one(seed: int) -> int:
        log = seed_log(run_set, seed)
        command = child_command(base, run_set, seed)
        with log.open("a") as out:
            code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
        print(f"seed {seed}: {'done' if code == 0 else f'failed (exit {code}), see {log}'}", flush=True)
        return code

    with ThreadPoolExecutor(parallel) as pool:
        codes = dict(zip(seeds, pool.map(one, seeds)))
    return [seed for seed, code in codes.items() if code != 0]


def _train_on_node(base: list[str], seed: int) -> tuple[int, bytes, str]:
    """A Ray task: seed ``seed``'s run (:func:`train_command`) on whichever node it lands on, into a
    temporary folder; its exit code, the run folder as a tar archive, and its output."""
    with tempfile.TemporaryDirectory(prefix="tabletop-run-set-") as folder:
        run_dir = Path(folder) / "run"
        done = subprocess.run(train_command(base, seed, run_dir), capture_output=True, text=True, check=False)
        archive = io.BytesIO()
        if run_dir.is_dir():
            with tarfile.open(fileobj=archive, mode="w:gz") as tar:
                tar.add(run_dir, arcname=".")
        return done.returncode, archive.getvalue(), done.stdout + done.stderr


def train_on_cluster(
    run_set: Path, base: list[str], seeds: list[int], cpus: int, address: tuple[str, str]
) -> list[int]:
    """Train the seeds' runs as Ray tasks of ``cpus`` CPUs each; the seeds that failed."""
    import ray  # noqa: PLC0415 (Ray is an optional extra: pip install -e ".[ray]")

    joined = ray_cluster.join(*address)
    print(f"Training {len(seeds)} runs as Ray tasks on the cluster at {joined}", flush=True)
    remote = ray.remote(num_cpus=cpus, max_retries=3)(_train_on_node)
    pending = {remote.remote(base, seed): seed for seed in seeds}
    failed = []
    while pending:
        [ready], _ = ray.wait(list(pending))
        seed = pending.pop(ready)
        code, archive, output = ray.get(ready)
        log = seed_log(run_set, seed)
        log.write_text(output)
        if archive:
            with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
                tar.extractall(seed_folder(run_set, seed), filter="data")
        print(f"seed {seed}: {'done' if code == 0 else f'failed (exit {code}), see {log.name}'}", flush=True)
        if code != 0:
            failed.append(seed)
    ray.shutdown()
    return failed


def new_run_set(
    env: str, pipeline: str, seeds: list[int], base: list[str], command: str, cpus: int, where: str | None
) -> Path:
    """``checkpoints/<env>/<time>-<pipeline>-seeds<first>-<last>/`` (or ``where``) with its ``run_set.json``."""
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"--seeds names a seed twice: {' '.join(map(str, seeds))}")
    name = f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{pipeline}-seeds{seeds[0]}-{seeds[-1]}"
    run_set = Path(where) if where else checkpoint_root() / env / name
    if run_set.exists() and any(run_set.iterdir()):
        raise ConfigError(f"{run_set} already holds files; resume a run set with --resume {run_set}")
    run_set.mkdir(parents=True, exist_ok=True)
    info = {"env": env, "pipeline": pipeline, "seeds": seeds, "arguments": base, "command": command, "cpus": cpus}
    write_run_set(run_set, info)
    return run_set


def train_run_set(run_set: Path, parallel: int | None, address: tuple[str, str] | None) -> int:
    """Train every run of the set not finished yet, then write its report; the exit code."""
    info = read_run_set(run_set)
    cpus = int(info.get("cpus", 1))
    missing = [seed for seed, run in runs_of(run_set).items() if not finished(run)]
    if missing:
        if address is not None:
            stopped = [seed for seed in missing if (seed_folder(run_set, seed) / METADATA_FILE).is_file()]
            if stopped:
                raise ConfigError(
                    f"seeds {stopped} of {run_set} stopped part-way: resume them on this machine (without --address)"
                )
            failed = train_on_cluster(run_set, info["arguments"], missing, cpus, address)
        else:
            if parallel is None:
                parallel = max(1, min(len(missing), ray_cluster.local_cpus() // cpus))
            print(f"Training {len(missing)} runs of {info['env']}, {parallel} at a time -> {run_set}", flush=True)
            failed = train_locally(run_set, info["arguments"], missing, parallel)
        if failed:
            print(f"error: the runs of seeds {failed} failed; their logs are in {run_set}", file=sys.stderr)
            return 1
    print(run_set_report(run_set))
    print(f"Run set written to {run_set} ({', '.join(SET_REPORT_FILES)})")
    return 0


def run_set_cpus(config) -> int:
    """The CPUs one run of ``config`` keeps busy: its worker processes where it has them, else one."""
    return max(1, int(getattr(config, "workers", 1) or 1))


def set_address(args) -> tuple[str, str] | None:
    """The cluster a run set's runs go to (``--address`` or ``RAY_ADDRESS``), or None: this machine."""
    return ray_cluster.cluster_address(getattr(args, "address", None))


def local_parallel(args, cpus: int) -> int | None:
    """``--parallel``, checked against this machine's CPUs (None: as many as they allow)."""
    if args.parallel is None:
        return None
    if args.parallel <= 0:
        raise ConfigError(f"--parallel must be positive, got {args.parallel}")
    oversubscribe = bool(getattr(args, "oversubscribe", False))
    reason = f"{args.parallel} runs at once, {cpus} CPU each"
    ray_cluster.check_local_processes(args.parallel * cpus, reason, oversubscribe, "--parallel")
    return args.parallel
