"""Invariant fuzzing: random legal games of every env in every form, checked as they are played.

    python -m tests.fuzz --env all --games 1000          # 1000 games per env and player count
    python -m tests.fuzz --env invers --games 10 --seed 7
    python -m tests.fuzz --games 1000000 --part 3/20     # the 3rd twentieth of a long run
    python -m tests.fuzz --env keldice --full            # the costly checks on every step and game

For every registered env and every player count it allows, ``--games`` games are played
by a seeded uniform-random legal policy through one of the env's forms: the PettingZoo
AEC env (:mod:`envs.aec`), the Gymnasium single-agent env (:mod:`envs.single_agent`,
random opponents, a random seat), for a simultaneous game the PettingZoo Parallel
env (:mod:`envs.parallel`), and the native batched env (:mod:`envs.batched.vector_env`,
one game; on deep steps its game rebuilt as a core state must show its mask and
observation). Game ``i`` has seed ``s = --seed + i``, which picks its
reward mode (``s % 3``: "score", "win", "margin"), then its combination of the game's
boolean options and its form, so ``--games 1 --seed s`` replays it. A long run goes in
parts (``--part K/M``, one process each) whose logs ``--sum`` adds up.

On **every step** (the cheap checks):

* the rules core: acting players exactly while the game runs; every player's mask
  ``int8`` of ``num_actions`` 0/1 entries, the acting players' never empty, the others'
  all zeros; every score inside ``game.score_bounds()``; the adapter's observation, and
  one other seat's in turn, ``float32`` of the declared shape inside
  ``game.observation_bounds()`` (NaN fails); the game within ``max_game_length``;
* the adapter: it asks the acting player (AEC ``agent_selection``, the Gymnasium
  learner, the Parallel agents) and shows the core's mask (``info["action_mask"]`` and
  ``action_masks()`` in Gymnasium).

On **a seeded sample of steps** (``--deep``, default 1 in 32; the costly checks):

* every player's observation, and the adapter's equals the core's and lies in the space the
  adapter declares (``observation_space``, with the mask in PettingZoo's forms);
* refusal: a random unmasked action of the acting player (the first id outside the space
  when all are legal) and, with several players, a legal action from a seat not to act
  raise ``IllegalActionError`` on a clone and leave it as it was; in the Parallel form
  the same actions inside a step (and a step missing an acting agent's action) are
  refused by the env itself, leaving the game unchanged;
* clone independence: the step's actions applied to a clone are accepted and leave the
  original unchanged, and after the real step the original equals the clone;
* ``action_space(...).sample()`` draws a legal action.

At **the end of every game**: the core is over and every agent was told (terminated xor
truncated, as the core says), a further action is refused, and the **return promise** of
the env cards holds for every agent: the rewards of the episode (AEC: as stepped and as
collected through ``last()``) add up to its final score (``"score"``), its final lead
(``"margin"``) or its outcome ``returns()``, +1 / -1 / 0 (``"win"``).

**A seeded sample of games** (``--deep-games``, default 1 in 8) gets the per-game costly
checks as well: its first step is deep; in the Gymnasium form each deep step also steps
an unmasked action in a deep copy of the env (the episode ends with ``illegal_reward``,
nothing played, the original untouched) and the masked one in another copy (the same
step as the original's); and the game is played again in a fresh env without checks:
the same seed must give the same game (a hash of every action, observation and reward).
``--full`` runs every costly check on every step and game.

A failure does not stop the run: it is printed with the command that replays it, counted,
and the run goes on with the next game. The exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import hashlib
import inspect
import itertools
import random
import re
import sys
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType

import numpy as np
from gymnasium.vector import AutoresetMode

from envs.aec import reward_basis
from envs.core import GameState, IllegalActionError
from envs.registry import ENVS, EnvEntry

REWARD_MODES = ("score", "win", "margin")  # the game with seed s plays REWARD_MODES[s % 3]
PROGRESS_SECONDS = 30.0
INT8, FLOAT32 = np.dtype(np.int8), np.dtype(np.float32)
ZERO_ONE, ONE = b"\x00\x01", b"\x01"  # the bytes a 0/1 int8 mask may hold, and an unmasked action
ILLEGAL_ENDED = ".*an illegal action ended the episode"  # the Gymnasium form's warning


class InvariantViolation(AssertionError):
    """A broken invariant, worded for the failure report."""


def check(condition, message: str) -> None:
    """Raise ``InvariantViolation(message)`` unless ``condition``.

    For the once-a-game checks; the per-step ones test first and word the message only
    on failure, which keeps the hot path free of string formatting.
    """
    if not condition:
        raise InvariantViolation(message)


@dataclass(frozen=True)
class Sampling:
    """How often the costly checks run: a seeded share of steps and a seeded share of games."""

    steps: float = 1 / 32  #: share of steps with the costly checks
    games: float = 1 / 8  #: share of games with the per-game ones (first step, copies of the env, replay)

    def sampled_game(self, seed: int) -> bool:
        return self.games >= 1 or random.Random(f"sampled {seed}").random() < self.games

    def options(self) -> str:
        """The command-line options that give this sampling (empty for the default)."""
        default = Sampling()
        parts = [
            f" --deep {self.steps}" if self.steps != default.steps else "",
            f" --deep-games {self.games}" if self.games != default.games else "",
        ]
        return "".join(parts)


FULL = Sampling(steps=1.0, games=1.0)


@functools.cache
def option_variants(game_class) -> list[dict]:
    """Every combination of the game's boolean keyword options (``[{}]`` if it has none)."""
    names = [
        name
        for name, parameter in inspect.signature(game_class.__init__).parameters.items()
        if isinstance(parameter.default, bool)
    ]
    return [dict(zip(names, values)) for values in itertools.product((False, True), repeat=len(names))]


def player_counts(game_class) -> range:
    return range(game_class.min_players, game_class.max_players + 1)


def forms(entry: EnvEntry) -> tuple[str, ...]:
    """The forms an env's games are played through: AEC, Gymnasium, Parallel if simultaneous,
    and the native batched env (one of its games) if the game has a batched twin."""
    every = ("aec", "parallel", "gymnasium") if entry.parallel else ("aec", "gymnasium")
    return every + ("batched",) if entry.batched else every


def cycle_length(entry: EnvEntry) -> int:
    """Consecutive seeds that reach every reward mode with every option combination and form."""
    return len(REWARD_MODES) * len(option_variants(entry.game_class())) * len(forms(entry))


def final_basis(state: GameState, reward_mode: str) -> tuple[np.ndarray, str]:
    """What each player's rewards must add up to (the env cards' promise), and its name."""
    if reward_mode == "win":
        outcome = state.returns()
        check(np.isin(outcome, (-1.0, 0.0, 1.0)).all(), f"outcome {outcome.tolist()} is not +1/-1/0 per player")
        return outcome, "the outcome"
    return reward_basis(state, reward_mode), "the final score" if reward_mode == "score" else "the final lead"


@dataclass(frozen=True)
class Snapshot:
    """Everything the players can tell about a state: equal snapshots, same state."""

    acting: tuple[int, ...]
    terminal: bool
    scores: np.ndarray
    masks: list[np.ndarray]
    observations: list[np.ndarray]

    @classmethod
    def of(cls, state: GameState) -> Snapshot:
        n = state.game.num_players
        return cls(
            acting=tuple(state.acting_players()),
            terminal=state.is_terminal(),
            scores=state.scores(),
            masks=[state.legal_mask(p) for p in range(n)],
            observations=[state.observe(p) for p in range(n)],
        )

    @cached_property
    def key(self) -> tuple:
        """The whole snapshot as bytes, for a fast equality test."""
        return (
            self.acting,
            self.terminal,
            self.scores.tobytes(),
            b"".join(m.tobytes() for m in self.masks),
            b"".join(o.tobytes() for o in self.observations),
        )

    def differences(self, other: Snapshot) -> str:
        """Which parts differ, for a failure message."""
        parts = []
        if self.acting != other.acting:
            parts.append(f"acting {self.acting} vs {other.acting}")
        if self.terminal != other.terminal:
            parts.append(f"terminal {self.terminal} vs {other.terminal}")
        if not np.array_equal(self.scores, other.scores):
            parts.append(f"scores {self.scores.tolist()} vs {other.scores.tolist()}")
        parts += [
            f"player {p}'s mask" for p, (a, b) in enumerate(zip(self.masks, other.masks)) if not np.array_equal(a, b)
        ]
        for p, (a, b) in enumerate(zip(self.observations, other.observations)):
            if a.shape != b.shape:
                parts.append(f"player {p}'s observation shape {a.shape} vs {b.shape}")
            elif not np.array_equal(a, b):
                parts.append(f"player {p}'s observation at entries {np.flatnonzero(a != b)[:8].tolist()}")
        return "; ".join(parts) or "nothing (only the byte layout)"


def expect_same(expected: Snapshot, state: GameState, what: str) -> None:
    actual = Snapshot.of(state)
    if actual.key != expected.key:
        raise InvariantViolation(f"{what}: {expected.differences(actual)}")


def expect_refused(step, what: str) -> None:
    """``step()`` must raise ``IllegalActionError``."""
    try:
        step()
    except IllegalActionError:
        return
    except Exception as error:  # noqa: BLE001 - any other error is the failure to report
        raise InvariantViolation(
            f"{what} raised {type(error).__name__} instead of IllegalActionError: {error}"
        ) from error
    raise InvariantViolation(f"{what} was accepted")


class GameChecker:
    """The checks of one game's states, with the game's declared facts at hand."""

    def __init__(self, game, checks: Counter):
        self.game = game
        self.n = game.num_players
        self.num_actions = game.num_actions
        self.mask_shape = (game.num_actions,)
        self.observation_shape = tuple(game.observation_shape)
        self.obs_low, self.obs_high = game.observation_bounds()
        self.score_low, self.score_high = game.score_bounds()
        self.checks = checks

    def check_state(self, state: GameState) -> tuple[tuple[int, ...], list[np.ndarray]]:
        """The cheap checks of a state: acting players, every mask, the scores (the
        adapter's observation of the acting player is checked by the caller, every
        player's on the deep steps). Returns the acting players and masks.

        The hot path of the fuzzer: the masks are tested as bytes (a 0/1 ``int8`` mask
        has no byte but 0 and 1), which costs less than numpy's reductions on arrays
        this small."""
        n, checks = self.n, self.checks
        acting = tuple(state.acting_players())
        if state.is_terminal() == bool(acting):
            raise InvariantViolation(f"terminal={state.is_terminal()} but acting players {acting}")
        masks = [state.legal_mask(p) for p in range(n)]
        for p, mask in enumerate(masks):
            if (mask.dtype is not INT8 and mask.dtype != INT8) or mask.shape != self.mask_shape:
                raise InvariantViolation(
                    f"player {p}'s mask is {mask.dtype} {mask.shape}, not int8 ({self.num_actions},)"
                )
            raw = mask.tobytes()
            if raw.translate(None, ZERO_ONE):
                raise InvariantViolation(f"player {p}'s mask holds values outside 0/1: {mask.min()}..{mask.max()}")
            if (p in acting) != (ONE in raw):
                if p in acting:
                    raise InvariantViolation(f"player {p} is to act with an empty mask")
                raise InvariantViolation(f"player {p} is not to act but {raw.count(ONE)} actions are unmasked")
        checks["mask"] += n
        scores = state.scores()
        if scores.shape != (n,):
            raise InvariantViolation(f"scores have shape {scores.shape}, not ({n},)")
        low, high = self.score_low, self.score_high
        if not all(low <= x <= high for x in scores.tolist()):  # NaN fails too
            raise InvariantViolation(f"scores {scores.tolist()} leave the declared [{low}, {high}]")
        checks["score"] += n
        return acting, masks

    def check_observation(self, player: int, obs: np.ndarray) -> None:
        if (obs.dtype is not FLOAT32 and obs.dtype != FLOAT32) or obs.shape != self.observation_shape:
            raise InvariantViolation(
                f"player {player}'s observation is {obs.dtype} {obs.shape}, not float32 {self.observation_shape}"
            )
        if not (self.obs_low <= obs.min() and obs.max() <= self.obs_high):  # NaN fails too
            entry = int(np.flatnonzero(~((obs >= self.obs_low) & (obs <= self.obs_high)))[0])
            raise InvariantViolation(
                f"player {player}'s observation leaves [{self.obs_low}, {self.obs_high}] at entry {entry}: {obs[entry]}"
            )
        self.checks["observation"] += 1

    def check_in_space(self, space, observation, what: str) -> None:
        """The observation an adapter shows lies in the space it declares (``space.contains``)."""
        if not space.contains(observation):
            raise InvariantViolation(f"{what} shows an observation outside its declared observation space {space}")
        self.checks["observation in space"] += 1

    def check_snapshot(self, snap: Snapshot) -> None:
        """Every player's observation (the deep steps and the end)."""
        for p, obs in enumerate(snap.observations):
            self.check_observation(p, obs)

    def unmasked_action(self, mask: np.ndarray, rng: random.Random) -> int:
        """A random action the mask forbids, or the first id outside the space if it forbids none."""
        illegal = np.flatnonzero(mask == 0)
        return int(illegal[rng.randrange(len(illegal))]) if len(illegal) else self.num_actions

    def probe(self, state: GameState, before: Snapshot, moves: list[tuple[int, int]], rng: random.Random) -> GameState:
        """Refusals and acceptance on a clone: the clone after ``moves``, the original untouched."""
        clone = state.clone()
        seat, action = moves[0]
        bad = self.unmasked_action(before.masks[seat], rng)
        probes = f"unmasked action {bad} of player {seat}"
        expect_refused(lambda: clone.apply(seat, bad), probes)
        self.checks["illegal refused"] += 1
        idle = [p for p in range(self.n) if p not in before.acting]
        if idle:
            other = idle[rng.randrange(len(idle))]
            expect_refused(lambda: clone.apply(other, action), f"action {action} of player {other}, who is not to act,")
            probes += f" and action {action} of idle player {other}"
            self.checks["wrong seat refused"] += 1
        expect_same(before, clone, f"refused {probes} changed the state")
        self.checks["refusal leaves state unchanged"] += 1
        for seat, action in moves:
            try:
                clone.apply(seat, action)
            except Exception as error:  # noqa: BLE001
                raise InvariantViolation(
                    f"masked action {action} of player {seat} refused: {type(error).__name__}: {error}"
                ) from error
        self.checks["legal accepted"] += 1
        expect_same(before, state, f"action {action} applied to a clone changed the original")
        self.checks["clone independence"] += 1
        return clone

    def follows(self, state: GameState, clone: GameState, what: str) -> None:
        after, cloned = Snapshot.of(state), Snapshot.of(clone)
        if after.key != cloned.key:
            raise InvariantViolation(
                f"{what} gave a clone and the original different states: {after.differences(cloned)}"
            )
        self.checks["clone follows original"] += 1

    def check_sample(self, sample, mask: np.ndarray, what: str) -> None:
        if not (0 <= int(sample) < self.num_actions and mask[int(sample)]):
            raise InvariantViolation(f"{what}.sample() gave action {sample}, which the mask forbids")
        self.checks["sample legal"] += 1


def trace_update(digest, action, observation: np.ndarray, rewards) -> None:
    """Fold one step into the game's trace hash: the action(s), what the actor saw, the rewards."""
    digest.update(np.asarray(action, np.int64).tobytes())
    digest.update(observation.tobytes())
    digest.update(np.asarray(rewards, np.float64).tobytes())


@dataclass
class GameResult:
    steps: int
    digest: bytes | None  #: the trace hash, for the games that are replayed


@dataclass
class Trial:
    """One game to play: its env module and arguments, its seed and form, what to check.

    The checked game is played in an env of ``envs`` (one per form and arguments, reset
    for each game, as a user's env is), the replay in a fresh one, so state that leaked
    from one game into the next would show as a different game.
    """

    module: ModuleType
    kwargs: dict
    seed: int
    form: str
    sampling: Sampling
    checks: Counter
    envs: dict = field(default_factory=dict)

    @cached_property
    def sampled(self) -> bool:
        """A game of the seeded sample: its first step is deep, it is replayed, and its
        Gymnasium deep steps probe copies of the env."""
        return self.sampling.sampled_game(self.seed)

    def env(self, factory: str, fresh: bool = False):
        """An env made by the module's ``factory`` with the game's arguments (``raw_env``, ...;
        ``"batched"``: the native batched env of one game, reset by hand at its end)."""
        if fresh:
            return self._make(factory)
        key = (factory, repr(sorted(self.kwargs.items())))
        env = self.envs.get(key)
        if env is None:
            env = self.envs[key] = self._make(factory)
        return env

    def _make(self, factory: str):
        if factory == "batched":
            from envs.batched.vector_env import BatchedVectorEnv  # noqa: PLC0415 (Numba: loaded for the batched form only)

            return BatchedVectorEnv(self.module.GAME.name, 1, autoreset_mode=AutoresetMode.DISABLED, **self.kwargs)
        return getattr(self.module, factory)(**self.kwargs)

    def checker(self, game) -> GameChecker:
        """The checker of the game (the game's declared bounds are asked once per arguments)."""
        key = ("checker", repr(sorted(self.kwargs.items())))
        checker = self.envs.get(key)
        if checker is None:
            checker = self.envs[key] = GameChecker(game, self.checks)
        return checker

    def rngs(self) -> tuple[random.Random, random.Random, random.Random]:
        """The action, deep-step and probe generators, all from the seed."""
        return random.Random(self.seed), random.Random(f"deep {self.seed}"), random.Random(f"probe {self.seed}")

    def deep(self, step: int, deep_rng: random.Random) -> bool:
        return deep_rng.random() < self.sampling.steps or (step == 0 and self.sampled)


def same_mask(shown: np.ndarray, core: np.ndarray) -> bool:
    """The adapter shows the core's mask: the same array, or an equal one of the same dtype."""
    return shown is core or (
        shown.dtype == core.dtype and shown.shape == core.shape and shown.tobytes() == core.tobytes()
    )


def choose(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


# -- the PettingZoo AEC form ------------------------------------------------------------------


def play_aec(g: Trial, record: bool) -> GameResult:
    env = g.env("raw_env")
    env.reset(seed=g.seed)
    state, game, checks = env.game_state, env.game, g.checks
    checker = g.checker(game)
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    action_rng, deep_rng, probe_rng = g.rngs()
    digest = hashlib.blake2b(digest_size=16) if record else None
    stepped = [0.0] * game.num_players  # rewards as stepped (env.rewards after each step)
    collected = [0.0] * game.num_players  # rewards as an agent collects them via last()
    told_done = set()
    acting, masks = checker.check_state(state)
    steps = 0
    while env.agents:
        agent = env.agent_selection
        seat = seats[agent]
        obs, reward, terminated, truncated, _ = env.last()
        collected[seat] += reward
        if terminated or truncated:
            check(state.is_terminal(), f"{agent} told the game is over while the core plays on")
            check(terminated != truncated, f"{agent}: terminated={terminated}, truncated={truncated}")
            check(
                truncated == state.is_truncated(), f"{agent}: truncated={truncated}, core says {state.is_truncated()}"
            )
            check(not obs["action_mask"].any(), f"{agent}'s mask is not empty after the end")
            told_done.add(agent)
            env.step(None)
            continue
        if seat not in acting:
            raise InvariantViolation(f"the AEC selects {agent} but the acting players are {acting}")
        mask, observation = obs["action_mask"], obs["observation"]
        if not same_mask(mask, masks[seat]):
            raise InvariantViolation(f"the AEC shows {agent} a mask other than the core's")
        checker.check_observation(seat, observation)
        checks["aec view"] += 1
        action = choose(mask, action_rng)
        deep = g.deep(steps, deep_rng)
        if deep:
            before = Snapshot.of(state)
            checker.check_snapshot(before)
            check(
                np.array_equal(observation, before.observations[seat]),
                f"the AEC shows {agent} an observation other than the core's",
            )
            checks["aec observation"] += 1
            checker.check_in_space(env.observation_space(agent), obs, f"the AEC env ({agent})")
            clone = checker.probe(state, before, [(seat, action)], probe_rng)
            checker.check_sample(env.action_space(agent).sample(), mask, f"action_space({agent!r})")
        try:
            env.step(action)
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(
                f"the AEC env refused masked action {action} of {agent}: {type(error).__name__}: {error}"
            ) from error
        steps += 1
        if steps > game.max_game_length:
            raise InvariantViolation(f"the game runs past max_game_length={game.max_game_length}")
        rewards = [env.rewards[a] for a in env.possible_agents]
        for i, reward in enumerate(rewards):
            stepped[i] += reward
        if digest:
            trace_update(digest, action, observation, rewards)
        acting, masks = checker.check_state(state)
        if deep:
            checker.follows(state, clone, f"action {action}")
    check(state.is_terminal(), "every agent is done but the core's game is not over")
    check(told_done == set(env.possible_agents), f"only {sorted(told_done)} were told the game is over")
    checker.check_snapshot(Snapshot.of(state))
    end = state.clone()
    expect_refused(lambda: end.apply(0, 0), "an action after the end of the game")
    expect_refused(lambda: env.step(0), "an AEC step after every agent is done")
    checks["finished game refuses"] += 2
    expected, what = final_basis(state, env.reward_mode)
    for name, total in (("stepped", stepped), ("collected through last()", collected)):
        check(
            np.allclose(total, expected, rtol=0, atol=1e-9),
            f"AEC rewards {name} sum to {total}, {what} is {expected.tolist()}",
        )
    checks["return promise"] += 2 * game.num_players
    return GameResult(steps, digest.digest() if digest else None)


def replay_aec(g: Trial) -> bytes:
    env = g.env("raw_env", fresh=True)
    env.reset(seed=g.seed)
    action_rng = random.Random(g.seed)
    digest = hashlib.blake2b(digest_size=16)
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose(obs["action_mask"], action_rng)
        env.step(action)
        trace_update(digest, action, obs["observation"], [env.rewards[a] for a in env.possible_agents])
    return digest.digest()


# -- the Gymnasium single-agent form ----------------------------------------------------------


def play_gymnasium(g: Trial, record: bool) -> GameResult:
    env = g.env("gym_env")
    observation, info = env.reset(seed=g.seed)
    state, game, checks = env.game_state, env.game, g.checks
    learner = env.learner
    checker = g.checker(game)
    action_rng, deep_rng, probe_rng = g.rngs()
    digest = hashlib.blake2b(digest_size=16) if record else None
    check(not state.is_terminal(), "the Gymnasium episode is over at reset, before the learner acted")
    acting, masks = checker.check_state(state)
    total, steps = 0.0, 0
    while True:
        mask = info["action_mask"]
        if learner not in acting:
            raise InvariantViolation(
                f"the Gymnasium env asks the learner (seat {learner}) but the acting players are {acting}"
            )
        if not same_mask(mask, masks[learner]):
            raise InvariantViolation("the Gymnasium env's info['action_mask'] is not the core's mask")
        checker.check_observation(learner, observation)
        checks["gymnasium view"] += 1
        action = choose(mask, action_rng)
        deep = g.deep(steps, deep_rng)
        if deep:
            before = Snapshot.of(state)
            checker.check_snapshot(before)
            check(
                np.array_equal(observation, before.observations[learner]),
                "the Gymnasium env shows an observation other than the core's",
            )
            sb3_mask = env.action_masks()
            check(
                sb3_mask.dtype == np.bool_ and np.array_equal(sb3_mask, mask != 0),
                "the Gymnasium env's action_masks() is not the core's mask",
            )
            checks["gymnasium observation"] += 1
            checker.check_in_space(env.observation_space, observation, "the Gymnasium env")
            checker.probe(state, before, [(learner, action)], probe_rng)
            # Copies of the env, the costliest checks, in the sampled games only.
            probes = ("illegal", "copy") if g.sampled else ()
            if "illegal" in probes:
                bad = checker.unmasked_action(mask, probe_rng)
                if bad < game.num_actions:  # an id of the space that the rules forbid: the episode ends
                    expect_illegal_ends_episode(env_copy(env), before, bad, env.illegal_reward)
                    checks["illegal action ends the episode"] += 1
                else:  # every action is legal: an id outside the space raises and plays nothing
                    expect_refused(lambda: env.step(bad), f"action {bad}, outside the action space,")
                expect_same(before, state, f"illegal action {bad} stepped in a copy of the env changed the original")
            twin = env_copy(env) if "copy" in probes else None
            checker.check_sample(env.action_space.sample(), mask, "action_space")
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(
                f"the Gymnasium env refused masked action {action}: {type(error).__name__}: {error}"
            ) from error
        check(
            "illegal_action" not in info,
            f"masked action {action} ended the episode as illegal: {info.get('illegal_action')}",
        )
        steps += 1
        if steps > game.max_game_length:
            raise InvariantViolation(f"the game runs past max_game_length={game.max_game_length}")
        total += reward
        if digest:
            trace_update(digest, action, observation, [reward])
        if deep and twin is not None:
            twin_step = twin.step(action)
            same = (
                np.array_equal(twin_step[0], observation)
                and twin_step[1:4] == (reward, terminated, truncated)
                and np.array_equal(twin_step[4]["action_mask"], info["action_mask"])
                and Snapshot.of(twin.game_state).key == Snapshot.of(state).key
            )
            check(same, f"action {action} gave a deep copy of the Gymnasium env and the original different steps")
            checks["copy follows original"] += 1
        if terminated or truncated:
            break
        acting, masks = checker.check_state(state)
    check(
        state.is_terminal(),
        f"the Gymnasium episode ended (terminated={terminated}, truncated={truncated}) but the core plays on",
    )
    check(
        terminated != truncated and truncated == state.is_truncated(),
        f"terminated={terminated}, truncated={truncated}, core says truncated={state.is_truncated()}",
    )
    check(
        not info["action_mask"].any() and not env.action_masks().any(), "the learner's mask is not empty after the end"
    )
    check(env.action_space.sample() == 0, "action_space.sample() with nothing legal is not 0")
    checker.check_state(state)
    checker.check_snapshot(Snapshot.of(state))
    expect_refused(lambda: env.step(0), "a Gymnasium step after the end")
    checks["finished game refuses"] += 1
    expected, what = final_basis(state, env.reward_mode)
    check(
        abs(total - expected[learner]) <= 1e-9,
        f"Gymnasium rewards of seat {learner} sum to {total}, {what} is {expected[learner]}",
    )
    checks["return promise"] += 1
    return GameResult(steps, digest.digest() if digest else None)


def env_copy(env):
    """A deep copy of a Gymnasium env that shares its ``Game`` (declared facts, never changed)."""
    return copy.deepcopy(env, {id(env.game): env.game})


def expect_illegal_ends_episode(env, before: Snapshot, action: int, illegal_reward: float) -> None:
    """An unmasked action in the Gymnasium form ends the episode with the penalty, nothing played."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=ILLEGAL_ENDED)
        try:
            _, reward, terminated, truncated, info = env.step(action)
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(
                f"illegal action {action} raised {type(error).__name__} instead of ending the episode: {error}"
            ) from error
    check(
        (reward, terminated, truncated) == (illegal_reward, True, False)
        and "illegal_action" in info
        and not info["action_mask"].any(),
        f"illegal action {action} gave reward {reward}, terminated={terminated}, truncated={truncated}, "
        f"info keys {sorted(info)}",
    )
    expect_same(before, env.game_state, f"illegal action {action} was played")
    expect_refused(lambda: env.step(0), f"a step after illegal action {action} ended the episode")


def replay_gymnasium(g: Trial) -> bytes:
    env = g.env("gym_env", fresh=True)
    observation, info = env.reset(seed=g.seed)
    action_rng = random.Random(g.seed)
    digest = hashlib.blake2b(digest_size=16)
    done = False
    while not done:
        action = choose(info["action_mask"], action_rng)
        observation, reward, terminated, truncated, info = env.step(action)
        trace_update(digest, action, observation, [reward])
        done = terminated or truncated
    return digest.digest()


# -- the native batched form (envs/batched) -------------------------------------------------------


def play_batched(g: Trial, record: bool) -> GameResult:
    """One game through the native batched env (``num_envs=1``): the cheap checks on its
    arrays every step; on deep steps its game rebuilt as a core state (``batched.state``)
    must be the core's, mask and observation included."""
    env = g.env("batched")
    observations, info = env.reset(seed=g.seed)
    game, checks = env.game, g.checks
    learner = int(info["seat"][0])
    checker = g.checker(game)
    action_rng, deep_rng, probe_rng = g.rngs()
    digest = hashlib.blake2b(digest_size=16) if record else None
    total, steps = 0.0, 0
    while True:
        mask, observation = info["action_mask"][0], observations[0]
        if mask.dtype != INT8 or not mask.any() or not set(mask.tobytes()) <= set(ZERO_ONE):
            raise InvariantViolation(f"the batched env's mask {mask.tolist()} is not a non-empty 0/1 int8 mask")
        checker.check_observation(learner, observation)
        checks["batched view"] += 1
        if g.deep(steps, deep_rng):
            state = env.batched.state(0)
            acting, masks = checker.check_state(state)
            check(
                learner in acting,
                f"the batched env asks the learner (seat {learner}) but the acting players are {acting}",
            )
            check(same_mask(mask, masks[learner]), "the batched env's mask is not the core's")
            check(
                np.array_equal(observation, state.observe(learner)),
                "the batched env shows an observation other than the core's",
            )
            check(np.array_equal(env.action_masks()[0], mask != 0), "the batched env's action_masks() is not its mask")
            checker.check_snapshot(Snapshot.of(state))
            checks["batched observation"] += 1
            checker.check_in_space(env.single_observation_space, observation, "the batched env")
            checker.check_sample(env.action_space.sample()[0], mask, "action_space")
        action = choose(mask, action_rng)
        try:
            observations, rewards, terminated, truncated, info = env.step(np.array([action]))
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(
                f"the batched env refused masked action {action}: {type(error).__name__}: {error}"
            ) from error
        check("illegal_action" not in info, f"masked action {action} ended the episode as illegal")
        steps += 1
        if steps > game.max_game_length:
            raise InvariantViolation(f"the game runs past max_game_length={game.max_game_length}")
        total += rewards[0]
        if digest:
            trace_update(digest, action, observations[0], [rewards[0]])
        if terminated[0] or truncated[0]:
            break
    state = env.batched.state(0)
    check(
        state.is_terminal(),
        f"the batched episode ended (terminated={terminated[0]}, truncated={truncated[0]}) but the core plays on",
    )
    check(
        terminated[0] != truncated[0] and truncated[0] == state.is_truncated(),
        f"terminated={terminated[0]}, truncated={truncated[0]}, core says truncated={state.is_truncated()}",
    )
    check(not info["action_mask"].any(), "the learner's mask is not empty after the end")
    checker.check_state(state)
    expect_refused(lambda: env.step(np.zeros(1, np.int64)), "a batched step after the end")
    checks["finished game refuses"] += 1
    expected, what = final_basis(state, env.reward_mode)
    check(
        abs(total - expected[learner]) <= 1e-9,
        f"batched rewards of seat {learner} sum to {total}, {what} is {expected[learner]}",
    )
    checks["return promise"] += 1
    return GameResult(steps, digest.digest() if digest else None)


def replay_batched(g: Trial) -> bytes:
    env = g.env("batched", fresh=True)
    observations, info = env.reset(seed=g.seed)
    action_rng = random.Random(g.seed)
    digest = hashlib.blake2b(digest_size=16)
    done = False
    while not done:
        action = choose(info["action_mask"][0], action_rng)
        observations, rewards, terminated, truncated, info = env.step(np.array([action]))
        trace_update(digest, action, observations[0], [rewards[0]])
        done = terminated[0] or truncated[0]
    return digest.digest()


# -- the PettingZoo Parallel form -------------------------------------------------------------


def play_parallel(g: Trial, record: bool) -> GameResult:
    env = g.env("parallel_env")
    observations, _ = env.reset(seed=g.seed)
    state, game, checks = env.game_state, env.game, g.checks
    checker = g.checker(game)
    agents, seat_of = env.possible_agents, {agent: i for i, agent in enumerate(env.possible_agents)}
    action_rng, deep_rng, probe_rng = g.rngs()
    digest = hashlib.blake2b(digest_size=16) if record else None
    totals = np.zeros(game.num_players)
    acting, masks = checker.check_state(state)
    steps = 0
    while env.agents:
        check(
            env.agents == agents and set(observations) == set(agents),
            f"agents {env.agents} with observations for {sorted(observations)} while the game runs",
        )
        for agent in agents:
            seat = seat_of[agent]
            if not same_mask(observations[agent]["action_mask"], masks[seat]):
                raise InvariantViolation(f"the Parallel env shows {agent} a mask other than the core's")
            checker.check_observation(seat, observations[agent]["observation"])
        checks["parallel view"] += len(agents)
        moves = [(seat, choose(masks[seat], action_rng)) for seat in sorted(acting)]
        actions = {agents[seat]: action for seat, action in moves}
        deep = g.deep(steps, deep_rng)
        if deep:
            before = Snapshot.of(state)
            for agent in agents:
                check(
                    np.array_equal(observations[agent]["observation"], before.observations[seat_of[agent]]),
                    f"the Parallel env shows {agent} an observation other than the core's",
                )
                checker.check_in_space(env.observation_space(agent), observations[agent], f"the Parallel env ({agent})")
            checks["parallel observation"] += len(agents)
            clone = checker.probe(state, before, moves, probe_rng)
            probe_parallel_refusals(env, checker, before, actions, probe_rng)
            for seat, _ in moves:
                checker.check_sample(
                    env.action_space(agents[seat]).sample(), masks[seat], f"action_space({agents[seat]!r})"
                )
        try:
            observations, rewards, terminations, truncations, _ = env.step(actions)
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(
                f"the Parallel env refused masked actions {actions}: {type(error).__name__}: {error}"
            ) from error
        steps += len(moves)
        if steps > game.max_game_length:
            raise InvariantViolation(f"the game runs past max_game_length={game.max_game_length}")
        check(
            set(rewards) == set(agents) == set(terminations) == set(truncations),
            "the Parallel step does not answer for every agent",
        )
        step_rewards = [rewards[a] for a in agents]
        totals += step_rewards
        if digest:
            trace_update(digest, [a for _, a in moves], observations[agents[moves[0][0]]]["observation"], step_rewards)
        over, truncated = state.is_terminal(), state.is_truncated()
        for agent in agents:
            if (terminations[agent], truncations[agent]) != (over and not truncated, over and truncated):
                raise InvariantViolation(
                    f"{agent}: terminated={terminations[agent]}, truncated={truncations[agent]}, "
                    f"core says over={over}, truncated={truncated}"
                )
        acting, masks = checker.check_state(state)
        if deep:
            checker.follows(state, clone, f"actions {actions}")
        if over:
            check(env.agents == [], f"agents {env.agents} remain after the game ended")
            for agent in agents:
                check(not observations[agent]["action_mask"].any(), f"{agent}'s mask is not empty after the end")
    check(state.is_terminal(), "the Parallel env has no agents but the core's game is not over")
    checker.check_snapshot(Snapshot.of(state))
    expect_refused(lambda: env.step({}), "a Parallel step after the end")
    checks["finished game refuses"] += 1
    expected, what = final_basis(state, env.reward_mode)
    check(
        np.allclose(totals, expected, rtol=0, atol=1e-9),
        f"Parallel rewards sum to {totals.tolist()}, {what} is {expected.tolist()}",
    )
    checks["return promise"] += game.num_players
    return GameResult(steps, digest.digest() if digest else None)


def probe_parallel_refusals(env, checker: GameChecker, before: Snapshot, actions: dict, rng: random.Random) -> None:
    """Steps the Parallel env must refuse whole, each leaving the game as it was."""
    agents = env.possible_agents
    acting = [agents[s] for s in before.acting]
    target = acting[rng.randrange(len(acting))]
    bad = checker.unmasked_action(before.masks[agents.index(target)], rng)
    probes = [(f"a Parallel step with unmasked action {bad} of {target}", {**actions, target: bad})]
    if len(acting) > 1:
        probes.append((f"a Parallel step without {target}'s action", {a: x for a, x in actions.items() if a != target}))
    idle = [a for a in agents if a not in acting]
    if idle:
        probes.append(
            (f"a Parallel step with an action of {idle[0]}, who is not to act,", {**actions, idle[0]: actions[target]})
        )
    for what, step_actions in probes:
        expect_refused(lambda: env.step(step_actions), what)
        expect_same(before, env.game_state, f"{what} changed the game")
        checker.checks["parallel refusal leaves game unchanged"] += 1


def replay_parallel(g: Trial) -> bytes:
    env = g.env("parallel_env", fresh=True)
    observations, _ = env.reset(seed=g.seed)
    agents = env.possible_agents
    action_rng = random.Random(g.seed)
    digest = hashlib.blake2b(digest_size=16)
    while env.agents:
        acting = sorted(env.game_state.acting_players())
        moves = [(seat, choose(observations[agents[seat]]["action_mask"], action_rng)) for seat in acting]
        observations, rewards, *_ = env.step({agents[seat]: action for seat, action in moves})
        trace_update(
            digest,
            [a for _, a in moves],
            observations[agents[moves[0][0]]]["observation"],
            [rewards[a] for a in agents],
        )
    return digest.digest()


PLAYERS = {
    "aec": (play_aec, replay_aec),
    "gymnasium": (play_gymnasium, replay_gymnasium),
    "parallel": (play_parallel, replay_parallel),
    "batched": (play_batched, replay_batched),
}


def play_checked(g: Trial) -> GameResult:
    """One random legal game with the checks of its form, replayed if sampled; raises
    InvariantViolation on the first breach."""
    play, replay = PLAYERS[g.form]
    record = g.sampled
    try:
        result = play(g, record)
    except InvariantViolation as error:
        raise InvariantViolation(f"{g.form}: {error}") from error
    if record:
        check(replay(g) == result.digest, f"{g.form}: replaying the seed gave a different game (trace hashes differ)")
        g.checks["same seed same game"] += 1
    return result


@dataclass
class Failure:
    env: str
    kwargs: dict  #: the env's arguments in the failed game
    seed: int
    message: str
    options: dict = field(default_factory=dict)  #: the options the run fixed (``--option``)
    sampling: Sampling = field(default_factory=Sampling)

    def replay_command(self) -> str:
        fixed = "".join(f" --option {name}={value!r}" for name, value in self.options.items())
        return (
            f"python -m tests.fuzz --env {self.env} --players {self.kwargs['num_players']} --games 1 "
            f"--seed {self.seed}{fixed}{self.sampling.options()}"
        )


@dataclass
class Tally:
    """What one env and player count went through."""

    env: str
    num_players: int
    games: int = 0
    steps: int = 0
    seconds: float = 0.0
    checks: Counter = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    forms: Counter = field(default_factory=Counter)

    @property
    def total_checks(self) -> int:
        return sum(self.checks.values())

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds else 0.0
        forms = ", ".join(f"{form} {count}" for form, count in sorted(self.forms.items()))
        return (
            f"{self.env} {self.num_players}p: games {self.games}, steps {self.steps}, "
            f"invariant checks {self.total_checks}, failures {len(self.failures)}, "
            f"{self.seconds:.1f} s, {rate:.1f} games/s ({forms})"
        )


def game_kwargs(entry: EnvEntry, num_players: int, seed: int, options: dict | None = None) -> dict:
    """The env arguments of the game with ``seed``: player count, reward mode, options.

    ``options`` fixes game options for every game; the boolean ones not fixed vary.
    """
    options = options or {}
    variants = [
        {k: v for k, v in variant.items() if k not in options} for variant in option_variants(entry.game_class())
    ]
    return {
        "num_players": num_players,
        "reward_mode": REWARD_MODES[seed % len(REWARD_MODES)],
        **variants[seed // len(REWARD_MODES) % len(variants)],
        **options,
    }


def game_form(entry: EnvEntry, seed: int) -> str:
    """The form the game with ``seed`` is played through (after its mode and options vary)."""
    every = forms(entry)
    return every[seed // (len(REWARD_MODES) * len(option_variants(entry.game_class()))) % len(every)]


def fuzz(
    entry: EnvEntry,
    num_players: int,
    games: range,
    seed: int = 0,
    progress=None,
    options: dict | None = None,
    sampling: Sampling = Sampling(),
) -> Tally:
    """Play and check games ``games`` (indices; seed ``seed + i``) of one env and player count.

    ``options`` fixes game options (e.g. ``{"max_plies": 30}``); ``sampling`` sets how
    often the costly checks run; ``progress`` receives a line of progress now and then,
    and every failure as it happens.
    """
    module = entry.load_module()
    tally = Tally(entry.name, num_players)
    envs: dict = {}  # the envs of the checked games, one per form and arguments
    start = last_report = time.perf_counter()
    for index in games:
        game_seed = seed + index
        kwargs = game_kwargs(entry, num_players, game_seed, options)
        form = game_form(entry, game_seed)
        tally.forms[form] += 1
        try:
            tally.steps += play_checked(Trial(module, kwargs, game_seed, form, sampling, tally.checks, envs)).steps
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next game
            message = (
                str(error)
                if isinstance(error, InvariantViolation)
                else f"{form}: " + traceback.format_exc(limit=-3).strip()
            )
            tally.failures.append(Failure(entry.name, kwargs, game_seed, message, dict(options or {}), sampling))
            if progress:
                progress(f"FAILURE {entry.name} {kwargs} seed {game_seed}: {message}")
        tally.games += 1
        now = time.perf_counter()
        if progress and now - last_report >= PROGRESS_SECONDS:
            last_report = now
            tally.seconds = now - start
            done = index - games.start + 1
            left = (len(games) - done) * tally.seconds / done
            progress(
                f"{entry.name} {num_players}p: {done}/{len(games)} games, {done / tally.seconds:.1f} games/s, "
                f"{len(tally.failures)} failures, about {left / 60:.0f} min left"
            )
    tally.seconds = time.perf_counter() - start
    return tally


def part_range(games: int, part: str | None) -> range:
    """The game indices of ``--part K/M``: the K-th of M contiguous, nearly equal slices."""
    if part is None:
        return range(games)
    try:
        k, m = (int(x) for x in part.split("/"))
    except ValueError:
        raise ValueError(f"--part must be K/M with integers, e.g. 3/20, got {part!r}") from None
    if not 1 <= k <= m:
        raise ValueError(f"--part K/M needs 1 <= K <= M, got {part!r}")
    return range(games * (k - 1) // m, games * k // m)


TALLY_LINE = re.compile(
    r"^(?P<env>\w+) (?P<players>\d+)p: games (?P<games>\d+), steps (?P<steps>\d+), "
    r"invariant checks (?P<checks>\d+), failures (?P<failures>\d+), (?P<seconds>[\d.]+) s,"
)


def summarize(paths: list[str]) -> str:
    """The figures of a run played in parts: the tally lines of its logs, added up."""
    totals: dict[tuple[str, int], Counter] = {}
    for path in paths:
        with open(path, encoding="utf-8") as log:
            for line in log:
                match = TALLY_LINE.match(line)
                if match:
                    key = (match["env"], int(match["players"]))
                    counts = totals.setdefault(key, Counter())
                    for field_name in ("games", "steps", "checks", "failures"):
                        counts[field_name] += int(match[field_name])
                    counts["seconds"] += float(match["seconds"])

    def line(label: str, counts: Counter) -> str:
        rate = counts["games"] / counts["seconds"] if counts["seconds"] else 0.0
        return (
            f"{label}: games {counts['games']}, steps {counts['steps']}, invariant checks {counts['checks']}, "
            f"failures {counts['failures']}, {counts['seconds']:.0f} s, {rate:.1f} games/s"
        )

    lines = [line(f"{env} {players}p", counts) for (env, players), counts in sorted(totals.items())]
    envs = sorted({env for env, _ in totals})
    lines += [line(env, sum((c for (e, _), c in totals.items() if e == env), Counter())) for env in envs]
    lines.append(line(f"total of {len(paths)} logs", sum(totals.values(), Counter())))
    return "\n".join(lines)


def parse_option(text: str) -> tuple[str, object]:
    """``"max_plies=30"`` as ``("max_plies", 30)``: the value is a Python literal, else a string."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise ValueError(f"--option must be NAME=VALUE, e.g. max_plies=30, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def share(text: str) -> float:
    """A share of steps or games for ``--deep`` / ``--deep-games``: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="env name, repeatable, or 'all' (default)")
    parser.add_argument("--games", type=int, default=100, help="games per env and player count (default 100)")
    parser.add_argument(
        "--players",
        type=int,
        action="append",
        help="player count, repeatable; each env plays those it allows (default: all it allows)",
    )
    parser.add_argument("--seed", type=int, default=0, help="game i has seed SEED + i (default 0)")
    parser.add_argument(
        "--part", help="K/M: play only the K-th of M slices of the games (seeds stay those of the whole run)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="fix a game option in every game (e.g. max_plies=30), repeatable",
    )
    parser.add_argument(
        "--deep",
        type=share,
        default=Sampling.steps,
        metavar="P",
        help="share of steps with the costly checks: clones, refusal probes, every observation, sample() "
        f"(default {Sampling.steps})",
    )
    parser.add_argument(
        "--deep-games",
        type=share,
        default=Sampling.games,
        metavar="Q",
        help="share of games with the per-game ones: a deep first step, copies of the Gymnasium env on deep steps, "
        f"a replay (default {Sampling.games})",
    )
    parser.add_argument(
        "--full", action="store_true", help="the costly checks on every step and every game (--deep 1 --deep-games 1)"
    )
    parser.add_argument(
        "--sum", nargs="+", metavar="LOG", help="add up the figures in the logs of a run's parts, play nothing"
    )
    args = parser.parse_args(argv)
    if args.sum:
        print(summarize(args.sum))
        return 0
    names = list(ENVS) if not args.env or "all" in args.env else args.env
    unknown = [name for name in names if name not in ENVS]
    if unknown:
        parser.error(f"unknown env {', '.join(unknown)}; known envs: {', '.join(ENVS)}")
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    try:
        games = part_range(args.games, args.part)
    except ValueError as error:
        parser.error(str(error))
    sampling = FULL if args.full else Sampling(steps=args.deep, games=args.deep_games)

    try:
        options = dict(parse_option(text) for text in args.option)
    except ValueError as error:
        parser.error(str(error))
    configs = [
        (ENVS[name], n)
        for name in names
        for n in player_counts(ENVS[name].game_class())
        if not args.players or n in args.players
    ]
    if not configs:
        parser.error(f"no env among {', '.join(names)} takes {args.players} players")
    for entry, num_players in configs:
        try:
            entry.game_class()(num_players=num_players, **options)
        except (TypeError, ValueError) as error:
            parser.error(f"--option for {entry.name}: {error}")

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    tallies = []
    for entry, num_players in configs:
        tally = fuzz(entry, num_players, games, args.seed, progress, options, sampling)
        tallies.append(tally)
        print(tally.line(), flush=True)
    failures = [f for t in tallies for f in t.failures]
    for failure in failures:
        print(f"FAILED {failure.kwargs} seed {failure.seed}: {failure.message}\n  replay: {failure.replay_command()}")
    total_checks = sum(t.total_checks for t in tallies)
    print(
        f"fuzz total ({games.start}..{games.stop - 1} of {args.games} games, seed {args.seed}, "
        f"deep {sampling.steps:g}, deep games {sampling.games:g}): "
        f"games {sum(t.games for t in tallies)}, steps {sum(t.steps for t in tallies)}, "
        f"invariant checks {total_checks}, failures {len(failures)}",
        flush=True,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
