"""The trained runs an evaluation plays, found: the latest run of a game, the runs among agent
specs, and what each is called in the tables.

An evaluation without ``--checkpoint`` plays the game's latest run (:func:`latest_run`), and
its settings follow the runs among its agents (:func:`trained_runs`, read by
:mod:`training.evaluation.request`); in the tables a run is ``trained``, or ``trained seed N``
where runs of several seeds play (:func:`agent_labels`).
"""

from __future__ import annotations

from pathlib import Path

from agents.registry import NETWORK_AGENTS, TURN_VALUE_AGENTS, parse_spec
from agents.run_folder import CONFIG_FILE, folder_of, read_config, run_loaders
from agents.shipped import is_shipped, shipped_network
from training.framework.paths import checkpoint_root


def latest_run(env: str) -> Path | None:
    """The most recently saved run of ``env`` under ``checkpoints/`` that an evaluation can play, if any.

    A run counts by its checkpoint file (:func:`agents.run_folder.run_loaders`): ``model.zip``
    (PPO, expert iteration), ``value.pt`` (turn-value TD, for the games with a ``td``
    agent) and ``rllib_checkpoint.zip`` (RLlib, only where Ray is installed to play it).
    A shipped network's folder (:func:`agents.shipped.is_shipped`) is never a run: in a
    fresh clone every file is as new as the others, and the shipped agents are played by
    their specs (``ppo``, ``td``).
    """
    names = [loader.checkpoint for loader in run_loaders() if loader.plays(env)]
    runs = [path for name in names for path in (checkpoint_root() / env).glob(f"*/{name}")]
    runs = [path for path in runs if not is_shipped(path.parent)]
    return max(runs, key=lambda p: p.stat().st_mtime).parent if runs else None


def trained_runs(env: str, specs: list[str]) -> list[Path]:
    """The run folders of the trained agents among ``specs``, in order: a path to a run
    (or its checkpoint file), ``ppo`` / ``ppo+search`` / ``td`` (the shipped network's
    folder, or their ``path=``). Only those that exist; bots have none."""
    runs = []
    for spec in specs:
        if Path(spec).exists():
            path = Path(spec)
        else:
            try:
                name, options = parse_spec(spec)
            except ValueError:
                continue  # a bad spec: the evaluation names it when it builds the agent
            if name in NETWORK_AGENTS:
                path = Path(str(options["path"])) if "path" in options else shipped_network(env)
            elif name == "td" and env in TURN_VALUE_AGENTS:
                path = Path(str(options["path"])) if "path" in options else shipped_network(env, "td")
            else:
                continue
        folder = folder_of(path)
        if (folder / CONFIG_FILE).is_file() and folder not in runs:
            runs.append(folder)
    return runs


def agent_labels(specs: list[str]) -> list[str]:
    """The name of each agent in the tables: a run's path is ``trained`` (``trained seed 3``, by its
    config's seed, where several runs of different seeds play), anything else its spec; a name
    given twice gets ``#2``, ``#3`` ... so that no agent is lost."""
    runs = [spec for spec in specs if Path(spec).exists()]
    seeds = {run: read_config(run).get("seed") for run in runs}
    by_seed = len(runs) > 1 and None not in seeds.values() and len(set(seeds.values())) == len(runs)
    labels: list[str] = []
    for spec in specs:
        base = spec if spec not in runs else f"trained seed {seeds[spec]}" if by_seed else "trained"
        label, copy = base, 1
        while label in labels:
            copy += 1
            label = f"{base} #{copy}"
        labels.append(label)
    return labels
