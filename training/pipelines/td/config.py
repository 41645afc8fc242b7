"""The turn-value TD pipeline's config schema: ``configs/<env>_td.yaml``."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from agents.registry import TURN_VALUE_AGENTS
from agents.turn_value import TurnValueAgent, load_turn_value
from envs.core import Game
from training.framework.config import EvaluationConfig, LearningCurveConfig, RunConfig
from training.framework.schema import (
    BOOL,
    OPTIONAL_TEXT,
    TEXT,
    ConfigError,
    integer,
    list_of,
    number,
    section,
    setting,
)


@dataclass
class TDWarmStart:
    teacher: str = setting("heuristic", TEXT)  #: agent spec of the teacher (a bot, not a solver)
    games: int = setting(2000, integer(0))  #: teacher games whose returns V is first fitted to; 0: none
    epochs: int = setting(10, integer(1))  #: passes over the teacher's turns
    #: also fit V to the teacher's own estimate of the sheets each turn's writes could
    #: leave, where the teacher has one (agents.turn_value.TurnValueAgent.teacher_values)
    teacher_values: bool = setting(True, BOOL)
    #: above 0: each teacher game writes one turn (drawn uniformly) into one of the ``explore_top``
    #: best categories of that roll instead of the teacher's, and only the turns after it are
    #: kept (training.pipelines.td.explore); the games are played in batch
    explore_top: int = setting(0, integer(0))


@dataclass
class TDConfig(RunConfig):
    games: int = setting(20_000, integer(0))  #: the budget: self-play games after the warm start (0: none)
    #: the value network's hidden layers ([]: linear in the features)
    hidden: list[int] = setting([256, 256], list_of(integer(1), non_empty=False))
    learning_rate: float = setting(0.001, number(above=0))
    batch_size: int = setting(512, integer(1))
    games_per_iteration: int = setting(200, integer(1))
    updates_per_iteration: int = setting(100, integer(1))
    replay_size: int = setting(100_000, integer(1))  #: turn samples kept (the newest)
    td_lambda: float = setting(0.3, number(0, 1))
    checkpoint_every: int = setting(2000, integer(1))  #: games between checkpoints
    #: a turn-value network (a run folder or its value.pt) V starts from instead of its baseline,
    #: e.g. an earlier run's (its hidden layers must be ``hidden``); null: a fresh network
    init: str | None = setting(None, OPTIONAL_TEXT)
    #: the self-play agent's lookahead (agents.turn_value, ``td:lookahead=k``): with k >= 2 the
    #: decision-time search plays the training games and V learns the value of the search's play
    #: (expert iteration); 0: the one-ply planner plays them
    lookahead: int = setting(0, integer(0))
    warm_start: TDWarmStart = section(TDWarmStart)
    learning_curve: LearningCurveConfig = section(LearningCurveConfig, every=2000, games=300)
    evaluation: EvaluationConfig = section(EvaluationConfig, opponents=["heuristic", "random"])

    def agent_specs(self) -> dict[str, list[str]]:
        return {"warm_start.teacher": [self.warm_start.teacher], **super().agent_specs()}

    def check(self, game: Game) -> None:
        agent_class = td_agent_class(self.env)
        if game.num_players != 1:
            raise ConfigError(f"env_kwargs: the turn-value agent plays solitaire, got {game.num_players} players")
        if self.lookahead == 1:
            raise ConfigError("lookahead: 1 ranks a single write, the planner's own; give 0 (off) or 2 or more")
        if self.lookahead and not agent_class.looks_ahead:
            raise ConfigError(f"lookahead: the {self.env} turn-value agent has no lookahead")
        if self.init is not None:
            try:
                net = load_turn_value(Path(self.init), self.env, agent_class.num_features, agent_class.feature_version)
            except ValueError as error:
                raise ConfigError(f"init: {error}") from None
            if list(net.hidden) != list(self.hidden):
                raise ConfigError(f"init: {self.init} has hidden layers {list(net.hidden)}, the config {self.hidden}")
        explore = self.warm_start.explore_top
        if explore and not agent_class.explores_writes:
            raise ConfigError(f"warm_start.explore_top: the {self.env} turn-value agent does not explore writes")
        if explore and self.warm_start.teacher_values:
            raise ConfigError(
                "warm_start.explore_top fits V to the teacher's returns from explored sheets: "
                "set warm_start.teacher_values to false"
            )


def td_agent_class(env: str) -> type[TurnValueAgent]:
    """The turn-value agent class of ``env`` (agent spec ``td``), or a ConfigError."""
    if env not in TURN_VALUE_AGENTS:
        raise ConfigError(f"{env} has no turn-value agent; train_td.py trains {sorted(TURN_VALUE_AGENTS)}")
    module_name, class_name = TURN_VALUE_AGENTS[env].split(":")
    return getattr(importlib.import_module(module_name), class_name)
