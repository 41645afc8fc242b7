"""Where training reads its default configs and writes its runs and reports: the one place that says.

* **Default configs** (:func:`config_path`): ``configs/<name>.yaml`` at the repository's
  top level in a source checkout (or an editable install); an installed wheel carries the
  same files as package data, ``training/configs/<name>.yaml`` (``setup.py`` maps the
  top-level folder into this package). The package is looked at first, then the checkout,
  so a default config is found from any working directory.
* **New runs** (:func:`checkpoint_root`) go to ``./checkpoints/<env>/<run>/`` and
  **reports** (:func:`results_root`) to ``./results/<env>/...``: relative to the current
  working directory, as RL Baselines3 Zoo writes ``./logs``. Run from the repository's
  root, as every command of the README is, these are the repository's own
  ``checkpoints/`` and ``results/`` folders, as before; run anywhere else, they are made
  there. ``--run-dir`` / ``--out`` choose another place.
* **The source checkout** (:func:`source_root`), when the code runs from one: the
  repository root (for its git commit), else None.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The repository root, if this file lies in a source checkout (``training/framework/paths.py``).
_CHECKOUT = Path(__file__).resolve().parents[2]


def source_root() -> Path | None:
    """The repository root when running from a source checkout (or an editable install), else None."""
    return _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() else None


def config_dir() -> Path:
    """The folder of the default configs: the installed package data, else the repository's ``configs/``."""
    packaged = resources.files("training") / "configs"  # a wheel installs files on disk: a Path
    if packaged.is_dir():
        return Path(str(packaged))
    return _CHECKOUT / "configs"


def config_path(name: str) -> Path:
    """The default config ``name`` (``"inverted_dice"``, ``"inverted_dice_td"``, ...): ``configs/<name>.yaml``."""
    return config_dir() / f"{name}.yaml"


def checkpoint_root() -> Path:
    """Where new runs go: ``checkpoints/`` of the current working directory (``<root>/<env>/<run>/``)."""
    return Path("checkpoints")


def results_root() -> Path:
    """Where reports without a run of their own go: ``results/`` of the current working directory."""
    return Path("results")
