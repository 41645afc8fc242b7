"""The package layout, in the one place pyproject.toml cannot state it: data from top-level folders.

The code is the packages ``envs``, ``agents`` and ``training`` (and every package below
them), found as before. Top-level folders whose place is fixed by the product's layout
also ship, as package data mapped into a package, without moving:

* ``checkpoints/<env>/shipped/``, ``shipped_td/`` and ``shipped_<n>p/`` (the trained networks the project
  ships) install as ``agents/checkpoints/<env>/shipped*/``; the rest of ``checkpoints/``
  (users' own runs, git-ignored) stays out of the wheel. Read by ``agents/shipped.py``.
* ``configs/*.yaml`` (the default training configs) install as ``training/configs/``.
  Read by ``training/framework/paths.py``.

Each module that reads such data looks in the package first (an installed wheel) and
then in the repository's top-level folder (a source checkout, or an editable install).
``tests/wheel_check.py`` (``make wheel-check``) builds the wheel and checks it.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup


def shipped_networks() -> dict[str, list[str]]:
    """``agents.checkpoints.<env>.<shipped folder>`` -> all its files: each shipped folder is a data package.

    Paths are relative to the project root, where setuptools runs this file.
    """
    folders = sorted(Path("checkpoints").glob("*/shipped")) + sorted(Path("checkpoints").glob("*/shipped_td"))
    folders += sorted(Path("checkpoints").glob("*/shipped_[0-9]p"))  # networks trained at another table size
    return {"agents." + ".".join(folder.parts): ["*"] for folder in folders if folder.is_dir()}


SHIPPED = shipped_networks()

setup(
    packages=find_namespace_packages(include=["envs*", "agents*", "training*"])
    + ["training.configs", *sorted(SHIPPED)],
    package_dir={"agents.checkpoints": "checkpoints", "training.configs": "configs"},
    package_data={
        # The default dice faces of Lost Dice and Keldice (envs/games/lost_dice_faces.py).
        "envs.games.dice": ["*.yaml"],
        "training.configs": ["*.yaml"],
        # The web page that `tabletop serve` serves (training/web/app.py).
        "training.web": ["static/*"],
        # The benchmark's measured normalization constants (training/evaluation/suite.py).
        "training.evaluation": ["suite_references.json", "suite_v2_references.json", "suite_v3_references.json"],
        **SHIPPED,
    },
)
