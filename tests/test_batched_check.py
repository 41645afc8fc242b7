"""The comparer of the twins (tests/batched_check.py) catches bugs, and tests reach twins only through their API.

As ``tests/test_fuzz.py`` plants bugs in the rules cores, each twin here gets a bug planted
in one of its Numba kernels: the module attribute its class calls is swapped for a wrong
kernel (the real one with a spoiled input or output), and the comparer must report the
difference where it shows. Each scenario passes without the bug.

The twins' arrays and kernels are theirs alone: a test loads positions with
``load_state`` and redraws chance with ``resample`` (``tests/test_batched_load.py``), and
the scan below fails if a test file reaches for a twin's private name again.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from envs.batched import invers, invers_kernel, inverted_dice, lost_dice, roll_five, six_hundred
from envs.games.invers import Invers
from envs.games.inverted_dice import InvertedDice
from envs.games.lost_dice import GLOBAL_SIZE, PL_DISCARDER, PLAYER_SIZE, Keldice, LostDice
from envs.games.roll_five import RollFive
from envs.games.six_hundred import MAX_ROLLS, SixHundred
from envs.registry import ENVS, make_game
from tests.batched_check import Lockstep, Mismatch, compare, random_position

TESTS = Path(__file__).resolve().parent


# -- planted bugs -------------------------------------------------------------------------------


def _arguments(kernel, args) -> dict:
    """A kernel's arguments by the names of its parameters."""
    return dict(zip(inspect.signature(kernel.py_func).parameters, args))


def _called_with(**changes):
    """A bug: the kernel called with some of its arguments replaced (``name=function of the argument``)."""

    def make_bug(kernel):
        def planted(*args):
            named = _arguments(kernel, args)
            return kernel(*(changes[name](value) if name in changes else value for name, value in named.items()))

        return planted

    return make_bug


def _spoiled_after(spoil):
    """A bug: the kernel, then ``spoil(arguments by name, copies of its arrays from before the call)``."""

    def make_bug(kernel):
        def planted(*args):
            named = _arguments(kernel, args)
            before = {name: np.copy(value) for name, value in named.items() if isinstance(value, np.ndarray)}
            kernel(*args)
            spoil(named, before)

        return planted

    return make_bug


def _acting_left_behind(named, before):
    """Inverted Dice: a write ends the turn but the acting flags stay where they were."""
    writes = named["rows"][named["actions"] >= inverted_dice.SCORE]
    named["acting"][writes] = before["acting"][writes]


def _roll_offered_after_the_last_roll(named, before):
    """Six Hundred: "roll the unlocked dice" stays legal on the third roll."""
    for k, row in enumerate(named["rows"]):
        if named["out"][k].any() and named["turn"][row, six_hundred.ROLL] == MAX_ROLLS:
            named["out"][k, 0] = 1


def _truncation_unflagged(named, before):
    """Invers: a game cut short at ``max_plies`` ends, but as a draw, not a truncation."""
    status = named["positions"]["status"]
    rows = named["rows"]
    status[rows] = np.where(status[rows] == invers_kernel.TRUNCATED, invers_kernel.DRAWN, status[rows])


def _discarder_hidden(named, before):
    """Lost Dice: no observation shows who discarded the throw on offer."""
    named["out"][:, GLOBAL_SIZE + PL_DISCARDER :: PLAYER_SIZE] = 0.0


def _random_play(batched_class, game, num_games: int, steps: int):
    return lambda: compare(batched_class, game, num_games, steps, seed=1)


def _rollout(name: str, players: int, plies: int):
    """One position reached by random play loaded into four rows, every future redrawn, played out."""

    def scenario() -> None:
        game = make_game(name, num_players=players)
        pair = Lockstep(ENVS[name].batched_class(), game, 4, seed=plies)
        pair.load(pair.rows, random_position(game, plies, plies))
        pair.resample(pair.rows)
        pair.play_out(np.random.default_rng(plies))

    return scenario


# (module, kernel, bug, scenario, message): the comparer must report each where it shows.
PLANTED_BUGS = [
    pytest.param(
        inverted_dice,
        "_apply_kernel",
        _spoiled_after(_acting_left_behind),
        _random_play(inverted_dice.BatchedInvertedDice, InvertedDice(2), 4, 30),
        "acting players differs",
        id="inverted-dice-apply",
    ),
    pytest.param(
        six_hundred,
        "_legal_kernel",
        _spoiled_after(_roll_offered_after_the_last_roll),
        _random_play(six_hundred.BatchedSixHundred, SixHundred(1), 4, 30),
        "legal mask of seat 0 differs",
        id="six-hundred-legal",
    ),
    pytest.param(
        six_hundred,
        "_refresh_blocks_kernel",
        lambda kernel: lambda *args: None,
        _rollout("six_hundred", 2, 30),
        "observation of seat 0 differs",
        id="six-hundred-load",
    ),
    pytest.param(
        invers,
        "_apply_kernel",
        _spoiled_after(_truncation_unflagged),
        _random_play(invers.BatchedInvers, Invers(max_plies=6), 4, 10),
        "is_truncated differs",
        id="invers-apply",
    ),
    pytest.param(
        lost_dice,
        "_observe_kernel",
        _spoiled_after(_discarder_hidden),
        _random_play(lost_dice.BatchedLostDice, LostDice(2, rolls_per_player=6), 8, 60),
        r"observation of seat \d differs",
        id="lost-dice-observe",
    ),
    pytest.param(
        lost_dice,
        "_apply_kernel",
        _called_with(keldice=lambda keldice: False),
        _random_play(lost_dice.BatchedLostDice, Keldice(2, rolls_per_player=4), 4, 20),
        "scores differs",
        id="keldice-apply",
    ),
    pytest.param(
        lost_dice,
        "_resample_kernel",
        lambda kernel: lambda *args: None,
        _rollout("lost_dice", 3, 12),
        "stream after resample differs",
        id="lost-dice-resample",
    ),
    pytest.param(
        roll_five,
        "_apply_kernel",
        _called_with(tournament=lambda tournament: False),
        _random_play(roll_five.BatchedRollFive, RollFive(3, mode="tournament"), 16, 60),
        "returns differs",
        id="roll-five-apply",
    ),
    pytest.param(
        roll_five,
        "_resample_kernel",
        _called_with(turn=lambda turn: turn + 1),
        _rollout("roll_five", 2, 2),
        r"(legal mask|observation) of seat \d differs",
        id="roll-five-resample",
    ),
]


@pytest.mark.parametrize("module, kernel, make_bug, scenario, message", PLANTED_BUGS)
def test_planted_bugs_in_the_twins_kernels_are_reported(monkeypatch, module, kernel, make_bug, scenario, message):
    scenario()  # as shipped, the scenario shows no difference
    monkeypatch.setattr(module, kernel, make_bug(getattr(module, kernel)))
    with pytest.raises(Mismatch, match=message):
        scenario()


def test_every_twin_has_a_planted_bug():
    twins = {importlib.import_module(entry.batched_class().__module__) for entry in ENVS.values() if entry.batched}
    assert {param.values[0] for param in PLANTED_BUGS} == twins


# -- tests reach twins through their API only ---------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_names(obj) -> set[str]:
    """The private attributes of an object and of its classes."""
    return {name for owner in (obj, *type(obj).__mro__) for name in vars(owner) if _private(name)}


def twin_private_names() -> tuple[set[str], set[str]]:
    """Every twin's private names, and those of them no core state has (a core's ``_tape`` is a
    core test's business; a twin's ``_tape`` is no test's)."""
    twins = {entry.batched_class() for entry in ENVS.values() if entry.batched}
    names = set().union(*(_private_names(twin(twin.game_class(), 1)) for twin in twins))
    cores = set().union(*(_private_names(make_game(name).new_initial_state(np.random.default_rng(0))) for name in ENVS))
    return names, names - cores


def private_twin_touches(source: str, names: set[str], twin_only: set[str]) -> list[str]:
    """``line: expression`` of every private twin name ``source`` reaches for: an attribute (or a
    ``getattr`` / ``setattr`` / ``monkeypatch.setattr`` of its name) on something called
    batched or twin, or a name no core state has, on anything."""
    touches = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            owner, name = node.value, node.attr
        elif isinstance(node, ast.Call) and re.search(r"(get|set|del)attr$", ast.unparse(node.func)) and node.args:
            owner, name = node.args[0], getattr(node.args[1], "value", None) if len(node.args) > 1 else None
        else:
            continue
        if name in names and (name in twin_only or re.search("batched|twin", ast.unparse(owner), re.IGNORECASE)):
            touches.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {text}" for line, text in sorted(touches)]


def test_no_test_reaches_for_a_twins_private_names():
    names, twin_only = twin_private_names()
    touches = [
        f"{path.name}:{touch}"
        for path in sorted(TESTS.glob("*.py"))
        for touch in private_twin_touches(path.read_text(encoding="utf-8"), names, twin_only)
    ]
    assert touches == [], "tests reach into the twins (load_state / resample instead):\n" + "\n".join(touches)


def test_the_scan_sees_private_twin_names_and_leaves_the_cores_alone():
    names, twin_only = twin_private_names()
    assert {"_tape", "_start_streams", "_apply", "_load"} <= names and {"_apply", "_load"} <= twin_only
    source = """
pair.batched._tape[0] = tape
batched._apply(rows, seats, actions)
twin._positions[1] = position
setattr(env.batched, "_dice", dice)
monkeypatch.setattr(BatchedSixHundred, "_load", load)
anything._resample(rows, streams)
core._tape[0]
state._asked
pair.batched.load_state(rows, state)
"""
    assert private_twin_touches(source, names, twin_only) == [
        "2: pair.batched._tape",
        "3: batched._apply",
        "4: twin._positions",
        "5: setattr(env.batched, '_dice', dice)",
        "6: monkeypatch.setattr(BatchedSixHundred, '_load', load)",
        "7: anything._resample",
    ]
