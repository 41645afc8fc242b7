"""Turn-value agents: each turn played exactly against a *learned* value of the sheet it leaves.

In the solitaire dice games a turn is a few rolls that end by writing one box or
category; between turns, the score sheet is all that matters for the rest of the game.
The heuristic bots already play the rolls of a turn exactly, by expectimax over the
dice, against a hand-written estimate of what each possible sheet is worth; the optimal
Inverted Dice agent plays the same turn against the solved values. A turn-value agent
plays it against ``V(sheet)``, a small network that estimates the points still to come
from a between-turn sheet and is trained from the agent's own games
(:mod:`training.train_td`): the planner is the search, the network is what is learned,
as in TD-Gammon or AlphaZero.

This module holds what every game's turn-value agent shares:

* :class:`TurnValueNet`, the MLP ``features -> points to come``, and its file format
  (:func:`save_turn_value`, :func:`load_turn_value`);
* :class:`TurnValueAgent`, the bookkeeping that training reads: for each planned turn,
  the sheet's features and the planner's *backed-up value* of the turn (the expectation
  over the dice of this turn's points plus ``V`` of the sheet it leaves). A game's agent
  says how to read a sheet off an observation (:meth:`~TurnValueAgent.sheet_key`,
  :meth:`~TurnValueAgent.sheet_features`) and plans with :meth:`~TurnValueAgent.values`;
* the **lookahead** (``td:lookahead=k``), a decision-time search one turn deeper: where the
  planner writes the dice, the ``k`` best writes of the roll by ``points + V(sheet after)``
  are ranked again by ``points + W(sheet after)``, ``W`` being the planner's own backed-up
  value of the next turn from that sheet (an exact expectimax over the next turn's rolls and
  locks with ``V`` at its leaves). A game offers it by implementing
  :meth:`~TurnValueAgent.write_options` and :meth:`~TurnValueAgent.turn_values`.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.inference import one_thread, row_blocks
from agents.run_folder import VALUE_FILE, checkpoint_file
from agents.shipped import shipped_network

#: Bumped when a file's layout changes; older files are refused with a clear error.
FORMAT_VERSION = 1


class TurnValueNet(nn.Module):
    """``features -> expected points still to come`` (the output layer works in units of ``scale``).

    With a ``baseline`` ``(index, scale)`` the network learns a *correction*: its value is
    ``features[index] * scale`` (a feature holding a prior estimate, e.g. a heuristic's)
    plus the MLP's output, whose last layer starts at zero, so an untrained network
    values every sheet at the prior and training moves it only where games show the prior
    wrong.
    """

    def __init__(
        self,
        num_features: int,
        hidden: tuple[int, ...] = (256, 256),
        scale: float = 100.0,
        baseline: tuple[int, float] | None = None,
    ):
        super().__init__()
        layers, width = [], num_features
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 1))
        if baseline is not None:
            nn.init.zeros_(layers[-1].weight)
            nn.init.zeros_(layers[-1].bias)
        self.body = nn.Sequential(*layers)
        self.num_features, self.hidden, self.scale = num_features, tuple(hidden), float(scale)
        self.baseline = None if baseline is None else (int(baseline[0]), float(baseline[1]))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        value = self.body(features).squeeze(-1) * self.scale
        if self.baseline is not None:
            index, scale = self.baseline
            value = value + features[..., index] * scale
        return value

    def values(self, features: np.ndarray) -> np.ndarray:
        """Values (float64 points) of a batch of feature rows, computed on one thread, each row's
        the same bit for bit in any batch (:mod:`agents.inference`)."""
        with one_thread():
            return self.forward(row_blocks(features))[: len(features)].double().numpy()


def save_turn_value(path: Path, net: TurnValueNet, env: str, feature_version: int) -> None:
    torch.save(
        {
            "format": FORMAT_VERSION,
            "env": env,
            "feature_version": feature_version,
            "num_features": net.num_features,
            "hidden": list(net.hidden),
            "scale": net.scale,
            "baseline": list(net.baseline) if net.baseline is not None else None,
            "state_dict": net.state_dict(),
        },
        path,
    )


def load_turn_value(path: Path, env: str, num_features: int, feature_version: int) -> TurnValueNet:
    """The network in ``path`` (a ``value.pt`` or the run directory holding one), checked against the game."""
    path = checkpoint_file(path, VALUE_FILE)
    if not path.is_file():
        raise ValueError(f"no turn-value network at {path} (train one with: python training/train_td.py --env {env})")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises several types for a damaged file
        # the library's first sentence only: torch goes on to suggest weights_only=False,
        # unsafe for a file of unknown origin
        reason = str(error).split(". ")[0]
        raise ValueError(f"{path} is not a readable turn-value network ({type(error).__name__}: {reason})") from None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path}: not a turn-value network of format {FORMAT_VERSION}")
    if saved["env"] != env:
        raise ValueError(f"{path} was trained on {saved['env']}, not {env}")
    if saved["feature_version"] != feature_version or saved["num_features"] != num_features:
        raise ValueError(
            f"{path} reads {saved['num_features']} features (version {saved['feature_version']}); "
            f"this agent gives {num_features} (version {feature_version}): retrain it"
        )
    baseline = saved.get("baseline")
    net = TurnValueNet(num_features, tuple(saved["hidden"]), saved["scale"], tuple(baseline) if baseline else None)
    net.load_state_dict(saved["state_dict"])
    net.eval()
    return net


class TurnValueAgent(Agent):
    """A game's turn planner playing against a learned ``V(sheet)``.

    Args:
        game: the game (solitaire).
        seed: unused (the play is deterministic); accepted like every agent's.
        path: a run directory of :mod:`training.train_td` or its ``value.pt``; default
            the network shipped for the env (``checkpoints/<env>/shipped_td``).
        net: a :class:`TurnValueNet` to play with instead (training passes its own).
        lookahead: 0 (default) plays the planner's writes as they are; ``k`` of 2 or more
            ranks the ``k`` best writes of each written roll again one turn deeper (see the
            module docstring); it costs ``k`` plans of the next turn a write.
    """

    name = "td"
    #: The env whose sheets the features describe, their count and layout version.
    env: ClassVar[str]
    num_features: ClassVar[int]
    feature_version: ClassVar[int] = 1
    #: ``(feature index, scale)`` of a prior estimate the network corrects (see TurnValueNet), or None.
    baseline: ClassVar[tuple[int, float] | None] = None

    def __init__(
        self,
        game,
        seed: int | None = None,
        path: str | None = None,
        net: TurnValueNet | None = None,
        lookahead: int = 0,
    ):
        if isinstance(lookahead, bool) or not isinstance(lookahead, (int, np.integer)) or lookahead < 0:
            raise ValueError(f"td: lookahead must be 0 (off) or a number of writes, 2 or more, got {lookahead!r}")
        if lookahead == 1:
            raise ValueError("td: lookahead=1 ranks a single write, the planner's own; give 0 (off) or 2 or more")
        if lookahead and not self.looks_ahead:
            raise ValueError(f"td: the {self.env} turn-value agent has no lookahead")
        self.lookahead = int(lookahead)
        if game.num_players != 1:
            raise ValueError(
                f"the {self.env} turn-value agent plays solitaire (its value is the points still to come); "
                f"this game has {game.num_players} players"
            )
        super().__init__(game, seed)
        if net is None:
            net = load_turn_value(
                Path(path) if path is not None else shipped_network(self.env, "td"),
                self.env,
                self.num_features,
                self.feature_version,
            )
        self.net = net
        #: The backed-up value of the turn planned last: E[this turn's points + V(next sheet)].
        self.last_turn_value = float("nan")

    @staticmethod
    @abc.abstractmethod
    def sheet_key(observation: np.ndarray) -> bytes:
        """What identifies the between-turn sheet of an observation (it changes once per turn)."""

    @staticmethod
    @abc.abstractmethod
    def sheet_features(observation: np.ndarray) -> np.ndarray:
        """The network's input for the sheet the observation shows (float32)."""

    def values(self, features: np.ndarray) -> np.ndarray:
        """``V`` of a batch of sheets (their feature rows), in points."""
        return self.net.values(features)

    #: Whether :meth:`write_options` and :meth:`turn_values` are implemented (``lookahead``).
    looks_ahead: ClassVar[bool] = False

    def write_options(self, observation: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every write of the observation's dice: ``(actions, points now, observations of the
        sheets after, values by V)``, the last being ``points now + V(sheet after)`` as the
        planner ranks them; an observation after is one that :meth:`turn_values` reads."""
        raise NotImplementedError(f"the {self.env} turn-value agent has no lookahead")

    def turn_values(self, observations: np.ndarray) -> np.ndarray:
        """The planner's backed-up value of a turn from each observation's sheet: E[the turn's
        points + V(the sheet it leaves)] over its dice, its rolls and locks played exactly."""
        raise NotImplementedError(f"the {self.env} turn-value agent has no lookahead")

    def look_ahead(self, observation: np.ndarray, action: int) -> int:
        """The write to make instead of the planner's ``action`` (a write): of the ``lookahead``
        best writes by ``values by V``, the one with the most ``points + W(sheet after)``; the
        planner's own where no sheet after has a turn to come (the last write is exact)."""
        actions, now, after, by_value = self.write_options(observation)
        if len(actions) < 2:
            return action
        top = np.argsort(-by_value, kind="stable")[: self.lookahead]
        deeper = now[top] + self.turn_values(after[top])
        return int(actions[top[int(np.argmax(deeper))]])

    #: Whether :meth:`explore_write` is implemented (``warm_start.explore_top`` of a TD config).
    explores_writes: ClassVar[bool] = False

    def explore_write(self, observation: np.ndarray, action: int, top: int, rng: np.random.Generator) -> int:
        """What to play instead of a teacher's ``action`` on a turn a warm start explores
        (:mod:`training.pipelines.td.explore`): for a write, one of the ``top`` best writes of
        this roll by the agent's own values, drawn uniformly from ``rng``; any other action as is."""
        raise NotImplementedError(f"the {self.env} turn-value agent does not explore writes")

    def teacher_values(
        self, teacher: Agent, observation: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The teacher's own estimate of the points to come from sheets this turn's writes could leave.

        ``(features, values)`` for some of those sheets, or ``None`` where the teacher has
        no such estimate (the default). A warm start fits ``V`` to them beside the
        teacher's returns: the planner then starts out ranking writes as the teacher
        does, the value-learning counterpart of behaviour cloning, and the sheets the
        teacher never leaves are not left to the network's guesswork.
        """
        return None
