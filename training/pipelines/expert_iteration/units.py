"""Expert iteration's unit of work: a chunk of one generation's games, played and labelled anywhere.

A generation's ``games_per_generation`` games are cut into chunks of ``games_per_unit``.
A unit (:func:`play_unit`) plays the games of its chunk, labels every kept position with
the teacher's value of each legal move, and returns the training targets. Everything it
draws on travels with it in a :class:`GenerationPlan`, made once a generation by the driver:

* the resolved config, and the stage the generation is played in (its teacher, its pool);
* the learner's weights, and the snapshots', where games with the learner are played;
* the network files the agent specs name (``ppo:path=...``, ``ppo+search:...,path=...``,
  the frozen teacher): their bytes, which a unit writes once into a folder of its machine's
  temp directory named by their digest and plays from there, so a node of a cluster needs
  the package installed but none of the driver's files.

Its random streams come from (run seed, generation, chunk) alone: the games' generator and a
seed for every bot and the teacher, reseeded at the start of the unit. A search keeps nothing
from one search to the next (:mod:`agents.search`), so a unit gives the same positions, bit for
bit, in the driver's process, in a local worker process or in a Ray task on another machine,
and a learner that takes the units in chunk order learns the same weights however many ran at once
(:mod:`training.pipelines.expert_iteration.runners` runs them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.network import PolicyValueNetwork
from agents.registry import NETWORK_AGENTS, make_agent, parse_spec
from agents.run_folder import MODEL_FILE, checkpoint_file
from envs.core import Game
from envs.registry import make_game
from training.framework import rng as global_rngs
from training.pipelines.expert_iteration.config import ExpertIterationConfig, Stage
from training.pipelines.expert_iteration.play import Learner, learner_targets, play_training_game
from training.pipelines.network import build_policy
from training.teacher.labels import move_values_of, teacher_targets

#: where a unit keeps the network files a plan carries, one folder per digest
MODELS_FOLDER = "tabletop-expert-iteration-models"


@dataclass(frozen=True)
class GenerationPlan:
    """What every unit of one generation shares (sent once a generation: to the object store on Ray)."""

    config: ExpertIterationConfig
    generation: int
    #: its stage, ``{frozen}`` named as the driver names the frozen network: the teacher (None: the
    #: learner's own search), the fixed bots (results are keyed by their specs) and the games' shares
    stage: Stage
    #: the network files those specs name: the driver's path -> (digest, bytes)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    #: the learner's weights and each snapshot's (name, weights); empty where no game needs them
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    snapshots: list[tuple[str, dict[str, np.ndarray]]] = field(default_factory=list)

    @property
    def units(self) -> int:
        """The generation's units: its games in chunks of ``games_per_unit``."""
        return -(-self.config.games_per_generation // self.config.games_per_unit)

    def games_of(self, chunk: int) -> range:
        """The game numbers (within the generation) of unit ``chunk``."""
        per_unit = self.config.games_per_unit
        return range(chunk * per_unit, min((chunk + 1) * per_unit, self.config.games_per_generation))


@dataclass
class UnitResult:
    """What a unit gives back: its targets as stacked columns, its games' results, its cost."""

    chunk: int
    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    results: dict[str, list[float]]  #: the learner's result against each opponent (pool name)
    games: int
    cpu_s: float  #: CPU time of the process that ran it
    wall_s: float
    host: str  #: the machine it ran on

    @property
    def positions(self) -> int:
        return len(self.values)

    def targets(self) -> list[tuple]:
        """``(observation, mask, policy, value)`` per position, as the replay buffer holds them."""
        return list(zip(self.observations, self.masks, self.policies, self.values, strict=True))


def plan_generation(
    config: ExpertIterationConfig,
    generation: int,
    stage: Stage,
    policy: torch.nn.Module,
    snapshots: list[tuple[str, torch.nn.Module]],
) -> GenerationPlan:
    """The plan of ``generation`` in ``stage``: the files its specs name, and the networks the games need
    (the learner's and the snapshots' weights only where some games are not between two bots)."""
    learner_games = stage.learner_plays
    files = {}
    for spec in [stage.teacher or "", *stage.pool]:
        path = network_file(spec)
        if path is not None and path not in files:
            data = checkpoint_file(path, MODEL_FILE).read_bytes()
            files[path] = hashlib.sha256(data).hexdigest(), data
    return GenerationPlan(
        config=config,
        generation=generation,
        stage=stage,
        files=files,
        weights=numpy_weights(policy) if learner_games else {},
        snapshots=[(name, numpy_weights(network)) for name, network in snapshots] if learner_games else [],
    )


def network_file(spec: str) -> str | None:
    """The file or run folder that a network agent's spec names with ``path=`` (None: no such option)."""
    if not spec:
        return None
    name, options = parse_spec(spec)
    path = options.get("path")
    return str(path) if name in NETWORK_AGENTS and path is not None else None


def numpy_weights(policy: torch.nn.Module) -> dict[str, np.ndarray]:
    return {name: tensor.detach().cpu().numpy().copy() for name, tensor in policy.state_dict().items()}


def unit_seeds(
    config: ExpertIterationConfig, generation: int, chunk: int, agents: int
) -> tuple[np.random.Generator, list[int]]:
    """Unit ``chunk``'s generator for its games and a seed for each of its ``agents`` (bots and
    teacher), from (run seed, generation, chunk) alone."""
    games, bots = np.random.SeedSequence([config.seed, generation, chunk]).spawn(2)
    return np.random.default_rng(games), [int(seed) for seed in bots.generate_state(agents)]


class _Worker:
    """What one process keeps between units: the game, and the agents built from specs (a network
    agent loads its file once), dropped once no plan names them."""

    def __init__(self):
        self.key: tuple | None = None
        self.game: Game | None = None
        self.agents: dict[str, Agent] = {}
        self.networks: dict[int, torch.nn.Module] = {}
        self.local: dict[str, str] = {}

    def prepare(self, plan: GenerationPlan) -> None:
        config = plan.config
        key = (config.env, repr(sorted(config.env_kwargs.items())), repr(config.policy_kwargs))
        if key != self.key:
            self.key, self.game, self.agents, self.networks = key, make_game(config.env, **config.env_kwargs), {}, {}
        local = {path: str(materialise(digest, data)) for path, (digest, data) in plan.files.items()}
        wanted = {self.local_spec(spec, local) for spec in [plan.stage.teacher or "", *plan.stage.pool] if spec}
        self.agents = {spec: agent for spec, agent in self.agents.items() if spec in wanted}
        for spec in wanted - set(self.agents):
            self.agents[spec] = make_agent(config.env, spec, self.game, seed=0)
        self.local = local

    @staticmethod
    def local_spec(spec: str, local: dict[str, str]) -> str:
        path = network_file(spec)
        return spec if path is None or path not in local else spec.replace(f"path={path}", f"path={local[path]}")

    def agent(self, spec: str) -> Agent:
        return self.agents[self.local_spec(spec, self.local)]

    def learner(self, plan: GenerationPlan, weights: dict[str, np.ndarray], slot: int = 0) -> Learner:
        """A learner on ``weights`` in the learner's search: slot 0 the learner's own network, slot
        ``k`` the ``k``-th snapshot's (each slot a network of its own, so that none overwrites another)."""
        if slot not in self.networks:
            saved = global_rngs.capture()  # building a policy seeds the global generators: the driver's stay
            self.networks[slot] = build_policy(self.game, plan.config.policy_kwargs, plan.config.seed)
            global_rngs.restore(saved)
        policy = self.networks[slot]
        policy.load_state_dict({name: torch.tensor(value) for name, value in weights.items()})  # Ray's are read-only
        policy.eval()
        return Learner(PolicyValueNetwork(policy), plan.config, self.game)


_worker = _Worker()


def materialise(digest: str, data: bytes) -> Path:
    """The file holding ``data`` under this machine's temp directory (written once, atomically)."""
    path = Path(tempfile.gettempdir()) / MODELS_FOLDER / digest / MODEL_FILE
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)
    return path


def play_unit(plan: GenerationPlan, chunk: int) -> UnitResult:
    """Unit ``chunk`` of ``plan``'s generation: its games played, their kept positions labelled."""
    started, cpu_started = time.perf_counter(), time.process_time()
    config = plan.config
    torch.set_num_threads(config.torch_threads)  # the same threads wherever it runs: the same float sums
    _worker.prepare(plan)
    game = _worker.game
    rng, seeds = unit_seeds(config, plan.generation, chunk, 1 + len(plan.stage.pool))
    teacher = _worker.agent(plan.stage.teacher) if plan.stage.teacher else None
    bots = [_worker.agent(spec) for spec in plan.stage.pool]
    for agent, seed in zip([teacher, *bots], seeds, strict=True):
        if agent is not None:
            agent.reset(seed)
    games = UnitGames(plan, game, rng, bots)
    played = [games.play(g) for g in plan.games_of(chunk)]
    if teacher is not None:
        label(played, teacher, game, config)
    targets = [target for final, records in played for target in learner_targets(records, final, config.value_mix)]
    observations, masks, policies, values = columns(targets, game)
    return UnitResult(
        chunk=chunk,
        observations=observations,
        masks=masks,
        policies=policies,
        values=values,
        results=games.results,
        games=len(played),
        cpu_s=time.process_time() - cpu_started,
        wall_s=time.perf_counter() - started,
        host=os.uname().nodename,
    )


def columns(targets: list[tuple], game: Game) -> tuple[np.ndarray, ...]:
    """``targets`` (``(observation, mask, policy, value)`` each) as four stacked columns (empty ones
    of the right width where a unit kept no position)."""
    if not targets:
        state = game.new_initial_state(np.random.default_rng(0))
        return (
            np.empty((0, *state.observe(0).shape), state.observe(0).dtype),
            np.empty((0, game.num_actions), bool),
            np.empty((0, game.num_actions), np.float32),
            np.empty(0),
        )
    observations, masks, policies, values = zip(*targets, strict=True)
    return np.stack(observations), np.stack(masks), np.stack(policies), np.asarray(values, dtype=np.float64)


class UnitGames:
    """The games of one unit: who plays each, and the learner's results."""

    def __init__(self, plan: GenerationPlan, game: Game, rng: np.random.Generator, bots: list[Agent]):
        self.plan, self.config, self.stage = plan, plan.config, plan.stage
        self.game, self.rng, self.bots = game, rng, bots
        self.results: dict[str, list[float]] = {}
        self._learner: Learner | None = None
        self._snapshots: list[tuple[str, Learner]] | None = None

    @property
    def learner(self) -> Learner:
        if self._learner is None:
            self._learner = _worker.learner(self.plan, self.plan.weights)
        return self._learner

    def bot(self) -> tuple[str, Agent]:
        index = self.rng.integers(len(self.bots))
        return self.stage.pool[index], self.bots[index]

    def opponent(self) -> tuple[str, Learner | Agent]:
        """The opponent of one learner game: the learner itself, a snapshot, or a fixed bot."""
        draw = self.rng.random()
        if draw < self.stage.self_play_weight:
            return "self", self.learner
        if self.plan.snapshots and draw < self.stage.self_play_weight + self.stage.snapshot_weight:
            index = int(self.rng.integers(len(self.plan.snapshots)))
            name, weights = self.plan.snapshots[index]
            frozen = dataclasses.replace(self.plan, config=dataclasses.replace(self.config, explore_plies=0))
            return name, _worker.learner(frozen, weights, slot=1 + index)
        return self.bot()

    def play(self, g: int) -> tuple:
        """Game ``g`` of the generation: (final state, records); the learner's result goes to ``results``."""
        config = self.config
        if self.rng.random() < self.stage.bot_game_weight:  # a teacher game: two bots, both seats kept
            return play_training_game(
                self.game,
                [self.bot()[1], self.bot()[1]],
                self.rng,
                config.random_opening_plies,
                {0, 1},
                config.random_move_rate,
            )
        name, opponent = self.opponent()
        seat = g % 2
        seats: list[Any] = [opponent, opponent]
        seats[seat] = self.learner
        kept = {0, 1} if opponent is self.learner or (config.imitate_pool and name in self.stage.pool) else {seat}
        final, records = play_training_game(
            self.game, seats, self.rng, config.random_opening_plies, kept, config.random_move_rate
        )
        if opponent is not self.learner:
            self.results.setdefault(name, []).append(float(final.returns()[seat]))
        return final, records


def label(played: list[tuple], teacher: Agent, game: Game, config: ExpertIterationConfig) -> None:
    """The teacher's targets on every kept position of ``played``, in one call where the teacher
    values many positions at once."""
    records = [record for _, game_records in played for record in game_records]
    if not records:
        return
    values = move_values_of(teacher, game, np.asarray([record.observation for record in records]))
    for record, move_values in zip(records, values, strict=True):
        record.policy, record.search_value = teacher_targets(move_values, game.num_actions, config.policy_temperature)
