"""Train a turn-value agent (:mod:`agents.turn_value`) of a solitaire dice game by TD learning.

    python training/train_td.py --env inverted_dice            # configs/inverted_dice_td.yaml
    python training/train_td.py --env six_hundred --games 2000 --seed 3 --td-lambda 0.5
    python training/train_td.py --resume checkpoints/inverted_dice/<run>

The agent plays each turn exactly (expectimax over the dice, the heuristic's own turn
planner) against ``V(sheet)``, a network that estimates the points still to come from a
between-turn score sheet. Training improves ``V`` from the agent's own games:

1. **Warm start** (``warm_start``): the teacher bot (the heuristic, never a solver)
   plays ``games`` games; ``V`` is fitted to its returns-to-go at every turn start, so
   it starts as the value of the teacher's policy, and planning against it is already a
   policy-improvement step over the teacher. Where the teacher has its own estimate of
   what a sheet is worth (``teacher_values``: Six Hundred's heuristic), ``V`` is also
   fitted to it on the sheets each turn's writes could leave, most of which the
   teacher never visits: the planner starts out ranking writes as the teacher does
   instead of chasing the network's errors on sheets no game has shown it.
2. **Self-play iterations**: the agent plays ``games_per_iteration`` games against the
   current ``V``; each turn start ``t`` gets the target
   ``G_t = (1 - td_lambda) * B_t + td_lambda * (r_t + G_{t+1})``, where ``B_t`` is the
   planner's backed-up value of the turn (this turn's points plus ``V`` of the next
   sheet, *in expectation over the dice*), ``r_t`` the points the turn actually paid and
   ``G = 0`` after the last turn: ``td_lambda = 0`` is expected TD(0), 1 is the Monte
   Carlo return. The samples join a replay buffer of the latest ``replay_size`` turns,
   and ``V`` takes ``updates_per_iteration`` Adam steps on minibatches of it.

A checkpoint is saved every ``checkpoint_every`` games; after Ctrl-C (exit 130) or a
kill, ``--resume`` continues from the last one. The run folder
(``checkpoints/<env>/td-<date>-<time>-seed<seed>/``) gets ``value.pt``
(the network, loadable as the agent spec ``td:path=<run>``), ``config.yaml``,
``metadata.json``, ``training_state.pt`` (optimizer, replay buffer, generators: what
``--resume`` needs), ``learning_curve.csv`` / ``.png`` (every ``learning_curve.every``
games: the agent and the reference bot on the same fixed dice, also in TensorBoard) and
``evaluation/`` (the closing evaluation, as ``training/evaluate.py`` reports it).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path


import numpy as np
import torch
import yaml

from agents.registry import make_agent
from agents.turn_value import VALUE_FILE, TurnValueAgent, TurnValueNet, save_turn_value
from envs.core import Game
from training.framework.config import (
    AGENT_SPECS, BOOL, LAYERS, MAPPING, TEXT, ConfigError, check_agent_spec, integer,
    make_checked_game, number, parse_sections, section, setting,
)
from training.framework.paths import checkpoint_root, config_path
from training.framework.cli import fail, interrupted
from training.evaluation.harness import evaluate_solitaire, mean_ci
from training.framework.learning_curve import CURVE_FILE, draw
from training.train import git_commit, package_versions

STATE_FILE = "training_state.pt"


# -- the config --------------------------------------------------------------------------------


@dataclass
class TDWarmStart:
    teacher: str = setting("heuristic", TEXT)  #: agent spec of the teacher (a bot, not a solver)
    games: int = setting(2000, integer(0))  #: teacher games whose returns V is first fitted to; 0: none
    epochs: int = setting(10, integer(1))  #: passes over the teacher's turns
    #: also fit V to the teacher's own estimate of the sheets each turn's writes could
    #: leave, where the teacher has one (agents.turn_value.TurnValueAgent.teacher_values)
    teacher_values: bool = setting(True, BOOL)


@dataclass
class TDCurve:
    every: int = setting(2000, integer(0))  #: training games between evaluations; 0 turns the curve off
    games: int = setting(300, integer(1))  #: games per evaluation, on the same seeds (dice) every time
    reference: str = setting("heuristic", TEXT)  #: the bot measured against on those dice
    seed: int = setting(20_000, integer(0))


@dataclass
class TDEvaluation:
    games: int = setting(1000, integer(1))
    opponents: list[str] = setting(["heuristic", "random"], AGENT_SPECS)  #: agents compared on the same dice


@dataclass
class TDConfig:
    env: str = setting(None, TEXT)
    env_kwargs: dict = setting({}, MAPPING)  #: the game's options (solitaire: num_players 1)
    seed: int = setting(0, integer(0))
    games: int = setting(20_000, integer(1))  #: the budget: self-play games after the warm start
    hidden: list[int] = setting([256, 256], LAYERS)  #: the value network's hidden layers
    learning_rate: float = setting(0.001, number(above=0))
    batch_size: int = setting(512, integer(1))
    games_per_iteration: int = setting(200, integer(1))
    updates_per_iteration: int = setting(100, integer(1))
    replay_size: int = setting(100_000, integer(1))  #: turn samples kept (the newest)
    td_lambda: float = setting(0.3, number(0, 1))
    checkpoint_every: int = setting(2000, integer(1))  #: games between checkpoints
    warm_start: TDWarmStart = section(TDWarmStart)
    learning_curve: TDCurve = section(TDCurve)
    evaluation: TDEvaluation = section(TDEvaluation)


def td_agent_class(env: str) -> type[TurnValueAgent]:
    """The turn-value agent class of ``env`` (agent spec ``td``), or a ConfigError."""
    from agents.registry import TURN_VALUE_AGENTS

    if env not in TURN_VALUE_AGENTS:
        raise ConfigError(f"{env} has no turn-value agent; train_td.py trains {sorted(TURN_VALUE_AGENTS)}")
    module_name, class_name = TURN_VALUE_AGENTS[env].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_td_config(path: Path, overrides: dict | None = None) -> TDConfig:
    try:
        raw = yaml.safe_load(Path(path).read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"config file {path} is not valid YAML: {error}") from None
    raw = {**(raw or {}), **(overrides or {})}
    try:
        config = parse_sections(TDConfig, raw)
        if config.env is None:
            raise ConfigError("missing required key 'env'")
        td_agent_class(config.env)
        game = make_checked_game(config.env, config.env_kwargs)
        if game.num_players != 1:
            raise ConfigError(f"env_kwargs: the turn-value agent plays solitaire, got {game.num_players} players")
        for key, specs in (("warm_start.teacher", [config.warm_start.teacher]), ("learning_curve.reference", [config.learning_curve.reference]),
                           ("evaluation.opponents", config.evaluation.opponents)):
            for spec in specs:
                check_agent_spec(config.env, spec, key)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    return config


# -- playing games and their targets ------------------------------------------------------------


def play_turns(game: Game, agent, recorder: TurnValueAgent, rng: np.random.Generator, on_turn=None):
    """One game of ``agent``; per turn start: features, the planner's backed-up value, the turn's points.

    ``recorder`` reads sheets off observations (``agent`` itself, or the turn-value
    agent when a teacher plays); the backed-up value is NaN when ``agent`` is not a
    turn-value agent. ``on_turn(observation)`` is called at every turn start.
    """
    state = game.new_initial_state(rng)
    agent.reset(int(rng.integers(2**31)))
    features, backups, points = [], [], []
    key, score = None, 0.0
    while not state.is_terminal():
        observation = state.observe(0)
        new_turn = recorder.sheet_key(observation) != key
        if new_turn:
            key = recorder.sheet_key(observation)
            features.append(recorder.sheet_features(observation))
            points.append(0.0)
            if on_turn is not None:
                on_turn(observation)
        action = agent.act(observation, state.legal_mask(0))
        if new_turn:
            backups.append(agent.last_turn_value if isinstance(agent, TurnValueAgent) else np.nan)
        state.apply(0, action)
        now = float(state.scores()[0])
        points[-1] += now - score
        score = now
    return np.array(features, np.float32), np.array(backups), np.array(points), score


def lambda_targets(backups: np.ndarray, points: np.ndarray, td_lambda: float) -> np.ndarray:
    """``G_t = (1 - λ) B_t + λ (r_t + G_{t+1})``, ``G = 0`` after the last turn (NaN backups: λ = 1)."""
    targets = np.empty(len(points))
    following = 0.0
    for t in reversed(range(len(points))):
        sampled = points[t] + following
        following = sampled if np.isnan(backups[t]) else (1 - td_lambda) * backups[t] + td_lambda * sampled
        targets[t] = following
    return targets


class Replay:
    """The newest ``size`` (features, target) turn samples, a ring buffer."""

    def __init__(self, size: int, num_features: int):
        self.features = np.zeros((size, num_features), np.float32)
        self.targets = np.zeros(size, np.float32)
        self.count = 0  #: samples ever added

    def add(self, features: np.ndarray, targets: np.ndarray) -> None:
        rows = (self.count + np.arange(len(targets))) % len(self.targets)
        self.features[rows], self.targets[rows] = features, targets
        self.count += len(targets)

    def sample(self, batch: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        rows = rng.integers(min(self.count, len(self.targets)), size=batch)
        return torch.from_numpy(self.features[rows]), torch.from_numpy(self.targets[rows])


def fit(net: TurnValueNet, optimizer, replay: Replay, updates: int, batch: int, rng: np.random.Generator) -> float:
    """``updates`` Adam steps of mean squared error (in units of the net's scale); the mean loss."""
    net.train()
    losses = []
    for _ in range(updates):
        features, targets = replay.sample(batch, rng)
        loss = torch.nn.functional.mse_loss(net(features) / net.scale, targets / net.scale)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    net.eval()
    return float(np.mean(losses))


# -- the run -----------------------------------------------------------------------------------


class Run:
    """A training run's folder: network, resumable state, curve, metadata."""

    def __init__(self, directory: Path, config: TDConfig, game: Game):
        self.dir, self.config, self.game = directory, config, game
        self.agent_class = td_agent_class(config.env)
        self.net = TurnValueNet(self.agent_class.num_features, tuple(config.hidden), baseline=self.agent_class.baseline)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate)
        self.replay = Replay(config.replay_size, self.agent_class.num_features)
        self.rng = np.random.default_rng(config.seed)
        self.games_done, self.warm_started, self.wall_s = 0, False, 0.0
        self.agent = self.agent_class(game, net=self.net)
        self.curve_seeds = range(config.learning_curve.seed, config.learning_curve.seed + config.learning_curve.games)
        self._reference_scores = None

    def save(self) -> None:
        """Network, resumable state and metadata; each file replaced whole (written aside, then renamed)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        for name, write in (
            (VALUE_FILE, lambda p: save_turn_value(p, self.net, self.config.env, self.agent_class.feature_version)),
            (STATE_FILE, lambda p: torch.save({
                "net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "replay_features": self.replay.features,
                "replay_targets": self.replay.targets, "replay_count": self.replay.count,
                "rng": self.rng.bit_generator.state, "games_done": self.games_done,
                "warm_started": self.warm_started, "wall_s": self.wall_s}, p)),
        ):
            partial = self.dir / (name + ".partial")
            write(partial)
            partial.replace(self.dir / name)
        metadata = {"env": self.config.env, "env_kwargs": self.config.env_kwargs, "seed": self.config.seed,
                    "games": self.games_done, "wall_time_s": round(self.wall_s, 1), "algorithm": "turn-value TD (training/train_td.py)",
                    "packages": package_versions(), "git_commit": git_commit(), "command": " ".join(sys.argv)}
        (self.dir / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")

    def restore(self) -> None:
        """The state of the last checkpoint (network and optimizer from one file, so they always match)."""
        path = self.dir / STATE_FILE
        try:
            state = torch.load(path, map_location="cpu", weights_only=False)  # the run's own file: numpy arrays, generator state
            self.net.load_state_dict(state["net"])
            self.optimizer.load_state_dict(state["optimizer"])
        except Exception as error:  # a damaged or foreign file fails in torch.load or in the state dicts
            raise ConfigError(f"cannot resume: {path} is damaged or not this run's ({type(error).__name__}: {error})") from None
        self.replay.features[:], self.replay.targets[:], self.replay.count = state["replay_features"], state["replay_targets"], state["replay_count"]
        self.rng.bit_generator.state = state["rng"]
        self.games_done, self.warm_started, self.wall_s = state["games_done"], state["warm_started"], state["wall_s"]

    def curve_point(self, writer) -> dict:
        """The agent and the reference on the fixed evaluation dice; a row of the curve."""
        if self._reference_scores is None:
            reference = make_agent(self.config.env, self.config.learning_curve.reference, self.game)
            [result] = evaluate_solitaire(self.game, {"reference": reference}, self.curve_seeds)
            self._reference_scores = result.scores
        [result] = evaluate_solitaire(self.game, {"learner": self.agent}, self.curve_seeds)
        mean, half = mean_ci(result.scores)
        diff, diff_half = mean_ci(result.scores - self._reference_scores)
        row = {"games": self.games_done, "mean_score": mean, "ci95_half_width": half,
               "reference_mean": float(self._reference_scores.mean()), "diff_vs_reference": diff, "diff_ci95_half_width": diff_half}
        for key, value in row.items():
            if key != "games":
                writer.add_scalar(f"curve/{key}", value, self.games_done)
        path = self.dir / CURVE_FILE
        new = not path.exists()
        with path.open("a", newline="") as handle:
            out = csv.DictWriter(handle, fieldnames=list(row))
            if new:
                out.writeheader()
            out.writerow({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
        return row


def warm_start(run: Run) -> None:
    settings = run.config.warm_start
    teacher = make_agent(run.config.env, settings.teacher, run.game)
    turns, estimates = [], []

    def collect_estimates(observation):
        found = run.agent.teacher_values(teacher, observation, run.rng)
        if found is not None:
            estimates.append(found)

    for _ in range(settings.games):
        features, backups, points, _ = play_turns(run.game, teacher, run.agent, run.rng, collect_estimates if settings.teacher_values else None)
        turns.append((features, lambda_targets(backups, points, 1.0)))
    features = np.concatenate([f for f, _ in turns] + [f for f, _ in estimates])
    targets = np.concatenate([t for _, t in turns] + [v for _, v in estimates])
    demonstrations = Replay(len(targets), run.agent_class.num_features)
    demonstrations.add(features, targets)
    updates = max(1, settings.epochs * len(targets) // run.config.batch_size)
    loss = fit(run.net, run.optimizer, demonstrations, updates, run.config.batch_size, run.rng)
    # Self-play starts from the teacher's turns and, while they last in the replay, part of its estimates.
    keep = run.rng.permutation(len(targets))[: run.config.replay_size]
    run.replay.add(features[keep], targets[keep])
    estimated = sum(len(v) for _, v in estimates)
    also = f" and {estimated} of the teacher's own sheet values" if estimated else ""
    print(f"Warm start: {settings.games} {settings.teacher} games, {sum(len(t) for _, t in turns)} turns{also}, mean return "
          f"{float(np.mean([t[0] for _, t in turns])):.1f}, {updates} updates, loss {loss:.4f}", flush=True)


def train(run: Run, progress: bool = True) -> None:
    from torch.utils.tensorboard import SummaryWriter

    config = run.config
    writer = SummaryWriter(str(run.dir / "tensorboard"))
    started = time.perf_counter() - run.wall_s
    if not run.warm_started:
        if config.warm_start.games:
            warm_start(run)
        run.warm_started = True
        if config.learning_curve.every:
            row = run.curve_point(writer)
            print(f"curve at 0 games: {row['mean_score']:.1f} vs {row['reference_mean']:.1f} "
                  f"({row['diff_vs_reference']:+.1f} ± {row['diff_ci95_half_width']:.1f})", flush=True)
        run.wall_s = time.perf_counter() - started
        run.save()
    next_curve = (run.games_done // config.learning_curve.every + 1) * config.learning_curve.every if config.learning_curve.every else None
    next_checkpoint = (run.games_done // config.checkpoint_every + 1) * config.checkpoint_every
    while run.games_done < config.games:
        batch = min(config.games_per_iteration, config.games - run.games_done)
        scores = []
        for _ in range(batch):
            features, backups, points, score = play_turns(run.game, run.agent, run.agent, run.rng)
            run.replay.add(features, lambda_targets(backups, points, config.td_lambda))
            scores.append(score)
        run.games_done += batch
        loss = fit(run.net, run.optimizer, run.replay, config.updates_per_iteration, config.batch_size, run.rng)
        writer.add_scalar("train/score_mean", float(np.mean(scores)), run.games_done)
        writer.add_scalar("train/value_loss", loss, run.games_done)
        if progress:
            print(f"games {run.games_done}/{config.games}: score {np.mean(scores):.1f}, loss {loss:.4f}, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
        if next_curve is not None and run.games_done >= next_curve:
            next_curve += config.learning_curve.every
            row = run.curve_point(writer)
            print(f"curve at {run.games_done} games: {row['mean_score']:.1f} vs {row['reference_mean']:.1f} "
                  f"({row['diff_vs_reference']:+.1f} ± {row['diff_ci95_half_width']:.1f})", flush=True)
        if run.games_done >= next_checkpoint or run.games_done >= config.games:
            next_checkpoint += config.checkpoint_every
            run.wall_s = time.perf_counter() - started
            run.save()
    writer.close()
    draw(run.dir, config.learning_curve.reference)


def closing_evaluation(run: Run, games: int) -> None:
    from training import evaluate

    evaluate.main(["--env", run.config.env, "--agents", f"td:path={run.dir}", *run.config.evaluation.opponents,
                   "--games", str(games), "--out", str(run.dir / "evaluation"), "--overwrite",
                   "--env-kwargs", json.dumps(run.config.env_kwargs)])


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="env name (configs/<env>_td.yaml is the default config)")
    parser.add_argument("--config", help="config file (default: configs/<env>_td.yaml)")
    parser.add_argument("--games", type=int, help="self-play games (overrides the config)")
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--td-lambda", type=float, help="td_lambda (overrides the config; e.g. for a sweep)")
    parser.add_argument("--run-dir", help="where to write the run (default: checkpoints/<env>/td-<time>-seed<seed>)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR up to its games (or --games)")
    parser.add_argument("--eval-games", type=int, help="games of the closing evaluation (overrides the config)")
    parser.add_argument("--no-eval", action="store_true", help="skip the closing evaluation")
    parser.add_argument("--no-progress", action="store_true", help="no line per iteration")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    overrides = {k: v for k, v in (("games", args.games), ("seed", args.seed), ("td_lambda", args.td_lambda)) if v is not None}
    try:
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / STATE_FILE).is_file():
                raise ConfigError(f"cannot resume: {run_dir / STATE_FILE} does not exist")
            config = load_td_config(run_dir / "config.yaml", overrides)
        else:
            if not (args.env or args.config):
                raise ConfigError("give --env, --config or --resume")
            if args.env:
                td_agent_class(args.env)
            path = Path(args.config) if args.config else config_path(f"{args.env}_td")
            config = load_td_config(path, overrides)
            if args.env and args.env != config.env:
                raise ConfigError(f"--env {args.env} but {path} trains {config.env}")
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = Path(args.run_dir) if args.run_dir else checkpoint_root() / config.env / f"td-{stamp}-seed{config.seed}"
            if (run_dir / VALUE_FILE).exists():
                raise ConfigError(f"{run_dir} already holds a run: resume it with --resume {run_dir}")
        game = make_checked_game(config.env, config.env_kwargs)
        run = Run(run_dir, config, game)
        if args.resume:
            run.restore()
            if run.games_done >= config.games:
                raise ConfigError(f"{run_dir} already has {run.games_done} games; ask for more with --games")
    except ConfigError as error:
        return fail(error)
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    run.dir.mkdir(parents=True, exist_ok=True)
    (run.dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(config), sort_keys=False))
    print(f"{'Resuming' if args.resume else 'Training'} {config.env} turn values for {config.games} games -> {run.dir}")
    try:
        train(run, progress=not args.no_progress)
    except KeyboardInterrupt:
        saved = json.loads((run.dir / "metadata.json").read_text())["games"] if (run.dir / "metadata.json").exists() else 0
        print(f"\ninterrupted; the last checkpoint has {saved} games: python training/train_td.py --resume {run.dir}", file=sys.stderr)
        return interrupted()
    print(f"Trained {run.games_done} games in {run.wall_s:.0f} s")
    if not args.no_eval:
        closing_evaluation(run, args.eval_games or config.evaluation.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
