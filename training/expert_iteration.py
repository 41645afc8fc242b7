"""Expert Iteration: a policy-value network improved by the search it guides, for any
two-player perfect-information game.

    python training/expert_iteration.py --config configs/invers_expert_iteration.yaml
    python training/expert_iteration.py --config ... --init checkpoints/invers/<ppo run>   # warm start
    python training/expert_iteration.py --resume checkpoints/invers/<exit run>

Each generation (Anthony et al. 2017, "Thinking Fast and Slow"; AlphaZero's targets):

1. **Play.** The learner, the network inside :class:`~agents.search.NetworkSearch`
   (every root move searched exactly), plays ``games_per_generation`` games against an
   opponent drawn per game from the pool: itself (self-play), a frozen snapshot of an
   earlier generation inside the same search, or a fixed bot (``pool``: agent specs).
   The learner's seat alternates game by game; the first ``random_opening_plies`` are
   uniformly random and the learner samples its first ``explore_plies`` moves from the
   softmax of its search values, so games differ. With ``imitate_pool`` the fixed bots'
   positions are kept too, their move as the policy target (a warm start from the bots'
   play that search-made targets take over as the network outgrows them); a share
   ``bot_game_weight`` of the games are between two bots of the pool, both seats kept.
2. **Targets.** Every position the learner moved in is kept with the policy target
   softmax(search values / ``policy_temperature``) and the value target
   ``value_mix`` · search value + (1 − ``value_mix``) · the game's outcome *for the seat
   that moved there* (:func:`learner_targets`; in self-play both seats are the learner
   and each position gets its own seat's outcome, never the other's; a bot's position
   has no search value, so its value target is its seat's outcome alone).
3. **Learn.** Adam on cross-entropy (masked policy) plus squared value error, over a
   replay buffer of the latest ``buffer_size`` positions, each minibatch turned by one
   of the game's symmetries (:meth:`~envs.core.Game.symmetries`) drawn at random.

**A teacher search** (``teacher``, the spec of a bot with ``move_values(state)``, such as
``search:depth=4`` of Invers) replaces the learner's own search as the source of targets:
every recorded position, whoever moved in it, is labelled with the teacher's values of
all the legal moves (policy target: their softmax at ``policy_temperature``; search value:
the best of them), by ``workers`` processes at once, since labelling is most of the
cost. With ``bot_game_weight: 1`` the games are all between bots of the pool (spiced with
``random_move_rate``), and a run is a distillation of the teacher into the network: the
warm start from which the learner's own search, deeper than the teacher at the same
time per move, takes over (a later session without ``teacher``).

The network is sb3's MaskablePPO actor-critic, so a run's ``model.zip`` loads as the
agent ``ppo`` (the policy alone) and ``ppo+search`` (the network in the search), and a
PPO run can be the starting point (``init``). A run directory holds ``model.zip``,
``config.yaml`` and ``metadata.json`` (generations, positions, games, wall time, the
results against the pool per generation, and the config of every session: a run may be
resumed with changed settings in its ``config.yaml``). A resumed run keeps the network
but starts with an empty replay buffer, a fresh optimizer and no snapshots.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


import numpy as np
import torch
import yaml

from agents.base import Agent
from agents.network import PolicyValueNetwork
from agents.registry import make_agent
from agents.search import NetworkSearch, mover
from envs.core import Game, GameState
from envs.registry import get_entry, make_game
from training.framework.config import ConfigError
from training.framework.paths import checkpoint_root
from training.teacher.symmetry import symmetry_maps
from training.teacher.labels import TeacherLabels, softmax, teacher_targets

MODEL_FILE = "model.zip"


@dataclass
class ExpertIterationConfig:
    env: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    init: str | None = None  #: run directory or .zip to start from (e.g. a PPO run); None: a fresh network
    policy_kwargs: dict[str, Any] = field(default_factory=lambda: {"net_arch": [256, 256], "activation_fn": "relu"})
    generations: int = 50
    max_minutes: float | None = None  #: stop after the generation that passes this wall time
    games_per_generation: int = 40
    search_depth: int = 2  #: plies the learner searches while playing (every root move exact)
    random_opening_plies: int = 2
    explore_plies: int = 8  #: the learner samples its moves (softmax of search values) until this ply
    explore_temperature: float = 0.1
    pool: list[str] = field(default_factory=lambda: ["search:depth=1", "search:depth=2"])  #: fixed opponents
    imitate_pool: bool = True  #: also learn from the fixed bots' positions (their move, their seat's outcome)
    #: share of games between two bots of the pool, without the learner (both seats imitated:
    #: games between strong players whose outcomes say more about positions than a
    #: beginner's losses do)
    bot_game_weight: float = 0.0
    self_play_weight: float = 0.4  #: share of (the other) games against the learner itself
    snapshot_weight: float = 0.2  #: share of games against a frozen earlier generation (when there is one)
    max_snapshots: int = 5
    policy_temperature: float = 0.1  #: softness of the policy target over search values
    value_mix: float = 0.5  #: weight of the search value (vs the game's outcome) in the value target
    buffer_size: int = 100_000
    batch_size: int = 256
    sample_reuse: float = 4.0  #: gradient samples per new position each generation
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_loss_weight: float = 1.0
    #: agent spec of a bot with ``move_values(state)`` that labels every recorded position
    #: (None: the learner's own search labels its positions, the bots' are imitated)
    teacher: str | None = None
    workers: int = 1  #: processes labelling positions with the teacher
    #: share of moves after the opening that either seat of a training game plays
    #: uniformly at random, so that positions after mistakes are seen too
    random_move_rate: float = 0.0
    symmetries: bool = True  #: turn each minibatch by a random symmetry of the game

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(path: str | Path, **overrides) -> ExpertIterationConfig:
    """Read a config file; unknown keys are an error naming the file and the key."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    raw.update({k: v for k, v in overrides.items() if v is not None})
    known = {f.name for f in dataclasses.fields(ExpertIterationConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {unknown}; known keys: {sorted(known)}")
    if "env" not in raw:
        raise ConfigError(f"{path}: missing required key 'env'")
    config = ExpertIterationConfig(**raw)
    get_entry(config.env)
    for name in ("generations", "games_per_generation", "search_depth", "buffer_size", "batch_size", "workers"):
        if getattr(config, name) <= 0:
            raise ConfigError(f"{path}: '{name}' must be positive, got {getattr(config, name)}")
    shares = (config.value_mix, config.bot_game_weight, config.random_move_rate, config.self_play_weight + config.snapshot_weight)
    if not all(0.0 <= share <= 1.0 for share in shares):
        raise ConfigError(f"{path}: value_mix, bot_game_weight, random_move_rate and self_play_weight + snapshot_weight must lie in [0, 1]")
    return config


# -- playing and targets -----------------------------------------------------------------
@dataclass
class Record:
    """One position the learner moved in, before the game's outcome is known."""

    seat: int
    observation: np.ndarray
    mask: np.ndarray
    policy: np.ndarray  #: target distribution over all actions (zero where illegal)
    search_value: float | None  #: the search's value for the mover, in [-1, 1] (None: not searched)


class Learner:
    """The network inside the search, choosing moves and recording targets."""

    def __init__(self, network: PolicyValueNetwork, config: ExpertIterationConfig, num_actions: int):
        self.search = NetworkSearch(network, depth=config.search_depth, exact_root=True)
        self.config = config
        self.num_actions = num_actions

    def move(self, state: GameState, ply: int, rng: np.random.Generator) -> tuple[int, Record]:
        """The move to play at the game's ``ply`` (sampled early on), and its record."""
        me = mover(state)
        result = self.search.search(state, rng)
        moves = np.fromiter(result.move_values, int)
        values = np.clip(np.fromiter(result.move_values.values(), float), -1.0, 1.0)
        policy = np.zeros(self.num_actions)
        policy[moves] = softmax(values / self.config.policy_temperature)
        if ply < self.config.explore_plies:
            action = int(rng.choice(moves, p=softmax(values / self.config.explore_temperature)))
        else:
            action = result.action
        record = Record(me, state.observe(me), state.legal_mask(me).copy(), policy, float(np.clip(result.value, -1, 1)))
        return action, record


def play_training_game(
    game: Game,
    seats: list[Learner | Agent],
    rng: np.random.Generator,
    random_opening_plies: int,
    recorded: set[int],
    random_move_rate: float = 0.0,
) -> tuple[GameState, list[Record]]:
    """One game; a seat is a :class:`Learner` or any agent. The positions of the seats in
    ``recorded`` are kept: a learner's with its search targets, an agent's with its move
    as the policy target (imitation) and no search value. After the opening, a share
    ``random_move_rate`` of the moves are uniformly random (their positions are kept too,
    for a teacher to label, with the random move as the imitation target)."""
    state = game.new_initial_state(rng)
    records: list[Record] = []
    plies = 0
    while not state.is_terminal():
        player = mover(state)
        mask = state.legal_mask(player)
        seat = seats[player]
        if plies < random_opening_plies:
            action = int(rng.choice(np.flatnonzero(mask)))
        elif random_move_rate and rng.random() < random_move_rate:
            action = int(rng.choice(np.flatnonzero(mask)))
            if player in recorded:
                records.append(Record(player, state.observe(player), mask.copy(), _one_hot(action, game.num_actions), None))
        elif isinstance(seat, Learner):
            action, record = seat.move(state, plies, rng)
            if player in recorded:
                records.append(record)
        else:
            observation = state.observe(player)
            action = seat.act(observation, mask)
            if player in recorded:
                records.append(Record(player, observation, mask.copy(), _one_hot(action, game.num_actions), None))
        state.apply(player, action)
        plies += 1
    return state, records


def _one_hot(action: int, num_actions: int) -> np.ndarray:
    policy = np.zeros(num_actions, np.float32)
    policy[action] = 1.0
    return policy


def learner_targets(records: list[Record], final: GameState, value_mix: float) -> list[tuple]:
    """``(observation, mask, policy, value)`` per record. The value target is the outcome
    of the record's own seat (``final.returns()[seat]``, never another seat's), mixed
    with the search value where the record has one."""
    outcome = final.returns()
    targets = []
    for r in records:
        value = float(outcome[r.seat])
        if r.search_value is not None:
            value = value_mix * r.search_value + (1.0 - value_mix) * value
        targets.append((r.observation, r.mask, r.policy, value))
    return targets


# -- the training loop ---------------------------------------------------------------------
class ExpertIteration:
    def __init__(self, config: ExpertIterationConfig, run_dir: Path, resume: bool = False):
        from sb3_contrib import MaskablePPO

        from training.pipelines.ppo.vector import policy_kwargs

        self.config = config
        self.run_dir = run_dir
        self.game = make_game(config.env, **config.env_kwargs)
        self.rng = np.random.default_rng(config.seed)
        torch.manual_seed(config.seed)
        start = run_dir / MODEL_FILE if resume else config.init
        if start is not None:
            from agents.trained import load_model

            self.model = load_model(start, self.game)
        else:
            import gymnasium

            env = gymnasium.make(get_entry(config.env).gym_id, **config.env_kwargs)
            self.model = MaskablePPO("MlpPolicy", env, seed=config.seed, device="cpu", policy_kwargs=policy_kwargs(config.policy_kwargs))
        self.policy = self.model.policy
        self.network = PolicyValueNetwork(self.policy)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        self.learner = Learner(self.network, config, self.game.num_actions)
        self.fixed = [make_agent(config.env, spec, self.game, seed=config.seed + i) for i, spec in enumerate(config.pool)]
        self.snapshots: list[tuple[str, Learner]] = []
        self.buffer: deque = deque(maxlen=config.buffer_size)
        self.symmetries = symmetry_maps(self.game) if config.symmetries else [None]
        self.teacher = None if config.teacher is None else TeacherLabels(config.env, config.env_kwargs, config.teacher, config.seed, config.workers)
        self.metadata = json.loads((run_dir / "metadata.json").read_text()) if resume else {"generations": []}

    def bot(self) -> tuple[str, Agent]:
        index = self.rng.integers(len(self.fixed))
        return self.config.pool[index], self.fixed[index]

    def opponent(self) -> tuple[str, Learner | Agent]:
        """The opponent of one game: the learner itself, a snapshot, or a fixed bot."""
        draw = self.rng.random()
        if draw < self.config.self_play_weight:
            return "self", self.learner
        if self.snapshots and draw < self.config.self_play_weight + self.config.snapshot_weight:
            return self.snapshots[self.rng.integers(len(self.snapshots))]
        return self.bot()

    def play_generation(self) -> tuple[list[tuple], dict[str, list[float]]]:
        games, results = [], {}
        config = self.config
        for g in range(config.games_per_generation):
            if self.rng.random() < config.bot_game_weight:  # a teacher game: two bots, both seats kept
                games.append(
                    play_training_game(
                        self.game, [self.bot()[1], self.bot()[1]], self.rng, config.random_opening_plies, {0, 1}, config.random_move_rate
                    )
                )
                continue
            name, opponent = self.opponent()
            seat = g % 2
            seats: list = [opponent, opponent]
            seats[seat] = self.learner
            recorded = {0, 1} if opponent is self.learner or (self.config.imitate_pool and name in self.config.pool) else {seat}
            final, records = play_training_game(self.game, seats, self.rng, config.random_opening_plies, recorded, config.random_move_rate)
            if opponent is not self.learner:
                results.setdefault(name, []).append(float(final.returns()[seat]))
            games.append((final, records))
        if self.teacher is not None:
            records = [record for _, game_records in games for record in game_records]
            for record, values in zip(records, self.teacher.label([r.observation for r in records])):
                record.policy, record.search_value = teacher_targets(values, self.game.num_actions, config.policy_temperature)
        data = [target for final, records in games for target in learner_targets(records, final, config.value_mix)]
        return data, results

    def learn(self, new_positions: int) -> dict[str, float]:
        steps = max(1, int(new_positions * self.config.sample_reuse / self.config.batch_size))
        observations, masks, policies, values = (np.stack(column) for column in zip(*self.buffer))
        observations = torch.as_tensor(observations, dtype=torch.float32)
        masks = torch.as_tensor(masks, dtype=torch.bool)
        policies = torch.as_tensor(policies, dtype=torch.float32)
        values = torch.as_tensor(values, dtype=torch.float32)
        self.policy.train()
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for _ in range(steps):
            index = torch.as_tensor(self.rng.integers(len(self.buffer), size=self.config.batch_size))
            batch_observations, batch_masks, batch_policies = observations[index], masks[index], policies[index]
            symmetry = self.symmetries[self.rng.integers(len(self.symmetries))]
            if symmetry is not None:
                observation_index, action_index, _ = symmetry
                batch_observations = batch_observations[:, observation_index]
                batch_masks, batch_policies = batch_masks[:, action_index], batch_policies[:, action_index]
            features = self.policy.extract_features(batch_observations)
            latent_pi, latent_vf = self.policy.mlp_extractor(features)
            logits = self.policy.action_net(latent_pi).masked_fill(~batch_masks, -1e9)
            policy_loss = -(batch_policies * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            value_loss = ((self.policy.value_net(latent_vf)[:, 0] - values[index]) ** 2).mean()
            loss = policy_loss + self.config.value_loss_weight * value_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            totals["policy_loss"] += policy_loss.item() / steps
            totals["value_loss"] += value_loss.item() / steps
        self.policy.eval()
        return totals

    def add_snapshot(self, generation: int) -> None:
        frozen = copy.deepcopy(self.policy).eval()
        config = dataclasses.replace(self.config, explore_plies=0)
        self.snapshots.append((f"snapshot-{generation}", Learner(PolicyValueNetwork(frozen), config, self.game.num_actions)))
        del self.snapshots[: -self.config.max_snapshots]

    def save(self) -> None:
        tmp = self.run_dir / "model.tmp.zip"
        self.model.save(str(tmp))
        tmp.replace(self.run_dir / MODEL_FILE)
        (self.run_dir / "metadata.json").write_text(json.dumps(self.metadata, indent=2))

    def run(self) -> dict:
        config = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        started, cpu_started = time.perf_counter(), time.process_time()
        previous_wall = self.metadata.get("wall_time_s", 0.0)
        previous_cpu = self.metadata.get("cpu_time_s", 0.0)
        first = len(self.metadata["generations"])
        session = {"first_generation": first, "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "config": config.to_dict()}
        self.metadata.setdefault("sessions", []).append(session)
        try:
            for generation in range(first, config.generations):
                t0 = time.perf_counter()
                data, results = self.play_generation()
                t1 = time.perf_counter()
                self.buffer.extend(data)
                losses = self.learn(len(data))
                t2 = time.perf_counter()
                self.add_snapshot(generation)
                entry = {
                    "generation": generation,
                    "positions": len(data),
                    "play_s": round(t1 - t0, 1),
                    "learn_s": round(t2 - t1, 1),
                    **{k: round(v, 4) for k, v in losses.items()},
                    "score_vs": {name: round(float(np.mean(r)), 3) for name, r in sorted(results.items())},
                    "games_vs": {name: len(r) for name, r in sorted(results.items())},
                }
                self.metadata["generations"].append(entry)
                self.metadata.update(
                    {
                        "env": config.env,
                        "positions": sum(g["positions"] for g in self.metadata["generations"]),
                        "games": config.games_per_generation * len(self.metadata["generations"]),
                        "wall_time_s": round(previous_wall + time.perf_counter() - started, 1),
                        "cpu_time_s": round(previous_cpu + time.process_time() - cpu_started, 1),  # this process only, not the teacher's workers; wall / cpu: the load
                        "updated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    }
                )
                self.save()
                print(json.dumps(entry), flush=True)
                if config.max_minutes is not None and time.perf_counter() - started > config.max_minutes * 60:
                    break
        finally:
            if self.teacher is not None:
                self.teacher.close()
        return self.metadata


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="config file (e.g. configs/invers_expert_iteration.yaml)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR (its own config)")
    parser.add_argument("--init", help="run directory or model .zip to start from (overrides the config)")
    parser.add_argument("--generations", type=int, help="generations in all (overrides the config)")
    parser.add_argument("--max-minutes", type=float, help="wall-time limit (overrides the config)")
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--run-dir", help="where to write the run (default: checkpoints/<env>/<time>-exit-seed<seed>)")
    args = parser.parse_args(argv)
    if bool(args.config) == bool(args.resume):
        parser.error("give either --config FILE or --resume RUN_DIR")
    torch.set_num_threads(1)
    overrides = {"generations": args.generations, "max_minutes": args.max_minutes}
    try:
        if args.resume:
            run_dir = Path(args.resume)
            config = load_config(run_dir / "config.yaml", **overrides)
        else:
            config = load_config(args.config, init=args.init, seed=args.seed, **overrides)
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            run_dir = Path(args.run_dir) if args.run_dir else checkpoint_root() / config.env / f"{stamp}-exit-seed{config.seed}"
            if (run_dir / MODEL_FILE).exists():
                raise ConfigError(f"{run_dir} already holds a run; use --resume to continue it")
        print(f"Expert iteration on {config.env} -> {run_dir}", flush=True)
        metadata = ExpertIteration(config, run_dir, resume=bool(args.resume)).run()
    except (ConfigError, KeyError, ValueError) as error:
        print(f"error: {error.args[0] if error.args else error}", file=sys.stderr)
        return 2
    print(f"{len(metadata['generations'])} generations, {metadata['positions']} positions in {metadata['wall_time_s']:.0f} s; model: {run_dir / MODEL_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
