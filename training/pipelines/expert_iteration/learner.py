"""Expert Iteration: a policy-value network improved by the search it guides, for any
two-player perfect-information game (command: ``training/train.py``, for every config that
says ``pipeline: expert_iteration``).

Each generation (Anthony et al. 2017, "Thinking Fast and Slow"; AlphaZero's targets):

1. **Play.** The learner, the network inside its search (:func:`~agents.search.network_search`)
   (every root move searched exactly), plays ``games_per_generation`` games against an
   opponent drawn per game from the pool: itself (self-play), a frozen snapshot of an
   earlier generation inside the same search, or a fixed bot (``pool``: agent specs).
   The learner's seat alternates game by game; the first ``random_opening_plies`` are
   uniformly random and the learner samples its first ``explore_plies`` moves from the
   softmax of its search values, so games differ. With ``imitate_pool`` the fixed bots'
   positions are kept too, their move as the policy target (a warm start from the bots'
   play that search-made targets take over as the network outgrows them); a share
   ``bot_game_weight`` of the games are between two bots of the pool, both seats kept.
   Who plays (the pool and these shares) and who labels are the stage's (below).
2. **Targets.** Every position the learner moved in is kept with the policy target
   softmax(search values / ``policy_temperature``) and the value target
   ``value_mix`` · search value + (1 − ``value_mix``) · the game's outcome *for the seat
   that moved there* (:func:`learner_targets`; in self-play both seats are the learner
   and each position gets its own seat's outcome, never the other's; a bot's position
   has no search value, so its value target is its seat's outcome alone).
3. **Learn.** Adam on cross-entropy (masked policy) plus squared value error, over a
   replay buffer of the latest ``buffer_size`` positions (:mod:`.replay`), each minibatch
   turned by one of the game's symmetries (:meth:`~envs.core.Game.symmetries`) drawn at random.

Steps 1 and 2 run in **units** of ``games_per_unit`` games (:mod:`.units`), each seeded from
(run seed, generation, unit) alone, in this process, in ``workers`` local processes or as
Ray tasks on a cluster (``address``; :mod:`.runners`); step 3 runs here, on the units in
their order, so where they ran does not change the weights learned.

**Stages.** A run plays its ``stages`` in order, each for its ``generations``
(:class:`~training.pipelines.expert_iteration.config.Stage`; the one lookup is
:meth:`~training.pipelines.expert_iteration.config.ExpertIterationConfig.stage_at`). **A teacher
search** (a stage's ``teacher``, the spec of a bot with ``move_values(state)``, such as
``search:depth=4`` of Invers) replaces the learner's own search as the source of targets:
every recorded position, whoever moved in it, is labelled with the teacher's values of
all the legal moves (policy target: their softmax at ``policy_temperature``; search value:
the best of them), in the unit that played the position, since labelling is most of
the cost. With ``bot_game_weight: 1`` the games are all between bots of the pool (spiced with
``random_move_rate``), and the stage is a distillation of the teacher into the network. A stage
whose teacher or pool names ``{frozen}`` begins by freezing the network in the run folder
(``teacher/model.zip``): ``ppo+search:depth=2,path={frozen}`` as its teacher hands the labels over
to the network's own search, and each later stage that says so freezes a newer network (the
shipped network's stages in one run: ``configs/invers.yaml``). Every stage begins with an empty
replay buffer, so that the earlier teacher's labels do not pull the network back towards what
the new one outplays.

The network is sb3's MaskablePPO actor-critic, so a run's ``model.zip`` loads as the
agent ``ppo`` (the policy alone) and ``ppo+search`` (the network in the search), and a
PPO run can be the starting point (``init``). A checkpoint is ``model.zip``;
``metadata.json`` adds positions, games, CPU time and ``generation_log`` (per
generation: games, positions, units, play and learn times, the units' CPU time, losses and
the results against the pool). A run may be resumed with changed settings in its
``config.yaml``. The framework's ``training_state.pkl`` holds the generator, the optimizer,
the replay buffer and the snapshots, so a resumed run plays and learns exactly as a run that
never stopped.

A generation of a teacher's games can take minutes: it prints a line about every tenth of
its games as their units come back, and ``max_minutes`` is honoured inside it: once the
time is up no further unit starts, the units already started finish, and the generation
learns from those (at least one); its log entry counts them.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np
import torch

from agents.registry import make_agent
from agents.run_folder import MODEL_FILE
from agents.trained import PolicyAgent, load_model
from training.framework.checkpoint import Checkpoint
from training.framework.progress import Progress
from training.framework.run import Override, Pipeline, Session
from training.framework.schema import ConfigError
from training.pipelines.expert_iteration.config import FROZEN, ExpertIterationConfig, Stage
from training.pipelines.expert_iteration.replay import ReplayBuffer
from training.pipelines.expert_iteration.runners import run_units, runner_for
from training.pipelines.expert_iteration.units import UnitResult, plan_generation
from training.pipelines.network import build_policy, save_policy
from training.teacher.loss import soft_target_cross_entropy
from training.teacher.symmetry import symmetry_maps, turned


class ExpertIteration(Pipeline):
    name = "expert_iteration"
    schema = ExpertIterationConfig
    unit = "generations"
    budget_key = "generations"
    default_config = "{env}_expert_iteration"
    checkpoint_required = (MODEL_FILE,)
    overrides = (
        Override("generations", "generations", int, "generations in all"),
        Override("max-minutes", "max_minutes", float, "wall-time limit in minutes"),
        Override("init", "init", str, "run directory or model .zip to start from", positive=False),
        Override("workers", "workers", int, "local processes playing and labelling the games"),
        Override("games-per-unit", "games_per_unit", int, "games in a unit of work (played and labelled together)"),
        Override("oversubscribe", "oversubscribe", bool, "allow more local workers than CPUs (they share the cores)"),
        Override(
            "address", "address", str, "Ray cluster whose CPUs play and label the games, e.g. HOST:PORT", positive=False
        ),
    )

    def __init__(self, config: ExpertIterationConfig, run_dir: Path, checkpoint: Checkpoint | None = None):
        super().__init__(config, run_dir, checkpoint)
        self.rng = np.random.default_rng(config.seed)
        start = checkpoint.files[MODEL_FILE] if checkpoint is not None else config.init
        if start is not None:
            self.policy = load_model(start, self.game).policy
        else:
            self.policy = build_policy(self.game, config.policy_kwargs, config.seed)
        self.optimizer = torch.optim.Adam(
            self.policy.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.snapshots: list[tuple[str, torch.nn.Module]] = []
        self.buffer = ReplayBuffer(config.buffer_size)
        self.symmetries = symmetry_maps(self.game) if config.symmetries else [None]
        self.session: Session | None = None  #: the session training runs in: its progress lines and clock
        earlier = checkpoint.metadata if checkpoint is not None else {}
        self.log: list[dict] = list(earlier.get("generation_log", []))
        self.check_teachers()
        self.use_stage(config.stage_at(self.done)[1])  # begun before a resume: the network it froze is in the folder
        self.positions = int(earlier.get("positions", 0))
        self.cpu_s = float(earlier.get("cpu_time_s", 0.0))
        self.runner = runner_for(config)  #: where the units run: this process, local workers or a Ray cluster

    @property
    def done(self) -> int:
        return len(self.log)

    def check_teachers(self) -> None:
        """Build each stage's teacher once, so that one that cannot value moves is refused before any
        game (a teacher on the frozen network is a search, :meth:`ExpertIterationConfig.check`)."""
        teachers = [stage.teacher for stage in self.config.stages if stage.teacher and FROZEN not in stage.teacher]
        for spec in dict.fromkeys(teachers):
            teacher = make_agent(self.config.env, spec, self.game)
            if not callable(getattr(teacher, "move_values", None)):
                raise ConfigError(
                    f"teacher {spec!r} cannot label positions: it has no move_values(state) "
                    "(a search bot such as 'search:depth=4' has)"
                )

    def use_stage(self, stage: Stage) -> None:
        """Label and play as ``stage`` says from now on, ``{frozen}`` naming the network frozen in the run folder."""
        self.stage = stage.naming(self.frozen_teacher())

    def frozen_teacher(self) -> Path:
        """Where the network frozen as a stage began is kept: in the run folder (the latest one)."""
        return self.run_dir / "teacher" / MODEL_FILE

    def begin_stage(self, stage: Stage) -> None:
        """Begin ``stage`` with the generation about to be played: freeze the network as it is now where
        the stage names it, and empty the replay buffer, so that the earlier teacher's labels do not pull
        the network back towards what the new one outplays."""
        if stage.freezes:
            self.frozen_teacher().parent.mkdir(parents=True, exist_ok=True)
            save_policy(self.frozen_teacher(), self.policy, self.config.seed)
        self.buffer.clear()
        self.use_stage(stage)
        if self.session is not None and self.done:
            teacher = self.stage.teacher or "the learner's own search"
            self.session.say(f"generation {self.done}: a new stage begins; the teacher is now {teacher}")

    def train(self, session: Session) -> str | None:
        self.session = session
        return super().train(session)

    def out_of_time(self) -> bool:
        """Whether this session has run past ``max_minutes`` (never outside a session)."""
        limit = self.config.max_minutes
        return self.session is not None and limit is not None and self.session.wall_s > limit * 60

    def progress(self, what: str, total: int) -> Progress:
        """A line about every tenth of ``total`` steps of ``what`` in this generation (silent outside a session)."""
        say = None if self.session is None else self.session.routine
        return Progress(f"generation {self.done + 1}: {what}", total, say)

    def play_generation(self) -> tuple[list[UnitResult], dict[str, list[float]]]:
        """The generation's units (until ``max_minutes``: at least one), in chunk order, and the
        learner's results against each opponent."""
        config = self.config
        plan = plan_generation(config, self.done, self.stage, self.policy, self.snapshots)
        played = self.progress("games played and labelled", config.games_per_generation)
        units = run_units(self.runner, plan, self.out_of_time, played)
        results: dict[str, list[float]] = {}
        for unit in units:
            for name, scores in unit.results.items():
                results.setdefault(name, []).extend(scores)
        return units, results

    def update(self, new_positions: int) -> dict[str, float]:
        steps = max(1, int(new_positions * self.config.sample_reuse / self.config.batch_size))
        self.policy.train()
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for _ in range(steps):
            observations, masks, policies, values = self.buffer.sample(
                self.rng.integers(len(self.buffer), size=self.config.batch_size)
            )
            symmetry = self.symmetries[self.rng.integers(len(self.symmetries))]
            batch_observations, batch_masks, batch_policies, _ = turned(symmetry, observations, masks, policies)
            features = self.policy.extract_features(batch_observations)
            latent_pi, latent_vf = self.policy.mlp_extractor(features)
            policy_loss = soft_target_cross_entropy(self.policy.action_net(latent_pi), batch_masks, batch_policies)
            value_loss = ((self.policy.value_net(latent_vf)[:, 0] - values) ** 2).mean()
            loss = policy_loss + self.config.value_loss_weight * value_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            totals["policy_loss"] += policy_loss.item() / steps
            totals["value_loss"] += value_loss.item() / steps
        self.policy.eval()
        return totals

    def add_snapshot(self, generation: int) -> None:
        self.snapshots.append((f"snapshot-{generation}", copy.deepcopy(self.policy).eval()))
        del self.snapshots[: -self.config.max_snapshots]

    def step(self) -> dict[str, float]:
        """One generation (the first of a stage begins it): its games, the buffer, the updates, a snapshot;
        its log entry."""
        first, stage = self.config.stage_at(self.done)
        if first == self.done:
            self.begin_stage(stage)
        t0 = time.perf_counter()
        cpu_started = time.process_time()
        units, results = self.play_generation()
        t1 = time.perf_counter()
        for unit in units:
            self.buffer.add(unit.observations, unit.masks, unit.policies, unit.values)
        positions = sum(unit.positions for unit in units)
        losses = self.update(positions)
        t2 = time.perf_counter()
        self.add_snapshot(self.done)
        entry = {
            "generation": self.done,
            "teacher": self.stage.teacher,
            "games": sum(unit.games for unit in units),
            "positions": positions,
            "units": len(units),
            "play_s": round(t1 - t0, 1),  # the units' games and labels, wherever they ran, as the driver waited
            "learn_s": round(t2 - t1, 1),
            "unit_cpu_s": round(sum(unit.cpu_s for unit in units), 1),  # the CPU time the units took in all
            "unit_wall_s": round(sum(unit.wall_s for unit in units), 1),  # and their wall time, one after another
            **{k: round(v, 4) for k, v in losses.items()},
            "score_vs": {name: round(float(np.mean(r)), 3) for name, r in sorted(results.items())},
            "games_vs": {name: len(r) for name, r in sorted(results.items())},
        }
        self.log.append(entry)
        self.positions += positions
        self.cpu_s += time.process_time() - cpu_started  # the driver's, the units' with it where they ran in it
        if not self.runner.in_process:
            self.cpu_s += sum(unit.cpu_s for unit in units)
        return {
            "positions": positions,
            **losses,
            **{f"score_vs/{name}": float(np.mean(r)) for name, r in sorted(results.items())},
        }

    def stop_reason(self, wall_s: float) -> str | None:
        if self.config.max_minutes is not None and wall_s > self.config.max_minutes * 60:
            return f"time limit ({self.config.max_minutes} minutes)"
        return None

    def current_agent(self) -> PolicyAgent:
        """The network's policy alone, played greedily (the curve measures the network, not its search)."""
        return PolicyAgent(self.game, self.policy, deterministic=True)

    def state_dict(self) -> dict:
        """Generator, optimizer, replay buffer (one array per column) and snapshots: all the driver
        draws on (a generation's games draw on nothing but the run's seed and their numbers), so a
        resumed run plays and learns as one that never stopped."""
        return {
            "rng": self.rng.bit_generator.state,
            "optimizer": self.optimizer.state_dict(),
            "buffer": self.buffer.ordered(),
            "snapshots": [(name, snapshot.state_dict()) for name, snapshot in self.snapshots],
        }

    def load_state_dict(self, state: dict) -> None:
        """A checkpoint's state; one written before the units (with its bots' generators, ``bot_rngs``)
        loads too, its games then drawn as the units draw them."""
        self.rng.bit_generator.state = state["rng"]
        self.optimizer.load_state_dict(state["optimizer"])
        self.buffer.clear()
        if state["buffer"]:
            self.buffer.add(*state["buffer"])
        self.snapshots = []
        for name, weights in state["snapshots"]:
            frozen = copy.deepcopy(self.policy).eval()
            frozen.load_state_dict(weights)
            self.snapshots.append((name, frozen))

    def metadata(self) -> dict:
        return {
            "generation_log": self.log,
            "positions": self.positions,
            # a generation cut short by max_minutes logs its games; older logs played every one
            "games": sum(entry.get("games", self.config.games_per_generation) for entry in self.log),
            "cpu_time_s": round(self.cpu_s, 1),  # the driver's and the units', wherever they ran
            "units_ran_in": self.runner.where,
        }

    def checkpoint_files(self):
        return {MODEL_FILE: lambda name: save_policy(name, self.policy, self.config.seed)}

    def close(self) -> None:
        self.runner.close()
