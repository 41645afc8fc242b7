"""The PPO pipeline's config schema: ``configs/<env>.yaml``, the single source of its hyperparameters.

Every key is a declared field with its check (:mod:`training.framework.schema`); ``ppo``
and ``policy_kwargs`` have a table of the keys they accept (MaskablePPO's arguments, and
the policy network's settings: :mod:`training.pipelines.network`), and
:meth:`PPOConfig.check` holds the rules that tie keys together (players and opponents,
self-play, full minibatches).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from envs.aec import REWARD_MODES
from envs.core import Game
from training.framework.config import TABLES, EvaluationConfig, LearningCurveConfig, RunConfig, make_table
from training.framework.schema import (
    AGENT_SPECS,
    BOOL,
    OPTIONAL_TEXT,
    TEXT,
    Check,
    ConfigError,
    integer,
    number,
    one_of,
    optional,
    section,
    setting,
    table,
)
from training.pipelines.network import POLICY_SETTINGS

#: MaskablePPO arguments a config may set, and what each must be.
PPO_SETTINGS: dict[str, Check] = {
    "learning_rate": number(above=0),
    "n_steps": integer(1),
    "batch_size": integer(2),  # SB3 normalizes advantages per mini-batch: one sample is an error
    "n_epochs": integer(1),
    "gamma": number(0, 1),
    "gae_lambda": number(0, 1),
    "clip_range": number(above=0),
    "clip_range_vf": optional(number(above=0)),
    "normalize_advantage": BOOL,
    "ent_coef": number(minimum=0),
    "vf_coef": number(minimum=0),
    "max_grad_norm": number(above=0),
    "target_kl": optional(number(above=0)),
    "stats_window_size": integer(1),
}


@dataclass
class SelfPlayConfig:
    """Opponent pool for multi-player training (see :mod:`training.pipelines.ppo.self_play`)."""

    enabled: bool = setting(False, BOOL)
    pool: list[str] = setting(["random"], AGENT_SPECS)  #: fixed members (agent specs)
    snapshot_every: int = setting(50_000, integer(1))  #: learner steps between frozen snapshots added to the pool
    max_snapshots: int = setting(5, integer(1))  #: the oldest snapshot leaves the pool beyond this many
    #: probability that an episode's opponent is a snapshot (when any exist)
    snapshot_weight: float = setting(0.5, number(0, 1))


@dataclass
class WarmStartConfig:
    """Start from a bot's play before PPO (see :mod:`training.pipelines.ppo.warm_start`)."""

    enabled: bool = setting(False, BOOL)
    teacher: str = setting("heuristic", TEXT)  #: agent spec of the teacher: a bot, or an exact solver (``optimal``)
    episodes: int = setting(2000, integer(1))  #: teacher episodes recorded as demonstrations
    #: games the teacher plays at once (a bot with ``act_batch`` decides them all in one
    #: call): more than the training env's ``n_envs`` makes tens of thousands of episodes
    #: cheap; 0: in the training env itself
    envs: int = setting(0, integer(0))
    epochs: int = setting(10, integer(1))  #: behaviour-cloning passes over the demonstrations
    batch_size: int = setting(512, integer(1))
    learning_rate: float = setting(0.001, number(above=0))  #: of behaviour cloning (PPO keeps its own)
    value_coef: float = setting(0.5, number(minimum=0))  #: weight of the critic's loss on the teacher's returns
    #: initial weight of the cross-entropy towards the teacher during PPO
    guide_coef: float = setting(1.0, number(minimum=0))
    guide_decay_steps: int = setting(1_000_000, integer(1))  #: PPO steps over which that weight falls linearly to 0
    #: above 0: the teacher values every move (a search, or Inverted Dice's exact solver in points)
    #: and is imitated through the softmax of its values at this temperature; 0: through the
    #: move it plays
    temperature: float = setting(0.0, number(minimum=0))
    #: with temperature > 0: the search whose move values label the decisions (null: the teacher)
    label_with: str | None = setting(None, OPTIONAL_TEXT)
    workers: int = setting(1, integer(1))  #: processes labelling the decisions (temperature > 0)
    #: the tables the teacher plays at, each a mapping of game options overriding ``env_kwargs``
    #: (e.g. ``[{num_players: 2}, {num_players: 4}]``: a clone for every table it will meet, though
    #: PPO trains at ``env_kwargs``' own), ``episodes`` split evenly among them; each table has the
    #: training env's opponents (or self-play pool) in its other seats. Empty: the training table only
    tables: list[dict[str, Any]] = setting([], TABLES)


@dataclass
class PPOConfig(RunConfig):
    total_timesteps: int = setting(100_000, integer(1))
    n_envs: int = setting(8, integer(1))
    #: "batched": the native batched env, all games stepped in one call in compiled code
    #: (training/pipelines/ppo/batched_vec_env.py); "game": one process, the games' own envs
    #: stepped one by one without wrappers (training/pipelines/ppo/game_vec_env.py);
    #: "dummy": SB3's DummyVecEnv over gymnasium.make and Monitor; "subproc": one process per env
    vec_env: str = setting("game", one_of("batched", "game", "dummy", "subproc"))
    #: running reward scaling (VecNormalize); observations are already in [0, 1]
    normalize_reward: bool = setting(True, BOOL)
    #: the learner's reward: "score" (points as they are gained), "margin" (the change of its
    #: lead over the best other player) or "win" (+1/-1/0 at the end);
    #: empty: the env's default for the player count (evaluation always counts wins)
    reward_mode: str = setting("", one_of("", *REWARD_MODES))
    opponents: list[str] = setting(["random"], AGENT_SPECS)  #: other seats, when self-play is off
    policy_kwargs: dict[str, Any] = setting({}, table(POLICY_SETTINGS, "policy_kwargs"))
    ppo: dict[str, Any] = setting({}, table(PPO_SETTINGS, "ppo"))
    #: timesteps between checkpoints (see training/framework/checkpoint.py)
    checkpoint_every: int = setting(100_000, integer(1))
    evaluation: EvaluationConfig = section(EvaluationConfig)
    self_play: SelfPlayConfig = section(SelfPlayConfig)
    warm_start: WarmStartConfig = section(WarmStartConfig)
    learning_curve: LearningCurveConfig = section(LearningCurveConfig)

    def agent_specs(self) -> dict[str, list[str]]:
        return {
            "opponents": self.opponents,
            "self_play.pool": self.self_play.pool,
            "warm_start.teacher": [self.warm_start.teacher] if self.warm_start.enabled else [],
            "warm_start.label_with": [self.warm_start.label_with]
            if self.warm_start.enabled and self.warm_start.label_with
            else [],
            **super().agent_specs(),
        }

    def check(self, game: Game) -> None:
        if self.self_play.enabled and self.vec_env == "subproc":
            raise ConfigError("self_play shares its opponent pool in one process: use vec_env: game or dummy")
        self._check_seats(game, "env_kwargs")
        if self.warm_start.enabled:
            self._check_warm_start_tables(game)
        self._check_rollout()

    def _check_seats(self, game: Game, key: str) -> None:
        """The other seats of ``game`` (set up by ``key``) can be filled: by the self-play pool
        where there are any, else by 1 or one per seat of ``opponents``."""
        others = game.num_players - 1
        if self.self_play.enabled and others == 0:
            raise ConfigError(f"self_play needs a game with several players; {key} set {self.env} up for one")
        if others and not self.self_play.enabled and len(self.opponents) not in (1, others):
            raise ConfigError(
                f"opponents needs 1 or {others} agent specs for {game.num_players} players ({key}), "
                f"got {self.opponents}"
            )

    def _check_warm_start_tables(self, game: Game) -> None:
        """Every table of ``warm_start.tables`` is a game the learner can play, with its seats
        filled and at least one teacher episode; its rewards unscaled (each table's games would
        scale them by statistics of their own, not those PPO trains with)."""
        tables = self.warm_start.tables
        if not tables:
            return
        if self.normalize_reward:
            raise ConfigError(
                "warm_start.tables: the demonstrations' returns would be scaled by each table's own reward "
                "statistics, not the training table's: set normalize_reward: false"
            )
        if self.warm_start.episodes < len(tables):
            raise ConfigError(
                f"warm_start.episodes ({self.warm_start.episodes}) must give each of the {len(tables)} "
                "warm_start.tables at least one episode"
            )
        for options in tables:
            key = f"warm_start.tables {options}"
            self._check_seats(make_table(self, game, options, "warm_start.tables"), key)

    def _check_rollout(self) -> None:
        """Every PPO mini-batch full: ``batch_size`` divides a rollout of ``n_steps x n_envs`` steps."""
        from sb3_contrib import MaskablePPO  # noqa: PLC0415 (only for its defaults; sb3 takes seconds to import)

        defaults = inspect.signature(MaskablePPO.__init__).parameters
        n_steps = self.ppo.get("n_steps", defaults["n_steps"].default)
        batch_size = self.ppo.get("batch_size", defaults["batch_size"].default)
        rollout = n_steps * self.n_envs
        if rollout % batch_size:
            raise ConfigError(
                f"ppo.batch_size ({batch_size}) must divide the rollout of ppo.n_steps x n_envs = "
                f"{n_steps} x {self.n_envs} = {rollout} steps, so that every mini-batch is full"
            )
