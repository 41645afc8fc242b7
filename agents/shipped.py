"""Where the trained networks the project ships live: one function, for every caller.

The repository keeps them at its top level, ``checkpoints/<env>/shipped/`` (a PPO run:
``model.zip``, ``config.yaml``, ``metadata.json``; the agent specs ``ppo`` and
``ppo+search``) and ``checkpoints/<env>/shipped_td/`` (a turn-value run: ``value.pt``;
the agent spec ``td``). A game whose observation changes with the player count ships a
network per table size it was trained for: ``checkpoints/<env>/shipped_<n>p/`` (e.g.
Lost Dice's ``shipped_3p``), which ``ppo`` plays at a table of ``n``. An installed
wheel carries the same folders as package data, ``agents/checkpoints/<env>/shipped*/``
(``setup.py`` maps the top-level folder into this package and takes only the shipped
folders). :func:`shipped_network` looks in the package first, then in the source
checkout, so it answers from any working directory.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from agents.run_folder import MODEL_FILE, VALUE_FILE

#: The folder of each kind of shipped network inside ``checkpoints/<env>/``.
SHIPPED_FOLDERS = {"ppo": "shipped", "td": "shipped_td"}
#: The checkpoint file a folder of each kind holds.
SHIPPED_FILES = {"ppo": MODEL_FILE, "td": VALUE_FILE}
#: The name of every shipped folder: ``shipped``, ``shipped_td`` and a table size's ``shipped_<n>p``.
SHIPPED_NAME = re.compile(r"shipped(_td|_\d+p)?")


#: Networks the repository keeps beside a shipped one as the earlier rounds it was trained from (the
#: configs' ``init`` and the search's regression fixture): part of the project, not a user's runs.
KEPT_NETWORKS = {"invers": frozenset({"distill_depth4", "search_distill_1", "search_distill_2"})}


def is_kept(folder: Path) -> bool:
    """Whether ``folder`` is a network the project keeps (:func:`is_shipped`, or one of
    :data:`KEPT_NETWORKS` in the repository's own ``checkpoints/``) rather than a user's run."""
    if is_shipped(folder):
        return True
    return folder.name in KEPT_NETWORKS.get(folder.parent.name, ()) and folder.parent.parent.resolve() == (
        checkpoints_root().resolve()
    )


def is_shipped(folder: Path) -> bool:
    """Whether ``folder`` is a shipped network's folder (by its name, wherever it lies): one that
    no command takes for a user's run or writes into (the latest run, a report's folder)."""
    return SHIPPED_NAME.fullmatch(folder.name) is not None


def checkpoints_root() -> Path:
    """The folder holding ``<env>/shipped*/``: the installed package data, else the repository's ``checkpoints/``."""
    packaged = resources.files(__package__) / "checkpoints"  # a wheel installs files on disk: a Path
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "checkpoints"


def shipped_network(env: str, kind: str = "ppo", num_players: int | None = None) -> Path:
    """The run directory of the network shipped for ``env``: ``kind`` ``"ppo"`` (``shipped/``) or ``"td"``
    (``shipped_td/``).

    With ``num_players``, a PPO network trained at that table size (``shipped_<n>p/``) is
    preferred when one is shipped. The path is returned whether or not the env has such
    a network; its loader says clearly when the folder holds none.
    """
    if kind not in SHIPPED_FOLDERS:
        raise ValueError(f"kind must be one of {sorted(SHIPPED_FOLDERS)}, got {kind!r}")
    if kind == "ppo" and num_players is not None:
        table = checkpoints_root() / env / f"shipped_{num_players}p"
        if (table / SHIPPED_FILES["ppo"]).is_file():
            return table
    return checkpoints_root() / env / SHIPPED_FOLDERS[kind]


def shipped_envs(kind: str = "ppo") -> list[str]:
    """The envs for which a network of ``kind`` is shipped (their folder holds its file), sorted."""
    return sorted(
        folder.parent.name
        for folder in checkpoints_root().glob(f"*/{SHIPPED_FOLDERS[kind]}")
        if (folder / SHIPPED_FILES[kind]).is_file()
    )
