"""Where the framework finds default configs and puts new runs and reports.

Default configs are the YAML files of the repository's ``configs/`` folder. New runs go
under ``./checkpoints/<env>/`` and reports under ``./results/<env>/``, relative to the
working directory (as RL Baselines3 Zoo writes to ``./logs``): in a source checkout run
from its root, that is the repository's own ``checkpoints/`` and ``results/``.
"""

from __future__ import annotations

from pathlib import Path

from envs.registry import ENVS
from training.framework.schema import ConfigError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


def config_path(name: str, env: str | None = None) -> Path:
    """The default config file ``name`` (e.g. ``invers.yaml``); an unknown env is a ConfigError."""
    if env is not None and env not in ENVS:
        raise ConfigError(f"unknown env {env!r}; known envs: {', '.join(sorted(ENVS))}")
    path = CONFIG_DIR / name
    if not path.is_file():
        raise ConfigError(f"there is no default config {name} (configs/ has {', '.join(sorted(p.name for p in CONFIG_DIR.glob('*.yaml')))})")
    return path


def checkpoint_root() -> Path:
    return Path("checkpoints")


def results_root() -> Path:
    return Path("results")
