"""Turn-value TD: the agent (:mod:`agents.turn_value`) of a solitaire dice game learning ``V(sheet)``.

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

A checkpoint is ``value.pt`` (the network, loadable as the agent spec ``td:path=<run>``)
and the framework's ``training_state.pkl`` (with the learner's network, optimizer, replay
buffer and generator: what ``--resume`` needs to continue exactly as a run that never
stopped).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.registry import make_agent
from agents.run_folder import VALUE_FILE
from agents.turn_value import TurnValueAgent, TurnValueNet, load_turn_value, save_turn_value
from envs.core import Game
from training.framework.checkpoint import Checkpoint
from training.framework.progress import Progress
from training.framework.run import Override, Pipeline, Session
from training.pipelines.td.config import TDConfig, td_agent_class
from training.pipelines.td.explore import explored_teacher_turns


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
    """``updates`` Adam steps of squared error on minibatches of ``replay``; the mean loss."""
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


class TurnValueTD(Pipeline):
    name = "td"
    schema = TDConfig
    unit = "games"
    budget_key = "games"
    default_config = "{env}_td"
    checkpoint_required = (VALUE_FILE,)
    overrides = (
        Override("games", "games", int, "self-play games after the warm start"),
        Override("td-lambda", "td_lambda", float, "td_lambda (e.g. for a sweep)", positive=False),
    )

    @classmethod
    def check_env(cls, env: str) -> None:
        td_agent_class(env)

    def __init__(self, config: TDConfig, run_dir: Path, checkpoint: Checkpoint | None):
        super().__init__(config, run_dir, checkpoint)
        self.agent_class = td_agent_class(config.env)
        self.net = TurnValueNet(self.agent_class.num_features, tuple(config.hidden), baseline=self.agent_class.baseline)
        if config.init is not None:  # (a resumed run then loads its own state over it)
            start = load_turn_value(
                Path(config.init), config.env, self.agent_class.num_features, self.agent_class.feature_version
            )
            self.net.load_state_dict(start.state_dict())
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate)
        self.replay = Replay(config.replay_size, self.agent_class.num_features)
        self.rng = np.random.default_rng(config.seed)
        self.games_done = 0
        self.agent = self.agent_class(self.game, net=self.net, lookahead=config.lookahead)

    @property
    def done(self) -> int:
        return self.games_done

    def agent_spec(self) -> str:
        return f"td:path={self.run_dir}"

    def current_agent(self) -> TurnValueAgent:
        return self.agent

    def checkpoint_files(self):
        return {
            VALUE_FILE: lambda p: save_turn_value(p, self.net, self.config.env, self.agent_class.feature_version),
        }

    def state_dict(self) -> dict:
        """The network and optimizer together (so they always match), the replay buffer and the generator."""
        return {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "replay_features": self.replay.features,
            "replay_targets": self.replay.targets,
            "replay_count": self.replay.count,
            "rng": self.rng.bit_generator.state,
            "games_done": self.games_done,
        }

    def load_state_dict(self, state: dict) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.replay.features[:], self.replay.targets[:] = state["replay_features"], state["replay_targets"]
        self.replay.count = state["replay_count"]
        self.rng.bit_generator.state = state["rng"]
        self.games_done = state["games_done"]

    def prepare(self, session: Session) -> None:
        """The warm start on the teacher's games, when the config has one."""
        if self.config.warm_start.games:
            self._warm_start()

    def step(self) -> dict[str, float]:
        """One iteration: ``games_per_iteration`` self-play games into the replay buffer, then the updates."""
        config = self.config
        batch = min(config.games_per_iteration, config.games - self.games_done)
        scores = []
        for _ in range(batch):
            features, backups, points, score = play_turns(self.game, self.agent, self.agent, self.rng)
            self.replay.add(features, lambda_targets(backups, points, config.td_lambda))
            scores.append(score)
        self.games_done += batch
        loss = fit(self.net, self.optimizer, self.replay, config.updates_per_iteration, config.batch_size, self.rng)
        return {"score_mean": float(np.mean(scores)), "value_loss": loss}

    def _warm_start(self) -> None:
        settings, config = self.config.warm_start, self.config
        teacher = make_agent(config.env, settings.teacher, self.game)
        if settings.explore_top:
            self._fit_warm_start(*self._explored_turns(teacher), "")
            return
        turns, estimates = [], []

        def collect_estimates(observation):
            found = self.agent.teacher_values(teacher, observation, self.rng)
            if found is not None:
                estimates.append(found)

        for _ in range(settings.games):
            features, backups, points, _ = play_turns(
                self.game, teacher, self.agent, self.rng, collect_estimates if settings.teacher_values else None
            )
            turns.append((features, lambda_targets(backups, points, 1.0)))
        features = np.concatenate([f for f, _ in turns] + [f for f, _ in estimates])
        targets = np.concatenate([t for _, t in turns] + [v for _, v in estimates])
        estimated = sum(len(v) for _, v in estimates)
        also = f" and {estimated} of the teacher's own sheet values" if estimated else ""
        mean_return = float(np.mean([t[0] for _, t in turns]))
        played = f"{sum(len(t) for _, t in turns)} turns{also}, mean return {mean_return:.1f}"
        self._fit_warm_start(features, targets, played)

    def _explored_turns(self, teacher) -> tuple[np.ndarray, np.ndarray]:
        """The turns after one explored write per teacher game (:mod:`training.pipelines.td.explore`)."""
        settings = self.config.warm_start
        progress = Progress(
            f"Warm start: explored {settings.teacher} games", settings.games, lambda line: print(line, flush=True)
        )
        return explored_teacher_turns(
            self.game, teacher, self.agent, settings.games, settings.explore_top, self.rng, progress=progress
        )

    def _fit_warm_start(self, features: np.ndarray, targets: np.ndarray, played: str) -> None:
        """``V`` fitted to the warm start's targets; they also open the replay buffer."""
        settings, config = self.config.warm_start, self.config
        demonstrations = Replay(len(targets), self.agent_class.num_features)
        demonstrations.add(features, targets)
        updates = max(1, settings.epochs * len(targets) // config.batch_size)
        loss = fit(self.net, self.optimizer, demonstrations, updates, config.batch_size, self.rng)
        # Self-play starts from the teacher's turns and, while they last in the replay, part of its estimates.
        keep = self.rng.permutation(len(targets))[: config.replay_size]
        self.replay.add(features[keep], targets[keep])
        print(
            f"Warm start: {settings.games} {settings.teacher} games, {played or f'{len(targets)} turn samples'}, "
            f"{updates} updates, loss {loss:.4f}",
            flush=True,
        )
