"""The exact Inverted Dice solver and its optimal agent.

The solver is checked against an independent brute force: a plain-Python expectimax
written from the rules (``docs/rules/inverted_dice.md``) over the full score-sheet history (which boxes
were scored and which crossed out, no state reduction), with the dice enumerated die by
die (no multiset tables). The brute force's own rules are checked against the rules core
on random games. The agent is played through the PettingZoo env: its mean over many
games must match the computed value within the confidence interval that the computed
variance gives, and it must never play an illegal move.

Full games need the full solve (minutes), so these tests use *reduced* instances: the
last rounds of a game, i.e. score sheets with few open boxes, whose values the full
solve computes in exactly the same way.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import numpy as np
import pytest

from agents import solution_cache
from agents.base import RandomAgent
from agents.inverted_dice.optimal import OptimalAgent, sheet_state
from agents.inverted_dice.solver import (
    cache_path,
    load_solution,
    main,
    save_solution,
    solve,
    solved_states,
    state_index,
    states_with_open,
)
from agents.inverted_dice.turn import action_values_rows, roll_rows
from agents.registry import BOTS, make_agent
from envs import inverted_dice_v1
from envs.games import inverted_dice as rules
from envs.games.dice_math import keep_tables

SECTIONS = [set(range(lo, hi + 1)) for _, lo, hi in rules.SECTIONS]
LAST_ROUNDS = 4  # the reduced instance the agent plays: the last four rounds


@functools.cache
def reduced(free_cross_out: bool, max_open: int = LAST_ROUNDS):
    return solve(free_cross_out, max_open=max_open)


# -- brute force ---------------------------------------------------------------------------


@functools.cache
def outcomes(k: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Sorted results of rolling ``k`` dice and their probabilities, counted die by die."""
    counts = Counter(tuple(sorted(faces)) for faces in itertools.product(range(1, 7), repeat=k))
    return tuple((faces, n / 6**k) for faces, n in counts.items())


def legal_actions(open_boxes: frozenset, dice: tuple, roll: int, free: bool) -> set[int]:
    """The actions the rules allow, written from docs/rules/inverted_dice.md."""
    inverted = 21 - sum(set(dice))
    actions = set(range(rules.NUM_REROLLS)) if roll < 3 else set()
    if inverted in open_boxes:
        actions.add(rules.SCORE)
    if free or (roll == 3 and inverted not in open_boxes):
        actions |= {rules.CROSS_OUT + b - 1 for b in open_boxes}
    return actions


def points(box: int, scored: frozenset) -> int:
    """Points for scoring ``box``: its number, +50 if that completes a section all scored."""
    section = next(s for s in SECTIONS if box in s)
    return box + (50 if section <= scored | {box} else 0)


class BruteForce:
    """Exact expectimax (and evaluation of a given policy) over the unreduced score sheet."""

    def __init__(self, free: bool):
        self.free = free
        #: optimal expected points to come of every (open boxes, scored boxes) visited
        self.sheets: dict[tuple[frozenset, frozenset], float] = {}
        self._best = functools.cache(self._best)
        self._expect = functools.cache(self._expect)

    def value(self, open_boxes: frozenset, scored: frozenset) -> float:
        """Optimal expected points still to come."""
        key = (open_boxes, scored)
        if key not in self.sheets:
            rolls = outcomes(5) if open_boxes else ()
            self.sheets[key] = sum(p * self._best(open_boxes, scored, dice, 1) for dice, p in rolls)
        return self.sheets[key]

    def _best(self, open_boxes, scored, dice, roll) -> float:
        return max(
            self._action_value(open_boxes, scored, dice, roll, a)
            for a in legal_actions(open_boxes, dice, roll, self.free)
        )

    def _action_value(self, open_boxes, scored, dice, roll, action) -> float:
        if action < rules.NUM_REROLLS:
            rerolled = rules.reroll_positions(action)
            kept = tuple(v for i, v in enumerate(dice) if i not in rerolled)
            return self._expect(open_boxes, scored, kept, roll + 1)
        if action == rules.SCORE:
            box = 21 - sum(set(dice))
            return points(box, scored) + self.value(open_boxes - {box}, scored | {box})
        return self.value(open_boxes - {action - rules.CROSS_OUT + 1}, scored)

    def _expect(self, open_boxes, scored, kept, roll) -> float:
        return sum(
            p * self._best(open_boxes, scored, tuple(sorted(kept + fresh)), roll)
            for fresh, p in outcomes(5 - len(kept))
        )

    def evaluate(self, decide, open_boxes: frozenset, scored: frozenset) -> tuple[float, float]:
        """Mean and second moment of the points to come when ``decide(open, scored, dice, roll)`` plays."""

        @functools.cache
        def sheet(open_boxes, scored):
            if not open_boxes:
                return 0.0, 0.0
            return mix((p, at(open_boxes, scored, dice, 1)) for dice, p in outcomes(5))

        @functools.cache
        def at(open_boxes, scored, dice, roll):
            action = decide(open_boxes, scored, dice, roll)
            assert action in legal_actions(open_boxes, dice, roll, self.free)
            if action < rules.NUM_REROLLS:
                rerolled = rules.reroll_positions(action)
                kept = tuple(v for i, v in enumerate(dice) if i not in rerolled)
                return mix(
                    (p, at(open_boxes, scored, tuple(sorted(kept + fresh)), roll + 1))
                    for fresh, p in outcomes(len(rerolled))
                )
            if action == rules.SCORE:
                box = 21 - sum(set(dice))
                gain, rest = points(box, scored), sheet(open_boxes - {box}, scored | {box})
                return gain + rest[0], gain * gain + 2 * gain * rest[0] + rest[1]
            return sheet(open_boxes - {action - rules.CROSS_OUT + 1}, scored)

        return sheet(open_boxes, scored)


def mix(weighted) -> tuple[float, float]:
    mean = second = 0.0
    for p, (m, s) in weighted:
        mean += p * m
        second += p * s
    return mean, second


def solver_state(open_boxes, scored) -> int:
    """The solver's state of a sheet given by its open and scored boxes."""
    crossed = set(range(1, 21)) - set(open_boxes) - set(scored)
    alive = sum(1 << s for s, section in enumerate(SECTIONS) if not section & crossed)
    return int(state_index(sum(1 << (b - 1) for b in open_boxes), alive))


#: (open boxes, crossed-out boxes) of the reduced instances; every other box is scored.
INSTANCES = [
    ({19, 20}, set()),  # the high bonus at stake, the two rarest sums
    ({1, 7, 16}, {2}),  # every section open; low already dead
    ({5, 6, 15}, {11}),  # low one box from its bonus, middle dead
    ({3, 4, 18}, set()),  # two boxes left for the low bonus, one for the high
]


# -- dice tables ---------------------------------------------------------------------------


@pytest.mark.parametrize("num_dice", [1, 2, 5, 6])
def test_lattice_reroll_and_grown_expectations_match_the_dense_tables(num_dice):
    tables = keep_tables(num_dice)
    rng = np.random.default_rng(num_dice)
    partial = rng.integers(0, 4, size=(tables.num_partial_keeps, 40)).astype(float)  # many ties
    best, keep = tables.best_reroll(partial)
    padded = np.concatenate([partial, np.zeros((len(tables.keeps) - tables.num_partial_keeps, 40))])
    np.testing.assert_array_equal(best, tables.best_over_keeps(padded))
    np.testing.assert_array_equal(np.take_along_axis(partial, keep, axis=0), best)
    for r, roll in enumerate(tables.rolls):
        for k in set(keep[r].tolist()):
            assert len(tables.keeps[k]) < num_dice and not Counter(tables.keeps[k]) - Counter(roll)
    rolls = rng.normal(size=(len(tables.rolls), 3))
    np.testing.assert_allclose(tables.expected_partial(rolls), tables.partial_transition @ rolls, rtol=0, atol=1e-13)


# -- state space ---------------------------------------------------------------------------


def test_state_space_is_open_boxes_and_live_sections_only():
    # 2^(n+1) - 2 states per section of n boxes: empty and full sections carry no flag.
    assert len(solved_states(rules.NUM_BOXES)) == 62 * 2046 * 62
    # the flags of sections with no open box are dropped, of untouched sections forced
    assert state_index(0b11111, 0b000) == state_index(0b11111, 0b001) == 0b11111 << 3 | 0b001
    five = states_with_open(5)
    assert np.all(np.bitwise_count(five >> 3) == 5) and np.all(np.diff(five) > 0)


# -- solver against brute force -------------------------------------------------------------


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
@pytest.mark.parametrize("open_boxes, crossed", INSTANCES)
def test_solver_matches_brute_force_on_every_reachable_sheet(free, open_boxes, crossed):
    brute = BruteForce(free)
    brute.value(frozenset(open_boxes), frozenset(set(range(1, 21)) - open_boxes - crossed))
    assert len(brute.sheets) >= 2 ** len(open_boxes)  # every way of filling the boxes was visited
    solution = reduced(free)
    for (sheet_open, sheet_scored), expected in brute.sheets.items():
        assert solution.value[solver_state(sheet_open, sheet_scored)] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
@pytest.mark.parametrize("open_boxes, crossed", INSTANCES[:2])
def test_agent_policy_has_the_solver_mean_and_second_moment(free, open_boxes, crossed):
    solution = reduced(free)
    agent = OptimalAgent(rules.InvertedDice(free_cross_out=free), solution=solution)

    def decide(sheet_open, sheet_scored, dice, roll):
        return agent.decide(solution.plan(solver_state(sheet_open, sheet_scored)), dice, roll)

    scored = frozenset(set(range(1, 21)) - open_boxes - crossed)
    mean, second = BruteForce(free).evaluate(decide, frozenset(open_boxes), scored)
    state = solver_state(open_boxes, scored)
    assert mean == pytest.approx(solution.value[state], abs=1e-9)
    assert second == pytest.approx(solution.second_moment[state], abs=1e-7)
    assert solution.std(state) > 0


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
def test_brute_force_rules_are_the_rules_core(free):
    """The brute force's legal moves and points agree with the env's on random games."""
    game = rules.InvertedDice(free_cross_out=free)
    rng = np.random.default_rng(7)
    for _ in range(20):
        state = game.new_initial_state(rng)
        scored: frozenset = frozenset()
        while not state.is_terminal():
            open_boxes = frozenset(state.open_boxes(0))
            legal = legal_actions(open_boxes, state.dice, state.roll, free)
            assert set(np.flatnonzero(state.legal_mask(0)).tolist()) == legal
            action = int(rng.choice(sorted(legal)))
            before, box = state.scores()[0], state.current_inverted_sum
            state.apply(0, action)
            if action == rules.SCORE:
                assert state.scores()[0] - before == points(box, scored)
                scored |= {box}
            elif action >= rules.CROSS_OUT:
                assert state.scores()[0] == before


# -- the agent through the env -------------------------------------------------------------


def play_last_rounds(free: bool, games: int, seed: int):
    """Random play until ``LAST_ROUNDS`` boxes are open, then the optimal agent, through the AEC env.

    Returns the solver state at the hand-over and the points scored after it, per game.
    Every action played is checked against the mask.
    """
    env = inverted_dice_v1.env(free_cross_out=free)
    game = env.unwrapped.game
    optimal = OptimalAgent(game, solution=reduced(free))
    random = RandomAgent(game, seed=seed)
    states, gains = [], []
    for g in range(games):
        env.reset(seed=seed + g)
        handover, gained = None, 0.0
        for _ in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            if handover is not None:
                gained += reward
            if terminated or truncated:
                env.step(None)
                continue
            obs, mask = observation["observation"], observation["action_mask"]
            if handover is None and obs[rules.OBS_OPEN_BOXES].sum() <= LAST_ROUNDS:
                handover = sheet_state(obs[rules.OBS_OPEN_BOXES] > 0.5, obs[rules.OBS_SECTIONS_ALIVE] > 0.5)
            action = (optimal if handover is not None else random).act(obs, mask)
            assert mask[action], f"illegal action {action}"
            env.step(action)
        states.append(handover)
        gains.append(gained)
    return np.array(states), np.array(gains)


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
def test_agent_scores_what_the_solver_computes(free):
    states, gains = play_last_rounds(free, games=600, seed=1000 * free)
    solution = reduced(free)
    expected = solution.value[states]
    variance = solution.second_moment[states] - expected**2
    # The mean lies within the 99.7% confidence interval of the computed value...
    z = (gains.sum() - expected.sum()) / np.sqrt(variance.sum())
    assert abs(z) < 3, z
    # ...and the spread around it is the computed one.
    assert 0.8 < ((gains - expected) ** 2).sum() / variance.sum() < 1.25


def test_agent_refuses_games_it_was_not_solved_for():
    with pytest.raises(ValueError, match="solitaire"):
        OptimalAgent(rules.InvertedDice(num_players=2), solution=reduced(False))
    with pytest.raises(ValueError, match="free_cross_out"):
        OptimalAgent(rules.InvertedDice(free_cross_out=True), solution=reduced(False))
    game = rules.InvertedDice()
    agent = OptimalAgent(game, solution=reduced(False))
    state = game.new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match=f"covers 1..{LAST_ROUNDS}"):
        agent.act(state.observe(0), state.legal_mask(0))


def test_agent_is_registered_as_optimal():
    module_name, class_name = BOTS["inverted_dice"]["optimal"].split(":")
    assert getattr(__import__(module_name, fromlist=[class_name]), class_name) is OptimalAgent


# -- cache ---------------------------------------------------------------------------------


def test_cache_round_trip(tmp_path):
    solution = reduced(True, max_open=2)
    path = tmp_path / "solution.npz"
    save_solution(solution, path)
    loaded = load_solution(path, True, max_open=2)
    states = solved_states(2)
    np.testing.assert_array_equal(loaded.value[states], solution.value[states])
    np.testing.assert_array_equal(loaded.second_moment[states], solution.second_moment[states])
    assert not list(tmp_path.glob("*.partial"))


def test_cache_for_other_rules_is_refused(tmp_path):
    path = tmp_path / "solution.npz"
    save_solution(reduced(False, max_open=2), path)
    with pytest.raises(solution_cache.CacheError, match="free_cross_out: file False, expected True"):
        load_solution(path, True, max_open=2)
    with pytest.raises(solution_cache.CacheError, match="max_open: file 2, expected 3"):
        load_solution(path, False, max_open=3)


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "not a zip"])
def test_corrupt_cache_is_reported_not_used(tmp_path, damage):
    path = tmp_path / "solution.npz"
    save_solution(reduced(False, max_open=2), path)
    data = bytearray(path.read_bytes())
    if damage == "flipped byte":
        data[len(data) // 2] ^= 0xFF
    elif damage == "truncated":
        del data[len(data) // 2 :]
    else:
        data = bytearray(b"values" * 100)
    path.write_bytes(bytes(data))
    with pytest.raises(solution_cache.CacheError, match="corrupt or unreadable"):
        load_solution(path, False, max_open=2)


def test_corrupt_cache_stops_the_agent_and_the_command_line(tmp_path, capsys):
    path = cache_path(False, tmp_path)
    path.write_bytes(b"not a solution")
    with pytest.raises(solution_cache.CacheError, match=str(path)):
        make_agent("inverted_dice", f"optimal:cache_dir={tmp_path}", rules.InvertedDice())
    assert main(["--cache-dir", str(tmp_path)]) == 2  # bad input, like every command line's
    err = capsys.readouterr().err
    assert "corrupt" in err and "allow_pickle" not in err  # no advice to load a file of unknown origin unsafely


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
@pytest.mark.parametrize("open_boxes, crossed", INSTANCES[:2])
def test_action_values_are_the_brute_force_values_of_every_legal_action(free, open_boxes, crossed):
    """The solver's value of each action (a teacher's soft targets) is the expectimax value
    of taking it, for every roll of every turn and every legal action."""
    solution = reduced(free)
    brute = BruteForce(free)
    scored = frozenset(set(range(1, 21)) - open_boxes - crossed)
    plan = solution.plan(solver_state(open_boxes, scored))
    rolls = [dice for dice, _ in outcomes(5)]
    for roll in (1, 2, 3):
        values = action_values_rows(
            plan, roll_rows(np.array(rolls)), np.full(len(rolls), roll), np.zeros(len(rolls), int)
        )
        for dice, row in zip(rolls, values):
            for action in legal_actions(frozenset(open_boxes), dice, roll, free):
                expected = brute._action_value(frozenset(open_boxes), scored, dice, roll, action)
                assert row[action] == pytest.approx(expected, abs=1e-9)


def test_the_agents_action_values_rank_its_own_move_first_and_mask_the_illegal_ones():
    solution = reduced(False)
    game = rules.InvertedDice()
    agent = OptimalAgent(game, solution=solution)
    rng = np.random.default_rng(0)
    observations, masks = [], []
    for _ in range(20):  # the last rounds of random games (the reduced solution covers them)
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            observation = state.observe(0)
            if observation[rules.OBS_OPEN_BOXES].sum() <= LAST_ROUNDS:
                observations.append(observation)
                masks.append(state.legal_mask(0))
            state.apply(0, int(rng.choice(np.flatnonzero(state.legal_mask(0)))))
    chosen, values = agent.act_and_value_batch(np.array(observations), np.array(masks))
    assert (chosen == agent.act_batch(np.array(observations), np.array(masks))).all()
    legal = np.array(masks).astype(bool)
    assert np.isfinite(values[legal]).all() and np.isneginf(values[~legal]).all()
    assert (values[np.arange(len(chosen)), chosen] == values.max(axis=1)).all()
