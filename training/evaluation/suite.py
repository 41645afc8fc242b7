"""The benchmark suite: its tasks, its version, and the normalized score, defined here once.

A **task** is one game at one table against one fixed opponent, with fixed seeds, game
counts and seat rotation: every env at the table its config trains at
(``configs/<env>.yaml``), plus Lost Dice at three and four players and Roll Five at
four. The agent under test plays seat ``g % players`` in game ``g`` (seats rotate
evenly; the game counts are multiples of the players) and the task's opponent every
other seat. Since suite 3, in seat-paired openings: game ``g`` is seeded
``seed + g // players`` (dice, agents and any random opening), so that every opening is
played once with the agent in each seat (:func:`agents.match.pairing_seed`) and a share's
interval is taken over the openings; suites 1 and 2 seeded game ``g`` ``seed + g``. A
task's games are the same on every run, in any number of processes.

**The normalized score** of a task puts every game on one scale:

    normalized = (raw - random) / (reference - random)

0 is the uniform-random agent and 1 the reference. ``raw`` is the agent's mean final
score in a one-player game, and in a game of several players its share: the mean over
games of 1 for a win (a shared win counts for each winner), ½ for a draw, 0 for a loss.
The reference is the strongest the project knows for the task:

* Inverted Dice: the exact optimum, the solver's expected score of a fresh sheet
  (:mod:`agents.inverted_dice.solver`): no agent can beat 1 in expectation;
* Six Hundred: its heuristic, the only bot (its mean score over the task's games);
* games of several players: the task's opponent, the strongest bot (in suite v2, Invers's
  depth-2 search: see :data:`TASKS_V2`). Its
  share against copies of itself is exactly ½ at two players (the two seats' scores add
  up to 1 in every game); at three or four it is not 1 / n, because shared wins count
  for each winner, so it is measured (the mean share of all seats over the task's
  games, every seat the reference).

Why these: an agent's score against the strongest bot says how close it comes to the
best play the project can field (1: as good as the bot; above 1: better), the way
Atari's human-normalized and Procgen's normalized returns put games of different
scales side by side. ``random`` is the floor of every task, measured on the task's own
games against its own opponent. The constants are measured once per suite version and
stored beside this module (:attr:`Suite.references_file`) with the command that measures
them (``python training/benchmark.py --measure-references --suite N``); they are
definitions of the scale, not estimates the benchmark's intervals account for.

Changing a task (its table, opponent, seeds or game counts) or a reference changes
what the numbers mean: add a suite version (:data:`SUITES`) and measure its references;
the old versions stay runnable (``--suite 1``), so old figures can be compared.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from envs.registry import ENVS
from training.framework.schema import ConfigError

#: The suite a benchmark runs unless told otherwise (``--suite``).
SUITE_VERSION = "3"

MEASURE_COMMAND = "python training/benchmark.py --measure-references"


@dataclass(frozen=True)
class Task:
    name: str  #: the task's name in reports, e.g. ``"lost_dice_3p"``
    env: str  #: the env (:data:`envs.registry.ENVS`)
    env_kwargs: dict = field(default_factory=dict)  #: the table: game options
    opponent: str | None = None  #: agent spec of every other seat (None: one player)
    reference: str = ""  #: what normalized 1 is, in words
    games: int = 0  #: games of the default suite
    quick_games: int = 0  #: games of ``--quick``: the first ones of the default suite's
    seed: int = 0  #: game ``g`` is seeded ``seed + g // players`` (seat-paired), or ``seed + g``
    random_opening_plies: int = 0  #: uniformly random first plies (games without chance)
    seat_paired: bool = False  #: every opening played once from every seat (suite 3 on)

    @property
    def players(self) -> int:
        return int(self.env_kwargs.get("num_players", 1))

    @property
    def measure(self) -> str:
        """What ``raw`` is for this task: a one-player game's mean final score, or the share of
        several players' (the mean of 1 for a win, shared wins included, ½ for a draw, 0 for a loss)."""
        return "mean score" if self.players == 1 else "share"

    def game_count(self, quick: bool) -> int:
        return self.quick_games if quick else self.games

    def game_seed(self, number: int) -> int:
        """The seed of game ``number``: its opening's, ``seed + number // players``, in a
        seat-paired task; ``seed + number`` in suites 1 and 2."""
        return self.seed + (number // self.players if self.seat_paired else number)

    def opening(self, number: int) -> int:
        """The opening game ``number`` belongs to: the unit a share's interval is taken over
        (each game its own where the task is not seat-paired)."""
        return number // self.players if self.seat_paired else number


#: Version 1 (the leaderboard until suite v2): a few hundred games a task, whose intervals
#: (±0.1 to ±0.25 normalized at three and four players) could not tell two good agents apart.
TASKS_V1: tuple[Task, ...] = (
    Task(
        "inverted_dice",
        "inverted_dice",
        {"num_players": 1, "free_cross_out": False},
        None,
        "the exact optimum (solver's expected score)",
        500,
        20,
        1_000_000,
    ),
    Task("six_hundred", "six_hundred", {"num_players": 1}, None, "heuristic", 300, 10, 2_000_000),
    # Invers has no dice: two random opening plies (576 openings) make its games independent.
    Task("invers", "invers", {"num_players": 2}, "search", "search", 200, 8, 3_000_000, random_opening_plies=2),
    Task("roll_five", "roll_five", {"num_players": 2, "mode": "tournament"}, "search", "search", 400, 12, 4_000_000),
    Task("roll_five_4p", "roll_five", {"num_players": 4, "mode": "tournament"}, "search", "search", 400, 12, 5_000_000),
    Task("lost_dice", "lost_dice", {"num_players": 2}, "search", "search", 400, 12, 6_000_000),
    Task("lost_dice_3p", "lost_dice", {"num_players": 3}, "search", "search", 300, 12, 7_000_000),
    Task("lost_dice_4p", "lost_dice", {"num_players": 4}, "search", "search", 200, 12, 8_000_000),
    Task("keldice", "keldice", {"num_players": 2}, "search", "search", 400, 12, 9_000_000),
)

#: Version 2: game counts chosen so that an agent at the reference's level gets every task's
#: normalized 95% interval within ±0.05 and the IQM's within ±0.02 (``docs/benchmark.md``
#: gives the arithmetic; ``benchmarks/eval_speed.py`` what they cost), new seeds. Invers's
#: opponent is the depth-2 search: the depth-4 search is the costliest bot per move, and the
#: 2,000 games a ±0.05 interval needs would outlast the rest of the suite; four random
#: opening plies (331,776 openings) keep 2,000 games between deterministic agents distinct.
TASKS_V2: tuple[Task, ...] = (
    Task(
        "inverted_dice",
        "inverted_dice",
        {"num_players": 1, "free_cross_out": False},
        None,
        "the exact optimum (solver's expected score)",
        500,
        20,
        11_000_000,
    ),
    Task("six_hundred", "six_hundred", {"num_players": 1}, None, "heuristic", 300, 10, 12_000_000),
    Task(
        "invers",
        "invers",
        {"num_players": 2},
        "search:depth=2",
        "search:depth=2",
        2000,
        10,
        13_000_000,
        random_opening_plies=4,
    ),
    Task("roll_five", "roll_five", {"num_players": 2, "mode": "tournament"}, "search", "search", 2000, 24, 14_000_000),
    Task(
        "roll_five_4p", "roll_five", {"num_players": 4, "mode": "tournament"}, "search", "search", 4000, 24, 15_000_000
    ),
    Task("lost_dice", "lost_dice", {"num_players": 2}, "search", "search", 2000, 24, 16_000_000),
    Task("lost_dice_3p", "lost_dice", {"num_players": 3}, "search", "search", 3600, 24, 17_000_000),
    Task("lost_dice_4p", "lost_dice", {"num_players": 4}, "search", "search", 5200, 24, 18_000_000),
    Task("keldice", "keldice", {"num_players": 2}, "search", "search", 2000, 24, 19_000_000),
)


#: Version 3: version 2's tables, opponents, seeds and game counts, played in seat-paired
#: openings (every opening once from every seat, the intervals over the openings), so that
#: two copies of one agent score exactly ½ and the deal's luck cancels within an opening.
TASKS_V3: tuple[Task, ...] = tuple(replace(task, seat_paired=True) for task in TASKS_V2)


@dataclass(frozen=True)
class Suite:
    """A version of the suite: its tasks and the file of its measured references."""

    version: str
    tasks: tuple[Task, ...]
    references_file: str  #: package data beside this module


SUITES: dict[str, Suite] = {
    "1": Suite("1", TASKS_V1, "suite_references.json"),
    "2": Suite("2", TASKS_V2, "suite_v2_references.json"),
    "3": Suite("3", TASKS_V3, "suite_v3_references.json"),
}

#: The tasks of the current suite.
TASKS = SUITES[SUITE_VERSION].tasks


def suite(version: str = SUITE_VERSION) -> Suite:
    """The suite of ``version`` (``"1"``, ``"2"``, ``"3"``), or a KeyError naming the versions."""
    if version not in SUITES:
        raise KeyError(f"unknown suite version {version!r}; the versions: {', '.join(SUITES)}")
    return SUITES[version]


def task_by_name(name: str, version: str = SUITE_VERSION) -> Task:
    tasks = suite(version).tasks
    for task in tasks:
        if task.name == name:
            return task
    raise KeyError(f"unknown task {name!r}; the suite's tasks: {', '.join(t.name for t in tasks)}")


@dataclass(frozen=True)
class Anchors:
    """The raw scores of a task that map to 0 and 1, and where each comes from."""

    random: float
    reference: float
    random_source: str
    reference_source: str

    def normalize(self, raw):
        """``(raw - random) / (reference - random)``: a number or a numpy array."""
        return (raw - self.random) / (self.reference - self.random)


def references_path(version: str = SUITE_VERSION) -> Path:
    return Path(str(resources.files(__package__) / suite(version).references_file))


def load_anchors(path: Path | None = None, version: str = SUITE_VERSION) -> dict[str, Anchors]:
    """Every task's anchors, from the references file of suite ``version``."""
    path = path or references_path(version)
    data = json.loads(path.read_text())
    if data.get("suite_version") != version:
        raise ValueError(
            f"{path} holds references of suite version {data.get('suite_version')!r}, not {version!r}: "
            f"measure them again with `{MEASURE_COMMAND} --suite {version}`"
        )
    anchors = {name: Anchors(**values) for name, values in data["tasks"].items()}
    missing = [t.name for t in suite(version).tasks if t.name not in anchors]
    if missing:
        raise ValueError(f"{path} has no references for {missing}: measure them with `{MEASURE_COMMAND}`")
    return anchors


def write_anchors(anchors: dict[str, Anchors], path: Path | None = None, version: str = SUITE_VERSION) -> Path:
    path = path or references_path(version)
    data = {
        "suite_version": version,
        "command": f"{MEASURE_COMMAND} --suite {version}",
        "tasks": {name: vars(a) for name, a in anchors.items()},
    }
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


#: ``NAME=SPEC``: a spec for one env's or one task's tasks (a spec's own options come after a ':').
OVERRIDE = re.compile(r"^(?P<name>[a-z0-9_]+)=(?P<spec>.+)$")


def agent_mapping(values: list[str]) -> str | dict[str, str]:
    """``--agent`` values as one spec, or a mapping of task / env names to specs (the plain spec under every task)."""
    default, overrides = None, {}
    names = set(ENVS) | {task.name for task in TASKS}
    for value in values:
        match = OVERRIDE.match(value)
        if match and match["name"] in names:
            overrides[match["name"]] = match["spec"]
        elif match:
            raise ConfigError(
                f"--agent {value}: {match['name']!r} is no env or task of the suite ({', '.join(sorted(names))})"
            )
        elif default is not None:
            raise ConfigError(
                f"--agent given two plain specs ({default!r}, {value!r}); name the env of the second: ENV=SPEC"
            )
        else:
            default = value
    if not overrides:
        return default
    # every task named, None where no spec is given: a task is never played by another task's spec
    return {task.name: overrides.get(task.name, overrides.get(task.env, default)) for task in TASKS}
