"""A run folder, ``checkpoints/<env>/<run>/``: the names of its files, what it says, and which agent plays it.

Every training pipeline leaves the same kind of folder (:mod:`training.framework.run`):
the resolved ``config.yaml``, ``metadata.json`` (the algorithm, seed, progress,
versions, and the checkpoint's record) and the pipeline's checkpoint files. This module
is where those names are spelt and the folder is read; training writes the files
(:mod:`training.framework.run_files`: atomic writes, checksums), the agents layer plays
them.

Which agent plays a run is registered beside that agent (:func:`register_loader`): a
:class:`RunLoader` names the algorithms whose runs it plays and the checkpoint file it
loads. :func:`run_loader` picks one for a folder by the algorithm its ``metadata.json``
records, else (older runs, a folder copied without its metadata) by the checkpoint file
it holds; a bare checkpoint file is told by its name. :mod:`agents.trained`,
:mod:`agents.rllib`, :mod:`agents.tianshou` and :mod:`agents.registry` (turn-value runs, beside the table of the
games' turn-value agents) register the project's loaders, and :mod:`agents.registry`
imports them all: ask through it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from agents.base import Agent
from envs.core import Game

CONFIG_FILE = "config.yaml"  #: the resolved config the run trains with
METADATA_FILE = "metadata.json"  #: algorithm, seed, progress, wall time, versions, and the last checkpoint's record
#: Every pipeline's training state: the learner's ``state_dict``, the random generators' states, whether
#: its preparation is done (what ``--resume`` needs besides the trained agent's files).
TRAINING_STATE_FILE = "training_state.pkl"
TENSORBOARD_DIR = "tensorboard"
EVALUATION_DIR = "evaluation"  #: the closing evaluation's report
CURVE_FILE = "learning_curve.csv"  #: the learning curve's rows (:mod:`training.framework.curve`)
CURVE_PICTURE_FILE = "learning_curve.png"  #: the learning curve, drawn when training ends

#: The policy-value network in SB3's MaskablePPO zip format (PPO, expert iteration).
MODEL_FILE = "model.zip"
REWARD_STATS_FILE = "vecnormalize.pkl"  #: PPO: VecNormalize reward statistics, when ``normalize_reward``
#: PPO: a warm start's teacher demonstrations, for the guide loss after a resume.
DEMONSTRATIONS_FILE = "demonstrations.pt"
VALUE_FILE = "value.pt"  #: turn-value TD: the value network (:func:`agents.turn_value.save_turn_value`)
#: RLlib: RLlib's checkpoint folder of the whole algorithm, zipped into one file.
RLLIB_CHECKPOINT_FILE = "rllib_checkpoint.zip"
#: Tianshou: the masked PPO's actor and critic with their shapes (:func:`agents.tianshou_policy.save_policy`).
TIANSHOU_POLICY_FILE = "tianshou_policy.pt"
#: Tianshou: the return per epoch, the learner's and a random player's (training/integrations/tianshou_ppo.py).
RETURN_CURVE_FILE = "return_curve.csv"


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, or trained for another game."""


def folder_of(path: str | Path) -> Path:
    """The run folder of ``path``: the folder itself, or the folder a checkpoint file lies in."""
    path = Path(path)
    return path if path.is_dir() else path.parent


def checkpoint_file(path: str | Path, name: str) -> Path:
    """The checkpoint file ``name`` of a run folder, or ``path`` itself when it is a file."""
    path = Path(path)
    return path / name if path.is_dir() else path


def read_config(path: str | Path) -> dict:
    """The config a run folder (or its checkpoint file) was trained with; {} when it has none."""
    config_path = folder_of(path) / CONFIG_FILE
    if not config_path.is_file():
        return {}
    try:
        config = yaml.safe_load(config_path.read_text())
    except yaml.YAMLError as error:
        raise CheckpointError(f"{config_path} is not valid YAML: {error}") from None
    return config if isinstance(config, dict) else {}


def read_metadata(path: str | Path) -> dict:
    """The ``metadata.json`` of a run folder (or its checkpoint file's); {} when it has none.

    A damaged one is a :class:`CheckpointError` of one line, so that a damaged run is
    named before its games are played, as ``--resume`` names it.
    """
    metadata_path = folder_of(path) / METADATA_FILE
    if not metadata_path.is_file():
        return {}
    try:
        metadata = json.loads(metadata_path.read_text())
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{metadata_path} is not valid JSON ({error}): the run folder is damaged") from None
    if not isinstance(metadata, dict):
        raise CheckpointError(
            f"{metadata_path} holds a {type(metadata).__name__}, not a run's metadata: the run folder is damaged"
        )
    return metadata


def check_trained_for(checkpoint: Path, game: Game) -> None:
    """A checkpoint file that exists and, where its run's ``config.yaml`` says, was trained on ``game``'s env."""
    if not checkpoint.is_file():
        raise CheckpointError(f"checkpoint {checkpoint} does not exist")
    if (checkpoint.parent / CONFIG_FILE).is_file():
        env = read_config(checkpoint).get("env")
        if env != game.name:
            raise CheckpointError(f"checkpoint {checkpoint} was trained on {env!r}, not {game.name!r}")


@dataclass(frozen=True)
class RunLoader:
    """How one kind of trained agent is recognised in a run folder and loaded from it."""

    kind: str  #: what its runs are called in messages, e.g. "PPO, expert iteration"
    algorithms: tuple[str, ...]  #: the names ``metadata.json`` records as ``algorithm`` for its runs
    checkpoint: str  #: the file of the run folder it loads
    #: ``load(env_name, path, game, seed)``: the agent of the run folder (or checkpoint file) ``path``
    load: Callable[[str, Path, Game, int | None], Agent]
    #: the suffixes of bare checkpoint files of another name that it loads (a model saved as ``best.zip``)
    suffixes: tuple[str, ...] = ()
    #: whether it can play runs of an env here (the game has such an agent, the library it needs is installed)
    plays: Callable[[str], bool] = lambda env: True

    def describe(self) -> str:
        return f"{self.checkpoint} ({self.kind})"


_LOADERS: list[RunLoader] = []


def register_loader(loader: RunLoader) -> None:
    """Declare how a kind of trained agent is loaded; its algorithms and checkpoint file are its own."""
    for other in _LOADERS:
        if set(loader.algorithms) & set(other.algorithms) or loader.checkpoint == other.checkpoint:
            raise ValueError(f"run loaders {other.kind!r} and {loader.kind!r} claim the same algorithm or file")
    _LOADERS.append(loader)


def run_loaders() -> list[RunLoader]:
    """Every registered loader, by the name of its checkpoint file."""
    return sorted(_LOADERS, key=lambda loader: loader.checkpoint)


def holds_trained_agent(folder: Path) -> bool:
    """Whether ``folder`` holds the checkpoint file of some kind of trained agent."""
    return any((folder / loader.checkpoint).is_file() for loader in run_loaders())


def run_loader(path: str | Path) -> RunLoader:
    """The loader of the run folder (or checkpoint file) ``path``.

    A folder: the loader of the algorithm its ``metadata.json`` records, else the one
    whose checkpoint file it holds; a :class:`CheckpointError` says what a run folder
    holds when it holds none (or several and records no algorithm). A file: by its
    name, else by its suffix.
    """
    path = Path(path)
    loaders = run_loaders()
    if not path.is_dir():
        by_name = [loader for loader in loaders if path.name == loader.checkpoint]
        by_suffix = [loader for loader in loaders if path.suffix in loader.suffixes]
        if by_name or by_suffix:
            return (by_name or by_suffix)[0]
        files = [f"{loader.describe()}{''.join(f', any {suffix}' for suffix in loader.suffixes)}" for loader in loaders]
        raise CheckpointError(f"checkpoint {path} is no file a trained agent loads from: {_either(files)}")
    algorithm = read_metadata(path).get("algorithm")
    recorded = [loader for loader in loaders if algorithm in loader.algorithms]
    present = [loader for loader in loaders if (path / loader.checkpoint).is_file()]
    if recorded or len(present) == 1:
        return (recorded or present)[0]
    if not present:
        raise CheckpointError(
            f"checkpoint {path} holds no trained agent: a run folder holds "
            f"{_either([loader.describe() for loader in loaders])}; an interrupted run may not have saved one yet"
        )
    raise CheckpointError(
        f"checkpoint {path} holds {' and '.join(loader.checkpoint for loader in present)}, and its {METADATA_FILE} "
        "does not record which pipeline wrote the run: give the checkpoint file instead of the folder"
    )


def _either(items: list[str]) -> str:
    """``"a"``, ``"a or b"``, ``"a, b or c"``."""
    return " or ".join(filter(None, [", ".join(items[:-1]), items[-1]]))
