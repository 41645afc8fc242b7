"""Invariant fuzzing: random legal games of every env, checked after every step.

    python -m tests.fuzz --env all --games 1000          # 1000 games per env and player count
    python -m tests.fuzz --env invers --games 10 --seed 7
    python -m tests.fuzz --games 1000000 --part 3/20     # the 3rd twentieth of a long run

For every registered env and every player count it allows, ``--games`` games are played
through the PettingZoo AEC adapter (:mod:`envs.aec`) by a seeded uniform-random legal
policy. Game ``i`` has seed ``s = --seed + i``, which also picks its reward mode (even
``s``: ``"score"``, odd: ``"win"``) and its combination of the game's boolean options
(e.g. Inverted Dice's ``free_cross_out``), so ``--games 1 --seed s`` replays it. A long
run goes in parts (``--part K/M``, one process each, in turn or side by side) whose logs
``--sum`` adds up. After every step it checks:

* masks: ``int8`` of ``num_actions`` 0/1 entries; the acting players' never empty, every
  other player's all zeros; the AEC selects an acting player and shows the core's view;
* observations: every player's is ``float32`` of the declared shape, inside
  ``game.observation_bounds()`` (NaN fails);
* scores: every player's inside ``game.score_bounds()``;
* refusal: one random unmasked action of the acting player (the first id outside the
  action space when every action is legal), and, with several players, a legal action
  played from a seat that is not to act, each raise ``IllegalActionError`` on a clone
  and leave it exactly as it was (masks, observations, scores, acting players);
* acceptance and clone independence: the sampled legal action is accepted by the clone,
  the original is unchanged by it, and the original then accepts it too and ends up
  exactly like the clone;

and once the game has ended: it ended within ``max_game_length`` steps, every agent was
told so, a further action is refused, the AEC rewards (both as stepped and as collected
through ``last()``) add up to the final score (``"score"``), the final lead (``"margin"``)
or to the outcome (``"win"``: ``returns()``, each of +1 / -1 / 0), and replaying the seed
in a fresh env gives the same game (a hash of every action, observation and reward).

A failure does not stop the run: it is printed with the command that replays it, counted,
and the run goes on with the next game. The exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import itertools
import random
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType

import numpy as np

from envs.aec import reward_basis
from envs.core import GameState, IllegalActionError
from envs.registry import ENVS, EnvEntry

REWARD_MODES = ("score", "win", "margin")  # the game with seed s plays REWARD_MODES[s % 3]
PROGRESS_SECONDS = 30.0
INT8, FLOAT32 = np.dtype(np.int8), np.dtype(np.float32)


class InvariantViolation(AssertionError):
    """A broken invariant, worded for the failure report."""


def check(condition, message: str) -> None:
    """Raise ``InvariantViolation(message)`` unless ``condition``.

    For the once-a-game checks; the per-step ones test first and word the message only
    on failure, which keeps the hot path free of string formatting.
    """
    if not condition:
        raise InvariantViolation(message)


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
        parts += [f"player {p}'s mask" for p, (a, b) in enumerate(zip(self.masks, other.masks)) if not np.array_equal(a, b)]
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


def expect_refused(state: GameState, player: int, action: int, what: str) -> None:
    try:
        state.apply(player, action)
    except IllegalActionError:
        return
    except Exception as error:  # noqa: BLE001 - any other error is the failure to report
        raise InvariantViolation(f"{what} raised {type(error).__name__} instead of IllegalActionError: {error}") from error
    raise InvariantViolation(f"{what} was accepted")


class GameChecker:
    """The per-state checks of one game's states, with the game's declared facts at hand."""

    def __init__(self, game, checks: Counter):
        self.game = game
        self.n = game.num_players
        self.num_actions = game.num_actions
        self.obs_low, self.obs_high = game.observation_bounds()
        self.score_low, self.score_high = game.score_bounds()
        self.checks = checks

    def check_state(self, snap: Snapshot) -> None:
        """Masks, observations and scores of every player (the cheap checks)."""
        n, checks = self.n, self.checks
        if snap.terminal == bool(snap.acting):
            raise InvariantViolation(f"terminal={snap.terminal} but acting players {snap.acting}")
        for p, mask in enumerate(snap.masks):
            if mask.dtype != INT8 or mask.shape != (self.num_actions,):
                raise InvariantViolation(f"player {p}'s mask is {mask.dtype} {mask.shape}, not int8 ({self.num_actions},)")
        masks = np.array(snap.masks)
        if masks.min() < 0 or masks.max() > 1:
            raise InvariantViolation(f"a mask holds values outside 0/1: {masks.min()}..{masks.max()}")
        unmasked = masks.sum(axis=1)
        for p in range(n):
            if p in snap.acting:
                if unmasked[p] == 0:
                    raise InvariantViolation(f"player {p} is to act with an empty mask")
            elif unmasked[p]:
                raise InvariantViolation(f"player {p} is not to act but {unmasked[p]} actions are unmasked")
        checks["mask"] += n
        for p, obs in enumerate(snap.observations):
            if obs.dtype != FLOAT32 or obs.shape != self.game.observation_shape:
                raise InvariantViolation(
                    f"player {p}'s observation is {obs.dtype} {obs.shape}, not float32 {self.game.observation_shape}"
                )
        observations = np.array(snap.observations)
        if not (self.obs_low <= observations.min() and observations.max() <= self.obs_high):  # NaN fails too
            p, entry = np.argwhere(~((observations >= self.obs_low) & (observations <= self.obs_high)))[0]
            raise InvariantViolation(
                f"player {p}'s observation leaves [{self.obs_low}, {self.obs_high}] at entry {entry}: "
                f"{observations[p, entry]}"
            )
        checks["observation"] += n
        scores = snap.scores
        if scores.shape != (n,):
            raise InvariantViolation(f"scores have shape {scores.shape}, not ({n},)")
        if not (self.score_low <= scores.min() and scores.max() <= self.score_high):
            raise InvariantViolation(f"scores {scores.tolist()} leave the declared [{self.score_low}, {self.score_high}]")
        checks["score"] += n

    def probe(self, state: GameState, before: Snapshot, seat: int, action: int, rng: random.Random) -> GameState:
        """Refusals and acceptance on a clone; the clone after ``action``, the original untouched."""
        clone = state.clone()
        illegal = np.flatnonzero(before.masks[seat] == 0)
        bad = int(illegal[rng.randrange(len(illegal))]) if len(illegal) else self.num_actions
        probes = f"unmasked action {bad} of player {seat}"
        expect_refused(clone, seat, bad, probes)
        self.checks["illegal refused"] += 1
        idle = [p for p in range(self.n) if p not in before.acting]
        if idle:
            other = idle[rng.randrange(len(idle))]
            expect_refused(clone, other, action, f"action {action} of player {other}, who is not to act,")
            probes += f" and action {action} of idle player {other}"
            self.checks["wrong seat refused"] += 1
        expect_same(before, clone, f"refused {probes} changed the state")
        self.checks["refusal leaves state unchanged"] += 1
        try:
            clone.apply(seat, action)
        except Exception as error:  # noqa: BLE001
            raise InvariantViolation(f"masked action {action} of player {seat} refused: {type(error).__name__}: {error}") from error
        self.checks["legal accepted"] += 1
        expect_same(before, state, f"action {action} applied to a clone changed the original")
        self.checks["clone independence"] += 1
        return clone


def trace_update(digest, action: int, observation: np.ndarray, rewards: dict) -> None:
    """Fold one step into the game's trace hash: the action, what the actor saw, the rewards."""
    digest.update(action.to_bytes(4, "little"))
    digest.update(observation.tobytes())
    digest.update(np.array(list(rewards.values()), np.float64).tobytes())


@dataclass
class GameResult:
    steps: int
    digest: bytes


def play_checked(module: ModuleType, kwargs: dict, seed: int, checks: Counter) -> GameResult:
    """One random legal game with every check; raises InvariantViolation on the first breach."""
    env = module.raw_env(**kwargs)
    env.reset(seed=seed)
    state = env.game_state
    game = env.game
    checker = GameChecker(game, checks)
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    action_rng, probe_rng = random.Random(seed), random.Random(f"probe {seed}")
    digest = hashlib.blake2b(digest_size=16)
    stepped = np.zeros(game.num_players)  # rewards as stepped (env.rewards after each step)
    collected = np.zeros(game.num_players)  # rewards as an agent collects them via last()
    told_done = set()
    before = Snapshot.of(state)
    checker.check_state(before)
    steps = 0
    try:
        while env.agents:
            agent = env.agent_selection
            seat = seats[agent]
            obs, reward, terminated, truncated, _ = env.last()
            collected[seat] += reward
            if terminated or truncated:
                check(before.terminal, f"{agent} told the game is over while the core plays on")
                check(terminated != truncated, f"{agent}: terminated={terminated}, truncated={truncated}")
                check(truncated == state.is_truncated(), f"{agent}: truncated={truncated}, core says {state.is_truncated()}")
                check(not obs["action_mask"].any(), f"{agent}'s mask is not empty after the end")
                told_done.add(agent)
                env.step(None)
                continue
            if seat not in before.acting:
                raise InvariantViolation(f"the AEC selects {agent} but the acting players are {before.acting}")
            if not (
                np.array_equal(obs["observation"], before.observations[seat])
                and np.array_equal(obs["action_mask"], before.masks[seat])
            ):
                raise InvariantViolation(f"the AEC shows {agent} something other than the core's observation and mask")
            checks["aec view"] += 1
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[action_rng.randrange(len(legal))])
            clone = checker.probe(state, before, seat, action, probe_rng)
            try:
                env.step(action)
            except Exception as error:  # noqa: BLE001
                raise InvariantViolation(f"the AEC env refused masked action {action} of {agent}: {type(error).__name__}: {error}") from error
            steps += 1
            if steps > game.max_game_length:
                raise InvariantViolation(f"the game runs past max_game_length={game.max_game_length}")
            stepped += [env.rewards[a] for a in env.possible_agents]
            trace_update(digest, action, obs["observation"], env.rewards)
            after = Snapshot.of(state)
            checker.check_state(after)
            cloned = Snapshot.of(clone)
            if after.key != cloned.key:
                raise InvariantViolation(f"action {action} gave a clone and the original different states: {after.differences(cloned)}")
            checks["clone follows original"] += 1
            before = after
        check(state.is_terminal(), "every agent is done but the core's game is not over")
        check(told_done == set(env.possible_agents), f"only {sorted(told_done)} were told the game is over")
        expect_refused(state.clone(), 0, 0, "an action after the end of the game")
        checks["finished game refuses"] += 1
        if env.reward_mode != "win":
            expected, what = reward_basis(state, env.reward_mode), f"the final {'score' if env.reward_mode == 'score' else 'lead'}"
        else:
            expected, what = state.returns(), "outcome"
            check(np.isin(expected, (-1.0, 0.0, 1.0)).all(), f"outcome {expected.tolist()} is not +1/-1/0 per player")
        for name, total in (("stepped", stepped), ("collected through last()", collected)):
            check(np.allclose(total, expected, rtol=0, atol=1e-9), f"rewards {name} sum to {total.tolist()}, {what} is {expected.tolist()}")
        checks["reward sum"] += 2 * game.num_players
        return GameResult(steps, digest.digest())
    except InvariantViolation as error:
        raise InvariantViolation(f"after {steps} steps: {error}") from error


def replay_digest(module: ModuleType, kwargs: dict, seed: int) -> bytes:
    """The trace hash of the same seeded game, played again in a fresh env without checks."""
    env = module.raw_env(**kwargs)
    env.reset(seed=seed)
    action_rng = random.Random(seed)
    digest = hashlib.blake2b(digest_size=16)
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[action_rng.randrange(len(legal))])
        env.step(action)
        trace_update(digest, action, obs["observation"], env.rewards)
    return digest.digest()


@dataclass
class Failure:
    env: str
    kwargs: dict  #: the env's arguments in the failed game
    seed: int
    message: str
    options: dict = field(default_factory=dict)  #: the options the run fixed (``--option``)

    def replay_command(self) -> str:
        fixed = "".join(f" --option {name}={value!r}" for name, value in self.options.items())
        return f"python -m tests.fuzz --env {self.env} --players {self.kwargs['num_players']} --games 1 --seed {self.seed}{fixed}"


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

    @property
    def total_checks(self) -> int:
        return sum(self.checks.values())

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds else 0.0
        return (
            f"{self.env} {self.num_players}p: games {self.games}, steps {self.steps}, "
            f"invariant checks {self.total_checks}, failures {len(self.failures)}, "
            f"{self.seconds:.1f} s, {rate:.1f} games/s"
        )


def game_kwargs(entry: EnvEntry, num_players: int, seed: int, options: dict | None = None) -> dict:
    """The env arguments of the game with ``seed``: player count, reward mode, options.

    ``options`` fixes game options for every game; the boolean ones not fixed vary.
    """
    options = options or {}
    variants = [{k: v for k, v in variant.items() if k not in options} for variant in option_variants(entry.game_class())]
    return {
        "num_players": num_players,
        "reward_mode": REWARD_MODES[seed % len(REWARD_MODES)],
        **variants[seed // len(REWARD_MODES) % len(variants)],
        **options,
    }


def fuzz(entry: EnvEntry, num_players: int, games: range, seed: int = 0, progress=None, options: dict | None = None) -> Tally:
    """Play and check games ``games`` (indices; seed ``seed + i``) of one env and player count.

    ``options`` fixes game options (e.g. ``{"max_plies": 30}``); ``progress`` receives
    a line of progress now and then, and every failure as it happens.
    """
    module = entry.load_module()
    tally = Tally(entry.name, num_players)
    start = last_report = time.perf_counter()
    for index in games:
        game_seed = seed + index
        kwargs = game_kwargs(entry, num_players, game_seed, options)
        try:
            result = play_checked(module, kwargs, game_seed, tally.checks)
            tally.steps += result.steps
            replayed = replay_digest(module, kwargs, game_seed)
            check(replayed == result.digest, "replaying the seed gave a different game (trace hashes differ)")
            tally.checks["same seed same game"] += 1
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next game
            message = str(error) if isinstance(error, InvariantViolation) else traceback.format_exc(limit=-3).strip()
            tally.failures.append(Failure(entry.name, kwargs, game_seed, message, dict(options or {})))
            if progress:
                progress(f"FAILURE {entry.name} {kwargs} seed {game_seed}: {message}")
        tally.games += 1
        now = time.perf_counter()
        if progress and now - last_report >= PROGRESS_SECONDS:
            last_report = now
            tally.seconds = now - start
            done = index - games.start + 1
            left = (len(games) - done) * tally.seconds / done
            progress(f"{entry.name} {num_players}p: {done}/{len(games)} games, {done / tally.seconds:.1f} games/s, "
                     f"{len(tally.failures)} failures, about {left / 60:.0f} min left")
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
        return (
            f"{label}: games {counts['games']}, steps {counts['steps']}, invariant checks {counts['checks']}, "
            f"failures {counts['failures']}, {counts['seconds']:.0f} s"
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="env name, repeatable, or 'all' (default)")
    parser.add_argument("--games", type=int, default=100, help="games per env and player count (default 100)")
    parser.add_argument("--players", type=int, action="append", help="player count, repeatable; each env plays those it allows (default: all it allows)")
    parser.add_argument("--seed", type=int, default=0, help="game i has seed SEED + i (default 0)")
    parser.add_argument("--part", help="K/M: play only the K-th of M slices of the games (seeds stay those of the whole run)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="fix a game option in every game (e.g. max_plies=30), repeatable")
    parser.add_argument("--sum", nargs="+", metavar="LOG", help="add up the figures in the logs of a run's parts, play nothing")
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
        tally = fuzz(entry, num_players, games, args.seed, progress, options)
        tallies.append(tally)
        print(tally.line(), flush=True)
    failures = [f for t in tallies for f in t.failures]
    for failure in failures:
        print(f"FAILED {failure.kwargs} seed {failure.seed}: {failure.message}\n  replay: {failure.replay_command()}")
    total_checks = sum(t.total_checks for t in tallies)
    print(
        f"fuzz total ({games.start}..{games.stop - 1} of {args.games} games, seed {args.seed}): "
        f"games {sum(t.games for t in tallies)}, steps {sum(t.steps for t in tallies)}, "
        f"invariant checks {total_checks}, failures {len(failures)}",
        flush=True,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
