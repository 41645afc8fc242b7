"""Warm start from a bot: behaviour cloning, a fitted critic, then PPO guided towards the teacher.

Kickstarting (Schmitt et al. 2018) and Yahtzotron's "clone a heuristic, then improve it
with RL" both start a learner from a teacher's play instead of from random moves. Here,
for any game and any bot of that game (``warm_start.teacher``, an agent spec):

1. **Demonstrations.** The teacher plays ``episodes`` episodes in the learner's seat of
   the very training env PPO will use (same opponents, same reward scaling), and every
   decision is recorded: observation, legal mask, the teacher's action, and the
   episode's return-to-go in PPO's (scaled) reward units. With ``tables`` it plays them,
   split evenly, at each of those tables (e.g. two, three and four players) instead, so
   that the clone has seen every table it will be played at, not only the training one.
2. **Behaviour cloning and a fitted critic.** The policy is trained by cross-entropy on
   the teacher's actions (over legal actions only) and the value head on those
   returns-to-go, together. The critic matters: PPO starting from a cloned actor and a
   random critic gets garbage advantages and unlearns the clone in its first updates.
3. **Guided PPO.** :class:`TeacherGuidedPPO` is MaskablePPO with, after each update, a
   pass of the same cross-entropy loss on the demonstrations, weighted by
   ``guide_coef`` decaying linearly to zero at ``guide_decay_steps``: the learner
   leans on the teacher early and is free to surpass it later.

With ``temperature`` above zero every demonstrated decision is labelled by a search
that values every move (``move_values(state)``, :mod:`training.teacher.labels`): the
teacher itself, or ``label_with`` (e.g. Invers' ``search:depth=4`` labelling the games
of the quicker ``search:depth=3``), in ``workers`` processes; a teacher that values the
moves of a whole batch as it decides them (``act_and_value_batch``, as Inverted Dice's
exact solver does) labels its decisions as it plays them, from the same plan. The demonstration is then
the softmax of all the values at that temperature, not only the move played: equal
moves share the target instead of the clone learning one of them at random, and the
worse moves are ranked too, so that a mistake costs the clone what it costs in the game.

The teacher is any agent of the game: a bot such as the heuristic or the search, or the
exact solver where a game has one (Inverted Dice's ``optimal``: a clone of the heuristic
ended level with it, a clone of the solver starts far above it). Guided PPO then keeps
the learner near its teacher while it learns what the clone got wrong.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import VecEnv, VecNormalize

from agents.base import draws_per_row
from agents.registry import make_agent
from agents.run_folder import DEMONSTRATIONS_FILE
from envs.core import Game
from training.framework.progress import Progress
from training.framework.run_files import write_atomic
from training.framework.schema import ConfigError
from training.teacher.labels import TeacherLabels, soft_targets, teacher_targets
from training.teacher.loss import soft_target_cross_entropy
from training.teacher.symmetry import symmetry_maps, turned


@dataclass
class Demonstrations:
    """A teacher's decisions in the training env, as tensors ready for minibatches."""

    observations: torch.Tensor  #: (N, obs) float32
    masks: torch.Tensor  #: (N, actions) bool
    actions: torch.Tensor  #: (N,) int64
    returns: torch.Tensor  #: (N,) float32: return-to-go in PPO's reward units
    episodes: int
    mean_episode_return: float  #: in the env's own reward units (e.g. the score)
    policies: torch.Tensor | None = None  #: (N, actions) float32: the teacher's soft targets, if any

    def __len__(self) -> int:
        return len(self.actions)

    @classmethod
    def joined(cls, parts: list[Demonstrations]) -> Demonstrations:
        """One set of the decisions of all ``parts`` (soft targets only where every part has them)."""
        if len(parts) == 1:
            return parts[0]
        episodes = sum(part.episodes for part in parts)
        soft = all(part.policies is not None for part in parts)
        return cls(
            observations=torch.cat([part.observations for part in parts]),
            masks=torch.cat([part.masks for part in parts]),
            actions=torch.cat([part.actions for part in parts]),
            returns=torch.cat([part.returns for part in parts]),
            episodes=episodes,
            mean_episode_return=sum(part.mean_episode_return * part.episodes for part in parts) / episodes,
            policies=torch.cat([part.policies for part in parts]) if soft else None,
        )

    def batches(self, batch_size: int, rng: np.random.Generator):
        """Index tensors of shuffled minibatches covering the set once."""
        order = torch.as_tensor(rng.permutation(len(self)))
        for start in range(0, len(self), batch_size):
            yield order[start : start + batch_size]


class Table(NamedTuple):
    """Where the teacher plays: a vectorized env of the game at the table ``options`` set up."""

    options: dict[str, Any]  #: game options overriding the config's ``env_kwargs`` (``{}``: the training table)
    venv: VecEnv
    game: Game


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares that differ by at most one, the larger first."""
    return [total // parts + (index < total % parts) for index in range(parts)]


def collect_demonstrations(
    venv: VecEnv,
    env_name: str,
    game: Game,
    teacher: str,
    episodes: int,
    gamma: float,
    seed: int,
    temperature: float = 0.0,
    label_with: str | None = None,
    workers: int = 1,
    env_kwargs: dict | None = None,
    say=None,
    stop_requested=None,
    where: str = "",
) -> Demonstrations:
    """Let ``teacher`` play ``episodes`` episodes in every env of ``venv`` together.

    A teacher whose ``act_batch`` takes one generator per row (the bots) decides every
    env in one call, move for move as its copies' ``act`` would, one copy per env.
    With a :class:`VecNormalize` ``venv`` its reward statistics are updated as in
    training (they then scale PPO's first rollouts sensibly) and the returns-to-go are
    computed from the raw rewards scaled and clipped by the final statistics, as PPO
    will see them. ``say`` gets progress lines (their names end with ``where``);
    ``stop_requested()`` true stops it with
    :class:`~training.framework.progress.StoppedDuringPreparation`.
    """
    teachers = [make_agent(env_name, teacher, game, seed=seed * 1000 + i) for i in range(venv.num_envs)]
    in_batch = draws_per_row(teachers[0])  # one call decides every env, each from its own generator
    labels = None
    # a teacher that values every move of a batch at once labels its own decisions as it plays
    values_in_batch = temperature > 0 and label_with is None and hasattr(teachers[0], "act_and_value_batch")
    if temperature > 0 and not values_in_batch:  # checked before the games: no move_values is a config error
        labels = TeacherLabels(
            env_name, env_kwargs if env_kwargs is not None else game.options(), label_with or teacher, seed, workers
        )
    observations, masks, actions, rewards, dones, action_values = [], [], [], [], [], []
    finished, raw_returns = 0, []
    running = np.zeros(venv.num_envs)
    obs = venv.reset()
    try:
        played = Progress(f"warm start: teacher episodes{where}", episodes, say, stop_requested)
        while finished < episodes:
            mask = get_action_masks(venv)
            if values_in_batch:  # the moves and their values from one plan
                action, values = teachers[0].act_and_value_batch(obs, mask)
                action_values.append(values.astype(np.float32))
            elif in_batch:
                action = teachers[0].act_batch(obs, mask, rngs=[t.rng for t in teachers])
            else:
                action = np.array([t.act(o, m) for t, o, m in zip(teachers, obs, mask)])
            observations.append(obs)
            masks.append(mask)
            actions.append(action)
            obs, reward, done, _ = venv.step(action)
            raw = venv.get_original_reward() if isinstance(venv, VecNormalize) else reward
            rewards.append(raw)
            dones.append(done)
            running += raw
            for i in np.flatnonzero(done):
                raw_returns.append(running[i])
                running[i] = 0.0
                finished += 1
                played.advance()
                teachers[i].reset(seed=seed * 1000 + venv.num_envs * finished + i)
    except BaseException:  # a stop request or an error: the labelling workers go too
        if labels is not None:
            labels.close()
        raise
    rewards, dones = np.array(rewards), np.array(dones)
    if isinstance(venv, VecNormalize) and venv.norm_reward:
        rewards = np.clip(rewards / np.sqrt(venv.ret_rms.var + venv.epsilon), -venv.clip_reward, venv.clip_reward)
    returns = _returns_to_go(rewards, dones, gamma)
    complete = _finished_steps(dones)  # the cut-off tails of unfinished episodes have no true return
    policies = None
    if values_in_batch:
        policies = soft_targets(np.array(action_values)[complete], temperature)
    if labels is not None:
        try:
            positions = list(np.array(observations)[complete])
            values = labels.label(
                positions,
                Progress(f"warm start: {label_with or teacher} labels{where}", len(positions), say, stop_requested),
            )
        finally:
            labels.close()
        policies = np.stack([teacher_targets(v, game.num_actions, temperature)[0] for v in values])
    return Demonstrations(
        observations=torch.as_tensor(np.array(observations)[complete], dtype=torch.float32),
        masks=torch.as_tensor(np.array(masks)[complete], dtype=torch.bool),
        actions=torch.as_tensor(np.array(actions)[complete], dtype=torch.int64),
        returns=torch.as_tensor(returns[complete], dtype=torch.float32),
        episodes=finished,
        mean_episode_return=float(np.mean(raw_returns)),
        policies=None if policies is None else torch.as_tensor(policies, dtype=torch.float32),
    )


def imitation_loss(
    policy, demos: Demonstrations, index: torch.Tensor, symmetry=None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The critic's values and the cross-entropy towards the teacher on ``index``: of its
    move, or of its soft targets where the demonstrations have them; the positions turned
    by ``symmetry`` (one of :func:`symmetry_maps`) when given."""
    targets = None if demos.policies is None else demos.policies[index]
    observations, masks, targets, actions = turned(
        symmetry, demos.observations[index], demos.masks[index], targets, demos.actions[index]
    )
    if targets is None:
        values, log_prob, _ = policy.evaluate_actions(observations, actions, masks)
        return values, -log_prob.mean()
    distribution = policy.get_distribution(observations, action_masks=masks.numpy())
    return policy.predict_values(observations), soft_target_cross_entropy(
        distribution.distribution.logits, masks, targets
    )


def _returns_to_go(rewards: np.ndarray, dones: np.ndarray, gamma: float) -> np.ndarray:
    """``(T, envs)`` discounted returns-to-go, restarting after every ``done``."""
    returns = np.zeros_like(rewards, dtype=np.float64)
    running = np.zeros(rewards.shape[1])
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running * (1.0 - dones[t])
        returns[t] = running
    return returns


def _finished_steps(dones: np.ndarray) -> np.ndarray:
    """``(T, envs)`` bool: the step belongs to an episode that ended within the record."""
    complete = np.zeros_like(dones, dtype=bool)
    for i in range(dones.shape[1]):
        ends = np.flatnonzero(dones[:, i])
        if len(ends):
            complete[: ends[-1] + 1, i] = True
    return complete


def behaviour_clone(
    policy,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
    logger=None,
    symmetries=None,
    progress: Progress | None = None,
) -> dict[str, float]:
    """Fit the policy to the teacher's actions and the value head to its returns, each
    minibatch turned by a random one of ``symmetries`` (:func:`symmetry_maps`) if given."""
    symmetries = symmetries or [None]
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        for index in demos.batches(batch_size, rng):
            values, policy_loss = imitation_loss(policy, demos, index, symmetries[rng.integers(len(symmetries))])
            value_loss = F.mse_loss(values.flatten(), demos.returns[index])
            optimizer.zero_grad()
            (policy_loss + value_coef * value_loss).backward()
            optimizer.step()
            totals["policy_loss"] += policy_loss.item() * len(index)
            totals["value_loss"] += value_loss.item() * len(index)
        with torch.no_grad():
            totals["accuracy"] = teacher_agreement(policy, demos)
        summary = {k: v / len(demos) if k != "accuracy" else v for k, v in totals.items()}
        if logger is not None:
            for key, value in summary.items():
                logger.record(f"warm_start/{key}", value)
            logger.record("warm_start/epoch", epoch + 1)
            logger.dump(epoch + 1)
        if progress is not None:
            progress.advance()
    policy.set_training_mode(False)
    return summary


def teacher_agreement(policy, demos: Demonstrations, limit: int = 20_000) -> float:
    """Share of (up to ``limit``, evenly spread: every table's) demonstrated decisions where the
    policy's top action is the teacher's."""
    index = slice(0, len(demos), max(1, math.ceil(len(demos) / limit)))
    distribution = policy.get_distribution(demos.observations[index], action_masks=demos.masks[index].numpy())
    chosen = distribution.distribution.probs.argmax(dim=1)
    return float((chosen == demos.actions[index]).float().mean())


class TeacherGuidedPPO(MaskablePPO):
    """MaskablePPO plus a decaying behaviour-cloning loss towards a teacher's demonstrations.

    After every PPO update it takes one pass of minibatches over (a sample of) the
    demonstrations, minimising ``guide_coef(t) * cross_entropy(policy, teacher action)``
    with ``guide_coef(t)`` falling linearly from ``guide_coef`` at step 0 to zero at
    ``guide_decay_steps``. Without demonstrations attached it is plain MaskablePPO, and a
    saved model loads with ``MaskablePPO.load``.
    """

    demonstrations: Demonstrations | None = None
    guide_coef: float = 0.0
    guide_decay_steps: int = 1

    def attach_teacher(
        self, demonstrations: Demonstrations, guide_coef: float, guide_decay_steps: int, symmetries=None
    ) -> None:
        self.demonstrations = demonstrations
        self._guide_symmetries = symmetries or [None]
        self.guide_coef = guide_coef
        self.guide_decay_steps = guide_decay_steps
        self._guide_rng = np.random.default_rng(self.seed)

    def current_guide_coef(self) -> float:
        return self.guide_coef * max(0.0, 1.0 - self.num_timesteps / self.guide_decay_steps)

    def train(self) -> None:
        super().train()
        coef = self.current_guide_coef()
        if self.demonstrations is None or coef <= 0.0:
            return
        self.policy.set_training_mode(True)
        demos = self.demonstrations
        steps = max(1, self.n_steps * self.n_envs // self.batch_size)
        losses = []
        for _ in range(steps):
            index = torch.as_tensor(self._guide_rng.integers(len(demos), size=self.batch_size))
            symmetry = self._guide_symmetries[self._guide_rng.integers(len(self._guide_symmetries))]
            _, loss = imitation_loss(self.policy, demos, index, symmetry)
            self.policy.optimizer.zero_grad()
            (coef * loss).backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
            losses.append(loss.item())
        self.policy.set_training_mode(False)
        self.logger.record("warm_start/guide_coef", coef)
        self.logger.record("warm_start/guide_loss", float(np.mean(losses)))

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "demonstrations", "_guide_rng", "_guide_symmetries"]


def warm_start(
    model: TeacherGuidedPPO,
    venv: VecEnv,
    settings,
    env_name: str,
    game: Game,
    seed: int,
    run_dir: Path,
    say=None,
    stop_requested=None,
    tables: list[Table] | None = None,
) -> dict[str, Any]:
    """Steps 1-3 of the module docstring on a fresh ``model``; returns what it measured.

    The teacher plays at ``tables`` when given, ``episodes`` split evenly among them: one per
    ``warm_start.tables``, or the training env's twin with more games (``warm_start.envs``),
    whose reward scaling statistics then become ``venv``'s, as if the games had been played
    there; else in ``venv`` itself. The demonstrations are kept in the run folder, so that a
    resumed run keeps its guide. Progress lines go to ``say``; a stop request ends it (see
    :func:`collect_demonstrations`).
    """
    started = time.perf_counter()
    tables = tables or [Table({}, venv, game)]
    parts = [
        collect_demonstrations(
            table.venv,
            env_name,
            table.game,
            settings.teacher,
            episodes,
            model.gamma,
            seed,
            settings.temperature,
            settings.label_with,
            settings.workers,
            say=say,
            stop_requested=stop_requested,
            where=f" at {table.options}" if table.options else "",
        )
        for table, episodes in zip(tables, split_evenly(settings.episodes, len(tables)))
    ]
    demos = Demonstrations.joined(parts)
    twin = tables[0].venv  # the only table where rewards are scaled (the config refuses scaling with tables)
    if twin is not venv and isinstance(twin, VecNormalize) and isinstance(venv, VecNormalize):
        venv.ret_rms = copy.deepcopy(twin.ret_rms)
    write_atomic(run_dir / DEMONSTRATIONS_FILE, lambda name: torch.save(asdict(demos), name))
    collected = time.perf_counter()
    symmetries = symmetry_maps(game)
    summary = behaviour_clone(
        model.policy,
        demos,
        settings.epochs,
        settings.batch_size,
        settings.learning_rate,
        settings.value_coef,
        seed,
        model.logger,
        symmetries,
        Progress("warm start: cloning epochs", settings.epochs, say, stop_requested),
    )
    if settings.guide_coef > 0:
        model.attach_teacher(demos, settings.guide_coef, settings.guide_decay_steps, symmetries)
    with torch.no_grad():
        at_tables = [  # what the clone learned at each table of warm_start.tables
            {
                "table": table.options,
                "episodes": part.episodes,
                "decisions": len(part),
                "teacher_mean_return": round(part.mean_episode_return, 3),
                "teacher_agreement": round(teacher_agreement(model.policy, part), 4),
            }
            for table, part in zip(tables, parts)
            if table.options
        ]
    return {
        "teacher": settings.teacher,
        **(
            {"labelled_by": settings.label_with or settings.teacher, "label_workers": settings.workers}
            if settings.temperature > 0
            else {}
        ),
        "episodes": demos.episodes,
        "decisions": len(demos),
        "teacher_mean_return": round(demos.mean_episode_return, 3),
        "teacher_agreement": round(summary["accuracy"], 4),
        **({"tables": at_tables} if at_tables else {}),
        "collect_s": round(collected - started, 1),
        "clone_s": round(time.perf_counter() - collected, 1),
    }


def resume_guide(model: TeacherGuidedPPO, settings, run_dir: Path, game: Game | None = None) -> bool:
    """Re-attach a resumed run's demonstrations while its guide weight is above zero."""
    path = run_dir / DEMONSTRATIONS_FILE
    if settings.guide_coef <= 0 or model.num_timesteps >= settings.guide_decay_steps:
        return False
    if not path.is_file():
        raise ConfigError(f"cannot resume the warm start's guide: {path} is missing")
    try:
        demos = Demonstrations(**torch.load(path, weights_only=True))
    except Exception as error:  # a torn or foreign file: name it
        raise ConfigError(
            f"cannot resume the warm start's guide: {path} is unreadable ({type(error).__name__}: {error})"
        ) from None
    model.attach_teacher(
        demos, settings.guide_coef, settings.guide_decay_steps, None if game is None else symmetry_maps(game)
    )
    return True
