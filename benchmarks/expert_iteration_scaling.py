"""How expert iteration scales: positions played and labelled per second with 1 and 2 local
workers and on a two-node Ray cluster, the driver's serial share, and Amdahl's projection.

    python benchmarks/expert_iteration_scaling.py                       # the table, printed
    python benchmarks/expert_iteration_scaling.py --page docs/benchmarks/expert_iteration_scaling.md
    python benchmarks/expert_iteration_scaling.py --config configs/invers_more_compute.yaml --generations 3

Each setting is the documented command (``python training/train.py --config C --generations G
--no-eval``) with ``--workers 1``, ``--workers 2``, and ``--address`` of a two-node cluster that
this script starts on this machine (``ray.cluster_utils.Cluster``: a head without CPUs and two
nodes of one CPU, each its own raylet and object store; skipped, and said so, where Ray is not
installed). Its figures are read off the run's generation log, the first :data:`WARM_UP`
generations left out (they start the worker processes, which import torch and load the compiled
searches; a Ray worker pool takes two generations to fill):

* **positions / s, units**: positions played and labelled per second of the units' phase (the
  driver waiting for them); **a generation**: per second of whole generations, learning included;
* **per CPU-second**: positions per CPU-second the units took, wherever they ran;
* **driver's share**: the part of a one-worker generation that only the driver can do (learning,
  planning the generation and merging its units: the generation's wall time less the units'),
  from which Amdahl's law bounds the speed on ``N`` cores at ``1 / (s + (1 - s) / N)`` times one
  worker's. The projection assumes units as cheap on every core and the network as small as here;
  a node's network link (the plan's few MB once a generation) is not in it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from training.evaluation.machine import MachineRecord, measurement_page
from training.framework.console import USER_ERRORS, fail
from training.framework.schema import ConfigError

ROOT = Path(__file__).resolve().parents[1]
PROJECTED_CORES = (8, 32, 128)
WARM_UP = 2  #: generations not counted

NOTES = """\
The settings ran one after another on the same machine, in the same run of this script. Each
setting's generations are the same games and labels (a unit's positions depend on the run's seed,
the generation and its chunk alone), so the settings differ only in where the units ran. The
projection is Amdahl's bound from the one-worker driver's share: the units' part divided among
``N`` cores, the driver's part not; it is the speed of the generations measured here, the
default recipe's first stage, whose learning grows with the replay buffer.
"""


def train(config: Path, generations: int, run: Path, extra: list[str]) -> list[dict]:
    """One setting's run; its generation log."""
    command = [sys.executable, "training/train.py", "--config", str(config), "--generations", str(generations)]
    command += ["--run-dir", str(run), "--no-eval", "--no-progress", *extra]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return json.loads((run / "metadata.json").read_text())["generation_log"]


def figures(log: list[dict]) -> dict[str, float]:
    """A setting's sums over its generations after the warm-up."""
    measured = log[WARM_UP:]
    total = {key: sum(entry[key] for entry in measured) for key in ("positions", "play_s", "learn_s", "unit_cpu_s")}
    total["unit_wall_s"] = sum(entry["unit_wall_s"] for entry in measured)
    total["generations"] = len(measured)
    return total


def on_cluster(config: Path, generations: int, run: Path) -> list[dict] | None:
    """The run on a two-node local cluster (None where Ray is not installed)."""
    try:
        from ray.cluster_utils import Cluster  # noqa: PLC0415 (Ray is an optional extra)
    except ImportError:
        return None
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        return train(config, generations, run, ["--address", cluster.address])
    finally:
        cluster.shutdown()


def per(amount: float, seconds: float) -> str:
    """``amount`` per second, or a dash where the log's tenths of a second add up to nothing."""
    return f"{amount / seconds:.0f}" if seconds > 0 else "—"


def table(settings: dict[str, dict[str, float]]) -> tuple[list[str], list[list[str]]]:
    header = [
        "where the units ran",
        "generations",
        "positions",
        "positions / s, units",
        "positions / s, a generation",
        "per CPU-second",
        "learning a generation (s)",
        "speed-up, a generation",
    ]
    base = settings["1 local worker"]
    base_wall = base["play_s"] + base["learn_s"]
    rows = []
    for name, f in settings.items():
        wall = f["play_s"] + f["learn_s"]
        rows.append(
            [
                name,
                f"{f['generations']:.0f}",
                f"{f['positions']:.0f}",
                per(f["positions"], f["play_s"]),
                per(f["positions"], wall),
                per(f["positions"], f["unit_cpu_s"]),
                f"{f['learn_s'] / f['generations']:.2f}",
                f"{base_wall / wall:.2f}x" if wall > 0 else "—",
            ]
        )
    return header, rows


def projection(base: dict[str, float]) -> tuple[float, list[str]]:
    """The one-worker driver's share and Amdahl's projection from it."""
    wall = base["play_s"] + base["learn_s"]
    serial = base["learn_s"] + max(base["play_s"] - base["unit_wall_s"], 0.0)
    if wall <= 0:
        raise ConfigError("the generations took no measurable time: ask for more of them (--generations)")
    share = serial / wall
    speed = base["positions"] / wall
    lines = [
        f"The driver's share of a one-worker generation: **{share:.1%}** ({serial / base['generations']:.2f} s of "
        f"{wall / base['generations']:.2f} s: learning {base['learn_s'] / base['generations']:.2f} s, planning and "
        f"merging {(serial - base['learn_s']) / base['generations']:.2f} s). Amdahl's bound: at most "
        f"{1 / share:.1f}x one worker's speed on any number of cores.",
        "",
        "| cores | speed-up (Amdahl) | positions / s, a generation |",
        "|---|---|---|",
    ]
    for cores in PROJECTED_CORES:
        speedup = 1 / (share + (1 - share) / cores)
        lines.append(f"| {cores} | {speedup:.1f}x | {speed * speedup:.0f} |")
    return share, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=Path("configs/invers.yaml"))
    parser.add_argument(
        "--generations", type=int, default=12, help=f"generations per setting (the first {WARM_UP} not counted)"
    )
    parser.add_argument("--page", type=Path, help="also write the tables as a docs page (Markdown)")
    args = parser.parse_args(argv)
    try:
        if args.generations <= WARM_UP:
            raise ConfigError(f"--generations must be above {WARM_UP} (the first {WARM_UP} are not counted)")
        if not (ROOT / args.config).is_file() and not args.config.is_file():
            raise ConfigError(f"config file {args.config} does not exist")
        if args.page is not None and not args.page.parent.is_dir():
            raise ConfigError(f"--page {args.page}: no folder {args.page.parent}")
    except USER_ERRORS as error:
        return fail(error)
    config = args.config.resolve()
    record = MachineRecord()
    settings: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for workers in (1, 2):
            name = f"{workers} local worker{'s' if workers > 1 else ''}"
            settings[name] = figures(train(config, args.generations, Path(folder) / name, ["--workers", str(workers)]))
            print(name, settings[name])
        clustered = on_cluster(config, args.generations, Path(folder) / "cluster")
        if clustered is not None:
            settings["a two-node Ray cluster (2 x 1 CPU)"] = figures(clustered)
    header, rows = table(settings)
    _, projected = projection(settings["1 local worker"])
    text = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    text += ["| " + " | ".join(row) + " |" for row in rows]
    if clustered is None:
        text += ["", 'Ray is not installed here (`pip install -e ".[ray]"`): no cluster row.']
    print("\n".join(text + [""] + projected))
    if args.page is not None:
        command = "python benchmarks/expert_iteration_scaling.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        page = measurement_page("Expert iteration's scaling", command.strip(), record, header, rows, NOTES)
        if clustered is None:
            page += "\nRay was not installed: no cluster row.\n"
        page += "\n".join(["", "## Projected", "", *projected, ""])
        args.page.write_text(page)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
