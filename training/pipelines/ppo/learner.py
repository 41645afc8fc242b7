"""The PPO pipeline: MaskablePPO (sb3-contrib) on a game's Gymnasium env, its opponents in the other seats.

The learner is :class:`~training.pipelines.ppo.warm_start.TeacherGuidedPPO` (MaskablePPO
plus an optional decaying guide towards a teacher's demonstrations) on the vectorized
env of the config (:mod:`training.pipelines.ppo.vector`), against fixed opponents or a
self-play pool (:mod:`training.pipelines.ppo.self_play`), optionally warm-started from a
bot (:mod:`training.pipelines.ppo.warm_start`). Everything else (run folder,
checkpoints, resume, stop, curve, evaluation) is the run framework's.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from stable_baselines3.common.logger import Logger

from agents.run_folder import MODEL_FILE, CheckpointError
from agents.trained import PolicyAgent
from envs.registry import make_game
from training.framework.checkpoint import Checkpoint
from training.framework.run import Override, Pipeline, Session
from training.pipelines.network import policy_kwargs
from training.pipelines.ppo import checkpoint as ppo_checkpoint
from training.pipelines.ppo.callbacks import RunCallback, SinkOutput
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.vector import make_training_env
from training.pipelines.ppo.warm_start import Table, TeacherGuidedPPO, resume_guide, warm_start


def sink_logger(session: Session) -> Logger:
    """SB3's logger, writing to the run's metrics sink (and nowhere else)."""
    return Logger(folder=None, output_formats=[SinkOutput(session.metrics)])


class PPO(Pipeline):
    name = "ppo"
    schema = PPOConfig
    unit = "timesteps"
    budget_key = "total_timesteps"
    default_config = "{env}"
    checkpoint_required = (MODEL_FILE,)
    overrides = (
        Override(
            "timesteps",
            "total_timesteps",
            int,
            "total timesteps; a shorter run than the config's also shortens its warm start",
        ),
        Override("warm-start-episodes", "warm_start.episodes", int, "teacher episodes of the warm start"),
    )

    @classmethod
    def fit_to_budget(cls, config: PPOConfig, planned: int, overridden: set[str]) -> str | None:
        """A run shorter than the config's gets a warm start shorter in proportion (never below one
        episode per env): a 20,000-step try of an 800,000-step config should not spend most of its
        time on the teacher's games."""
        settings = config.warm_start
        if not settings.enabled or "warm_start.episodes" in overridden or config.total_timesteps >= planned:
            return None
        least = max(config.n_envs, len(settings.tables))  # an episode per env, and per table
        episodes = max(least, math.ceil(settings.episodes * config.total_timesteps / planned))
        if episodes >= settings.episodes:
            return None
        note = (
            f"Warm start: {episodes} teacher episodes, the config's {settings.episodes} scaled to "
            f"{config.total_timesteps:,} of its {planned:,} steps (--warm-start-episodes N sets them)"
        )
        settings.episodes = episodes
        return note

    def __init__(self, config: PPOConfig, run_dir: Path, checkpoint: Checkpoint | None):
        super().__init__(config, run_dir, checkpoint)
        self.resumed = checkpoint is not None
        self.warm_started = False
        self.warm_start_summary = None
        self.venv, self.self_play = make_training_env(config, seed=checkpoint is None)
        if checkpoint is not None:
            if config.normalize_reward:
                self.venv = ppo_checkpoint.load_reward_normalizer(checkpoint, self.venv.venv)
            self.model = ppo_checkpoint.load_model(checkpoint, self.venv, TeacherGuidedPPO)
        else:
            self.model = TeacherGuidedPPO(
                "MlpPolicy",
                self.venv,
                seed=config.seed,
                device="cpu",
                verbose=0,
                policy_kwargs=policy_kwargs(config.policy_kwargs),
                **config.ppo,
            )

    @property
    def done(self) -> int:
        return int(self.model.num_timesteps)

    def prepare(self, session: Session) -> None:
        """The warm start, when the config has one."""
        config = self.config
        if not config.warm_start.enabled:
            return
        self.model.set_logger(sink_logger(session))  # the cloning logs its losses
        labels = (
            f", every decision valued by {config.warm_start.label_with or config.warm_start.teacher}"
            if config.warm_start.temperature > 0
            else ""
        )
        split = f" split among the tables {config.warm_start.tables}" if config.warm_start.tables else ""
        print(
            f"Warm start: {config.warm_start.episodes} episodes of {config.warm_start.teacher}{labels}{split}, then "
            f"{config.warm_start.epochs} epochs of cloning",
            flush=True,
        )
        tables = self._demonstration_tables()
        try:
            self.warm_start_summary = warm_start(
                self.model,
                self.venv,
                config.warm_start,
                config.env,
                self.game,
                config.seed,
                self.run_dir,
                say=session.routine,
                stop_requested=lambda: session.stop_requested,
                tables=tables,
            )
        finally:
            for table in tables or []:
                table.venv.close()
        self.warm_started = True
        print(f"Warm start: {self.warm_start_summary}")

    def _demonstration_tables(self) -> list[Table] | None:
        """Where the teacher plays, when not in the training env itself: one env per
        ``warm_start.tables``, or the training env's twin; each of ``warm_start.envs`` games
        (0: ``n_envs``), seeded after the training env's own games (``seed + n_envs`` on)."""
        config = self.config
        settings = config.warm_start
        if not settings.tables and not settings.envs:
            return None
        size = settings.envs or config.n_envs
        tables = []
        for index, options in enumerate(settings.tables or [{}]):
            at_table = dataclasses.replace(config, n_envs=size, env_kwargs={**config.env_kwargs, **options})
            venv, _ = make_training_env(at_table, seed=False)
            venv.seed(config.seed + config.n_envs + index * size)
            tables.append(Table(options, venv, make_game(config.env, **at_table.env_kwargs)))
        return tables

    def train(self, session: Session) -> None:
        """SB3's ``learn`` runs the loop; its callback hands every update to ``session.after_step``
        and its logger writes to the run's metrics sink."""
        model = self.model
        model.set_logger(sink_logger(session))
        run_callback = RunCallback(session, self.self_play)
        model.learn(
            total_timesteps=self.budget - model.num_timesteps,
            callback=run_callback,
            reset_num_timesteps=not self.resumed,
            progress_bar=session.progress,
        )
        if model.num_timesteps < self.budget:
            # stopped mid-rollout: the checkpoint holds what the model has learned from
            model.num_timesteps = run_callback.learned_timesteps
        else:  # the last update has no rollout after it to call the callback
            session.after_step({})

    def current_agent(self) -> PolicyAgent:
        return PolicyAgent(self.game, self.model.policy, deterministic=True)

    def state_dict(self) -> dict[str, Any]:
        return {
            "env_rngs": self.model.get_env().get_attr("np_random"),
            "self_play": self.self_play.state() if self.self_play is not None else None,
            "warm_started": self.warm_started,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        venv = self.model.get_env()
        if len(state["env_rngs"]) != venv.num_envs:
            raise CheckpointError(
                f"cannot resume: the checkpoint has {len(state['env_rngs'])} envs, the config {venv.num_envs}"
            )
        for index, generator in enumerate(state["env_rngs"]):
            venv.set_attr("np_random", generator, indices=[index])
        if self.self_play is not None:
            self.self_play.restore(state["self_play"], self.model.policy)
        self.warm_started = state["warm_started"]
        if self.warm_started and resume_guide(self.model, self.config.warm_start, self.run_dir, self.game):
            print(f"Warm start: the teacher guide resumes at weight {self.model.current_guide_coef():.3f}")

    def checkpoint_files(self):
        return ppo_checkpoint.checkpoint_files(self.model, self.venv if self.config.normalize_reward else None)

    def timing(self, wall_s: float) -> str:
        if self.warm_start_summary is None:
            return ""
        warm = self.warm_start_summary["collect_s"] + self.warm_start_summary["clone_s"]
        return (
            f" (warm start {warm:.0f} s: {self.warm_start_summary['collect_s']:.0f} s of teacher games and labels, "
            f"{self.warm_start_summary['clone_s']:.0f} s of cloning; PPO {wall_s - warm:.0f} s)"
        )

    def metadata(self) -> dict:
        return {"warm_start": self.warm_start_summary} if self.warm_start_summary is not None else {}

    def close(self) -> None:
        self.venv.close()
