"""The expert-iteration pipeline's config schema.

Its configs are ``configs/<env>_expert_iteration.yaml`` and ``configs/invers_distill.yaml``;
every key is documented beside its field; :mod:`training.pipelines.expert_iteration.learner`
describes the method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.core import Game
from training.framework.config import EvaluationConfig, LearningCurveConfig, RunConfig
from training.framework.schema import (
    AGENT_SPECS,
    BOOL,
    OPTIONAL_TEXT,
    ConfigError,
    integer,
    number,
    optional,
    section,
    setting,
    table,
)
from training.pipelines.network import POLICY_SETTINGS


@dataclass
class ExpertIterationConfig(RunConfig):
    #: run directory or .zip to start from (e.g. a PPO run); null: a fresh network
    init: str | None = setting(None, OPTIONAL_TEXT)
    policy_kwargs: dict[str, Any] = setting(
        {"net_arch": [256, 256], "activation_fn": "relu"}, table(POLICY_SETTINGS, "policy_kwargs")
    )
    generations: int = setting(50, integer(1))  #: the budget
    #: stop after the generation that passes this wall time
    max_minutes: float | None = setting(None, optional(number(above=0)))
    games_per_generation: int = setting(40, integer(1))
    search_depth: int = setting(2, integer(1))  #: plies the learner searches while playing (every root move exact)
    random_opening_plies: int = setting(2, integer(0))
    #: the learner samples its moves (softmax of search values) until this ply
    explore_plies: int = setting(8, integer(0))
    explore_temperature: float = setting(0.1, number(above=0))
    pool: list[str] = setting(["search:depth=1", "search:depth=2"], AGENT_SPECS)  #: fixed opponents
    #: also learn from the fixed bots' positions (their move, their seat's outcome)
    imitate_pool: bool = setting(True, BOOL)
    #: share of games between two bots of the pool, without the learner (both seats imitated:
    #: games between strong players whose outcomes say more about positions than a
    #: beginner's losses do)
    bot_game_weight: float = setting(0.0, number(0, 1))
    self_play_weight: float = setting(0.4, number(0, 1))  #: share of (the other) games against the learner itself
    #: share of games against a frozen earlier generation (when there is one)
    snapshot_weight: float = setting(0.2, number(0, 1))
    max_snapshots: int = setting(5, integer(1))
    policy_temperature: float = setting(0.1, number(above=0))  #: softness of the policy target over search values
    #: weight of the search value (vs the game's outcome) in the value target
    value_mix: float = setting(0.5, number(0, 1))
    buffer_size: int = setting(100_000, integer(1))
    batch_size: int = setting(256, integer(1))
    sample_reuse: float = setting(4.0, number(above=0))  #: gradient samples per new position each generation
    learning_rate: float = setting(1e-3, number(above=0))
    weight_decay: float = setting(1e-4, number(minimum=0))
    value_loss_weight: float = setting(1.0, number(minimum=0))
    #: agent spec of a bot with ``move_values(state)`` that labels every recorded position
    #: (null: the learner's own search labels its positions, the bots' are imitated)
    teacher: str | None = setting(None, OPTIONAL_TEXT)
    #: games a unit of work plays and labels (:mod:`~training.pipelines.expert_iteration.units`); a
    #: generation's games are cut into such units whatever runs them, so its positions do not depend
    #: on the workers or the cluster
    games_per_unit: int = setting(4, integer(1))
    #: local processes playing and labelling the units (1: the driver's own process); without
    #: ``oversubscribe``, at most the CPUs this process may use
    workers: int = setting(1, integer(1))
    #: local workers may outnumber the CPUs (they then share the cores); false: such a run is refused
    oversubscribe: bool = setting(False, BOOL)
    #: a Ray cluster whose CPUs play the units as tasks ("HOST:PORT", or "auto": the cluster started
    #: last on this machine); null: the RAY_ADDRESS environment variable's, or without it the local
    #: ``workers``. The learner stays in the driver.
    address: str | None = setting(None, OPTIONAL_TEXT)
    #: after this many generations the teacher becomes the network's own search, frozen then
    #: (``ppo+search:depth=<self_teacher_depth>`` on the network of that generation, saved in the
    #: run folder as ``teacher/model.zip``): a distillation's second stage, once the network inside
    #: its search outplays the first teacher (null: one teacher throughout)
    self_teacher_from: int | None = setting(None, optional(integer(1)))
    self_teacher_depth: int = setting(2, integer(1))  #: the frozen network's search depth as the teacher
    #: every this many generations after ``self_teacher_from``, the network of that generation is
    #: frozen again and its search becomes the teacher (a third stage, a fourth...; null: once)
    self_teacher_every: int | None = setting(None, optional(integer(1)))
    #: the pool from ``self_teacher_from`` on (null: ``pool``); ``{teacher}`` in a spec stands for the
    #: frozen network's file, e.g. ``"ppo+search:depth=2,path={teacher}"``, ``"ppo:path={teacher}"``
    self_teacher_pool: list[str] | None = setting(None, optional(AGENT_SPECS))
    #: share of moves after the opening that either seat of a training game plays
    #: uniformly at random, so that positions after mistakes are seen too
    random_move_rate: float = setting(0.0, number(0, 1))
    symmetries: bool = setting(True, BOOL)  #: turn each minibatch by a random symmetry of the game
    checkpoint_every: int = setting(1, integer(1))  #: generations between checkpoints
    evaluation: EvaluationConfig = section(EvaluationConfig, games=200, random_opening_plies=2)
    learning_curve: LearningCurveConfig = section(LearningCurveConfig)

    def agent_specs(self) -> dict[str, list[str]]:
        return {
            "pool": self.pool,
            "teacher": [self.teacher] if self.teacher else [],
            **({"self_teacher_pool": self.self_teacher_pool} if self.self_teacher_pool else {}),
            **super().agent_specs(),
        }

    def check(self, game: Game) -> None:
        if game.num_players != 2:
            raise ConfigError(
                f"expert iteration plays two-player games; env_kwargs set {self.env} up for {game.num_players}"
            )
        if self.self_teacher_from is not None and self.teacher is None:
            raise ConfigError(
                "self_teacher_from hands a teacher's labels over to the network's own search: "
                "it needs a first teacher (teacher)"
            )
        if self.self_teacher_pool is not None and self.self_teacher_from is None:
            raise ConfigError("self_teacher_pool is the pool from self_teacher_from on: set self_teacher_from too")
        if self.self_teacher_every is not None and self.self_teacher_from is None:
            raise ConfigError("self_teacher_every freezes the teacher again after self_teacher_from: set that too")
        if self.self_play_weight + self.snapshot_weight > 1.0:
            raise ConfigError(
                "self_play_weight + snapshot_weight must be at most 1, "
                f"got {self.self_play_weight + self.snapshot_weight}"
            )
