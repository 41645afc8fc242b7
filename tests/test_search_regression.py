"""The searches choose exactly the moves, and give exactly the values, that they gave when
``tests/fixtures/search_regression.json`` was recorded (from the code before the two
alpha-beta searches became one): ``make results`` and training runs depend on it.

Recorded on 200 positions of seeded random Invers games (180 of the default game, 20
near the ply limit of a 40-ply game, where games end drawn):

* ``search:depth=1..4``: the move of one agent per depth playing every position in turn
  (its generator running on, as in a game);
* ``InversSearch.move_values`` at depths 2 and 3 (the teacher's labels): every value,
  and the order of the dict;
* ``ppo+search:depth=1..3`` with the network shipped when it was recorded
  (:data:`RECORDED_NETWORK`, kept for this and as a recipe's start): the agent's move, and the search's
  value, depth and leaf count; ``NetworkSearch(depth=4)`` on every tenth position;
* ``NetworkSearch(exact_root=True)`` at depths 2 and 3 (expert iteration's targets):
  move, value, depth, leaves and every root value;
* whole games ``search:depth=3`` against ``ppo+search:depth=2`` through ``play_game``;
* budgets: a time budget too large to run out gives the fixed-depth move, one too small
  still gives a legal move.

The bots' values are compared exactly, through a digest of their ``repr`` per position.
Network values come from torch's float32 kernels, which round the last bits otherwise on
another CPU (the fixture was recorded on an AMD EPYC; an Intel Xeon with AVX-512 differs by
up to 3e-7): they are compared within :data:`NETWORK_TOLERANCE`, and a row whose move,
depth or leaf count differs is a near-tie that rounding tipped, allowed in at most
:data:`NEAR_TIES` rows of a key (and, where the root values are recorded, only between two
moves whose recorded values lie within the tolerance).

Regenerate (only ever from code whose moves are known to be right)::

    python tests/test_search_regression.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.invers.search import InversSearch
from agents.match import play_game
from agents.registry import make_agent
from agents.search import NetworkSearch
from envs.games.invers import Invers

FIXTURE = Path(__file__).parent / "fixtures" / "search_regression.json"
POSITIONS_SEED = 2024
LONG_GAME_POSITIONS, SHORT_GAME_POSITIONS, SHORT_GAME_PLIES = 180, 20, 40


#: Network values agree to this (float32 rounding on different CPUs; a real change moves them far more).
NETWORK_TOLERANCE = 1e-5
#: The network the fixture was recorded with (shipped then; the shipped one has since been trained on).
RECORDED_NETWORK = Path(__file__).resolve().parent.parent / "checkpoints" / "invers" / "distill_depth4"
#: Rows of a network key whose move, depth or leaves may differ: near-ties the rounding tipped.
NEAR_TIES = 2


def digest(items) -> str:
    return hashlib.sha256(repr([(int(a), float(v)) for a, v in items]).encode()).hexdigest()[:16]


def positions():
    """(game, state) pairs: random games of the default game, sampled every seventh ply
    and at each of their last three plies; then the last plies of 40-ply games."""
    rng = np.random.default_rng(POSITIONS_SEED)
    found = []
    for game, count, near_end in (
        (Invers(), LONG_GAME_POSITIONS, False),
        (Invers(max_plies=SHORT_GAME_PLIES), SHORT_GAME_POSITIONS, True),
    ):
        taken = 0
        while taken < count:
            state = game.new_initial_state()
            line = []
            while not state.is_terminal():
                line.append(state.clone())
                state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))
            picks = line[-5:] if near_end else [s for s in line if s.ply % 7 == 3] + line[-3:]
            for s in picks[: count - taken]:
                found.append((game, s))
                taken += 1
    return found


def record() -> dict:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cases = positions()
        out: dict = {
            "positions": hashlib.sha256(
                b"".join(
                    s.board + bytes([s.tile_in_hand(0), s.tile_in_hand(1), s.to_move]) + s.ply.to_bytes(2, "little")
                    for _, s in cases
                )
            ).hexdigest()[:16]
        }
        games = {id(g): g for g, _ in cases}
        network = None
        for depth in (1, 2, 3, 4):
            agents = {key: make_agent("invers", f"search:depth={depth}", g, seed=depth) for key, g in games.items()}
            out[f"search:depth={depth}"] = [
                agents[id(g)].act(s.observe(s.to_move), s.legal_mask(s.to_move)) for g, s in cases
            ]
        for depth in (2, 3):
            teachers = {key: InversSearch(g, seed=0, depth=depth) for key, g in games.items()}
            out[f"move_values:depth={depth}"] = [digest(teachers[id(g)].move_values(s).items()) for g, s in cases]
        for depth in (1, 2, 3):
            agents = {
                key: make_agent("invers", f"ppo+search:depth={depth},path={RECORDED_NETWORK}", g, seed=10 + depth)
                for key, g in games.items()
            }
            network = next(iter(agents.values())).search.network
            rows = []
            for g, s in cases:
                agent = agents[id(g)]
                result = agent.search.search(s, agent.rng)  # what act does once it has rebuilt the state
                rows.append([result.action, repr(float(result.value)), result.depth, result.leaves])
            out[f"ppo+search:depth={depth}"] = rows
        rows = []
        rng = np.random.default_rng(4)
        for g, s in cases[::10]:
            result = NetworkSearch(network, depth=4).search(s, rng)
            rows.append([result.action, repr(float(result.value)), result.depth, result.leaves])
        out["network:depth=4"] = rows
        for depth in (2, 3):
            search, rng, rows = NetworkSearch(network, depth=depth, exact_root=True), np.random.default_rng(depth), []
            for g, s in cases:
                result = search.search(s, rng)
                rows.append(
                    [
                        result.action,
                        repr(float(result.value)),
                        result.depth,
                        result.leaves,
                        [[int(a), float(v)] for a, v in result.move_values.items()],
                    ]
                )
            out[f"network:exact_root:depth={depth}"] = rows
        game = next(iter(games.values()))
        histories = []
        for seed in range(2):
            bot = make_agent("invers", "search:depth=3", game)
            net = make_agent("invers", f"ppo+search:depth=2,path={RECORDED_NETWORK}", game)
            final, history = play_game(game, [bot, net] if seed == 0 else [net, bot], seed=seed, random_opening_plies=4)
            histories.append(
                [len(history), hashlib.sha256(repr(history).encode()).hexdigest()[:16], final.returns().tolist()]
            )
        out["games:search3_vs_ppo+search2"] = histories
        return out
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def recorded() -> dict:
    return record()


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(FIXTURE.read_text())


def test_fixture_positions_are_the_same(recorded, expected):
    assert recorded["positions"] == expected["positions"]


@pytest.mark.parametrize(
    "key",
    [
        *(f"search:depth={d}" for d in (1, 2, 3, 4)),
        "move_values:depth=2",
        "move_values:depth=3",
        *(f"ppo+search:depth={d}" for d in (1, 2, 3)),
        "network:depth=4",
        "network:exact_root:depth=2",
        "network:exact_root:depth=3",
        "games:search3_vs_ppo+search2",
    ],
)
def test_moves_and_values_are_unchanged(recorded, expected, key):
    got, want = recorded[key], expected[key]
    assert len(got) == len(want)
    if key.startswith(("ppo+search", "network")):
        assert_network_rows_agree(key, got, want)
        return
    differing = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not differing, (
        f"{key}: {len(differing)} of {len(want)} differ, first at {differing[:5]}: "
        f"{[got[i] for i in differing[:3]]} != {[want[i] for i in differing[:3]]}"
    )


def close(a: float, b: float) -> bool:
    return abs(float(a) - float(b)) <= NETWORK_TOLERANCE


def assert_network_rows_agree(key: str, got: list, want: list) -> None:
    """Rows ``[move, value, depth, leaves, (root values)]``: values within the tolerance, the
    rest equal but in a few near-ties (see the module docstring)."""
    tipped = []
    for i, (a, b) in enumerate(zip(got, want)):
        if len(b) > 4:
            mine, theirs = dict(map(tuple, a[4])), dict(map(tuple, b[4]))
            assert list(mine) == list(theirs), f"{key} row {i}: root moves {list(mine)} != {list(theirs)}"
            assert all(close(mine[m], theirs[m]) for m in theirs), f"{key} row {i}: root values {a[4]} != {b[4]}"
        if a[0] == b[0] and a[2:4] == b[2:4]:
            assert close(a[1], b[1]), f"{key} row {i}: value {a[1]} != {b[1]}"
            continue
        if len(b) > 4:
            assert close(theirs[a[0]], theirs[b[0]]), f"{key} row {i}: move {a[0]} != {b[0]}, which is no near-tie"
        tipped.append(i)
    assert len(tipped) <= NEAR_TIES, (
        f"{key}: {len(tipped)} rows differ (first {tipped[:5]}), near-ties allow {NEAR_TIES}"
    )


def test_time_budgets_that_do_not_run_out_change_nothing_and_tiny_ones_still_move():
    cases = positions()[::20]
    for game, state in cases:
        me, observation, mask = state.to_move, state.observe(state.to_move), state.legal_mask(state.to_move)
        fixed, timed = InversSearch(game, seed=7, depth=3), InversSearch(game, seed=7, depth=3, time_limit=60.0)
        assert timed.act(observation, mask) == fixed.act(observation, mask)
        assert mask[InversSearch(game, seed=7, depth=4, time_limit=1e-9).act(observation, mask)] == 1
        agent = make_agent("invers", "ppo+search:depth=2", game, seed=0)
        network = agent.search.network
        a = NetworkSearch(network, depth=3).search(state, np.random.default_rng(1))
        b = NetworkSearch(network, depth=3, ms=60_000).search(state, np.random.default_rng(1))
        assert (a.action, a.value, a.depth, a.leaves, a.move_values) == (
            b.action,
            b.value,
            b.depth,
            b.leaves,
            b.move_values,
        )
        quick = NetworkSearch(network, ms=1e-6).search(state)
        assert mask[quick.action] == 1 and quick.depth >= 1 and state.to_move == me


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_search_regression.py --write")
    FIXTURE.parent.mkdir(exist_ok=True)
    data = record()
    FIXTURE.write_text(
        "{\n" + ",\n".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in data.items()) + "\n}\n"
    )
    print(f"wrote {FIXTURE}")
