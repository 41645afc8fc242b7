"""The expert-iteration pipeline's config schema, its curriculum a list of stages.

Its configs are ``configs/invers.yaml`` and the other ``configs/invers_*.yaml`` that say
``pipeline: expert_iteration``; every key is documented beside its field;
:mod:`training.pipelines.expert_iteration.learner` describes the method.

A run is a list of **stages** (``stages:``), each a :class:`Stage`: how many generations it
lasts, the teacher that labels its positions and the pool its games are drawn from. A stage
may name the network as it was when the stage began, frozen in the run folder, as ``{frozen}``
in its teacher and pool: that is how a run hands over from a bot's labels to the network's own
search, and freezes a newer network for each later stage. :meth:`ExpertIterationConfig.stage_at`
is the one lookup the learner makes.

Earlier versions spelled the curriculum in flags (:data:`EARLIER_KEYS`); a config file that
names one is refused with a line showing its ``stages:``, and a run folder's ``config.yaml``
that an earlier version wrote resumes as the stages its flags meant (:func:`stages_from_earlier`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from agents.registry import parse_spec
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
    sections,
    setting,
    table,
)
from training.pipelines.network import POLICY_SETTINGS

#: in a stage's teacher and pool: the network as it was when the stage began, frozen in the run folder
FROZEN = "{frozen}"
#: where the training guide describes the stages (cited by the refusal of the earlier keys)
STAGES_GUIDE = 'docs/guides/training.md, "Expert iteration\'s stages"'


@dataclass(frozen=True)
class Stage:
    """One stage of the curriculum: for how many generations, who labels the positions, and who plays."""

    #: the generations the stage lasts; the last stage may leave it out and run until the run ends
    generations: int | None = setting(None, optional(integer(1)))
    #: agent spec of a bot with ``move_values(state)`` that labels every recorded position (null: the
    #: learner's own search labels its positions, the bots' are imitated); the network frozen as the
    #: stage began labels inside its search: ``ppo+search:depth=2,path={frozen}``
    teacher: str | None = setting(None, OPTIONAL_TEXT)
    #: fixed opponents (agent specs; ``{frozen}``: the frozen network, e.g. ``ppo:path={frozen}``)
    pool: list[str] = setting(["search:depth=1", "search:depth=2"], AGENT_SPECS)
    #: share of games between two bots of the pool, without the learner (both seats kept: games
    #: between strong players whose outcomes say more about positions than a beginner's losses do)
    bot_game_weight: float = setting(0.0, number(0, 1))
    self_play_weight: float = setting(0.4, number(0, 1))  #: share of (the other) games against the learner itself
    #: share of (the other) games against a frozen earlier generation (when there is one)
    snapshot_weight: float = setting(0.2, number(0, 1))

    @property
    def freezes(self) -> bool:
        """Whether the stage begins by freezing the network (its teacher or pool names ``{frozen}``)."""
        return any(FROZEN in spec for spec in [self.teacher or "", *self.pool])

    @property
    def learner_plays(self) -> bool:
        """Whether some of its games have the learner in a seat (not all between two bots)."""
        return self.bot_game_weight < 1.0

    def naming(self, frozen: Path) -> Stage:
        """The stage with ``{frozen}`` in its specs replaced by the frozen network's file."""
        return replace(
            self,
            teacher=self.teacher.replace(FROZEN, str(frozen)) if self.teacher else None,
            pool=[spec.replace(FROZEN, str(frozen)) for spec in self.pool],
        )


@dataclass
class ExpertIterationConfig(RunConfig):
    #: run directory or .zip to start from (e.g. a PPO run); null: a fresh network
    init: str | None = setting(None, OPTIONAL_TEXT)
    policy_kwargs: dict[str, Any] = setting(
        {"net_arch": [256, 256], "activation_fn": "relu"}, table(POLICY_SETTINGS, "policy_kwargs")
    )
    generations: int = setting(50, integer(1))  #: the budget
    #: the curriculum: a list of :class:`Stage` mappings, played in order (``stage_at``)
    stages: list[Stage] = setting([], sections(Stage, "stage"))
    #: stop after the generation that passes this wall time
    max_minutes: float | None = setting(None, optional(number(above=0)))
    games_per_generation: int = setting(40, integer(1))
    search_depth: int = setting(2, integer(1))  #: plies the learner searches while playing (every root move exact)
    random_opening_plies: int = setting(2, integer(0))
    #: the learner samples its moves (softmax of search values) until this ply
    explore_plies: int = setting(8, integer(0))
    explore_temperature: float = setting(0.1, number(above=0))
    #: also learn from the fixed bots' positions in the learner's games (their move, their seat's outcome)
    imitate_pool: bool = setting(True, BOOL)
    max_snapshots: int = setting(5, integer(1))  #: earlier generations kept for snapshot games
    policy_temperature: float = setting(0.1, number(above=0))  #: softness of the policy target over search values
    #: weight of the search value (vs the game's outcome) in the value target
    value_mix: float = setting(0.5, number(0, 1))
    buffer_size: int = setting(100_000, integer(1))
    batch_size: int = setting(256, integer(1))
    sample_reuse: float = setting(4.0, number(above=0))  #: gradient samples per new position each generation
    learning_rate: float = setting(1e-3, number(above=0))
    weight_decay: float = setting(1e-4, number(minimum=0))
    value_loss_weight: float = setting(1.0, number(minimum=0))
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
    #: share of moves after the opening that either seat of a training game plays
    #: uniformly at random, so that positions after mistakes are seen too
    random_move_rate: float = setting(0.0, number(0, 1))
    symmetries: bool = setting(True, BOOL)  #: turn each minibatch by a random symmetry of the game
    checkpoint_every: int = setting(1, integer(1))  #: generations between checkpoints
    evaluation: EvaluationConfig = section(EvaluationConfig, games=200, random_opening_plies=2)
    learning_curve: LearningCurveConfig = section(LearningCurveConfig)

    def stage_at(self, generation: int) -> tuple[int, Stage]:
        """The stage that plays ``generation`` (counted from 0), and the first generation it plays."""
        first = 0
        for stage in self.stages:
            if stage.generations is None or generation < first + stage.generations:
                return first, stage
            first += stage.generations
        raise ValueError(f"generation {generation} is past the stages, which end at {first}")

    def agent_specs(self) -> dict[str, list[str]]:
        specs: dict[str, list[str]] = {}
        for index, stage in enumerate(self.stages):
            specs[f"stages[{index}].pool"] = stage.pool
            specs[f"stages[{index}].teacher"] = [stage.teacher] if stage.teacher else []
        return {**specs, **super().agent_specs()}

    def check(self, game: Game) -> None:
        if game.num_players != 2:
            raise ConfigError(
                f"expert iteration plays two-player games; env_kwargs set {self.env} up for {game.num_players}"
            )
        if not self.stages:
            raise ConfigError(
                "stages is missing: expert iteration's curriculum is a list of stages, each with its generations, "
                f"teacher and pool ({STAGES_GUIDE})"
            )
        for index, stage in enumerate(self.stages):
            if stage.generations is None and index < len(self.stages) - 1:
                raise ConfigError(
                    f"stages[{index}].generations is missing: only the last stage may leave it out (it then runs "
                    "until the run ends)"
                )
            if stage.self_play_weight + stage.snapshot_weight > 1.0:
                raise ConfigError(
                    f"stages[{index}]: self_play_weight + snapshot_weight must be at most 1, "
                    f"got {stage.self_play_weight + stage.snapshot_weight}"
                )
            if stage.teacher and FROZEN in stage.teacher and parse_spec(stage.teacher)[0] != "ppo+search":
                raise ConfigError(
                    f"stages[{index}].teacher {stage.teacher!r}: the frozen network labels positions inside its "
                    f"search, ppo+search:depth=D,path={FROZEN}"
                )
        lengths = [stage.generations for stage in self.stages]
        if None not in lengths and sum(lengths) < self.generations:
            end, last = sum(lengths), self.generations - 1
            left = f"generation {end}" if end == last else f"generations {end} to {last}"
            raise ConfigError(
                f"the stages last {' + '.join(map(str, lengths))} = {end} generations, but generations is "
                f"{self.generations}: {left} would have no stage; lengthen the last stage, or leave out its "
                "generations to run it until the run ends"
            )

    @classmethod
    def refuse_retired(cls, raw: dict[str, Any]) -> None:
        found = [key for key in EARLIER_KEYS if key in raw]
        if not found:
            return
        named = ", ".join(f"`{key}`" for key in found)
        if "stages" in raw:
            how = f"write what {'it says' if len(found) == 1 else 'they say'} in this config's stages"
        else:
            stages = yaml.safe_dump(stages_from_earlier(raw), default_flow_style=True, sort_keys=False, width=10**6)
            how = f"this config's, as stages: `stages: {stages.strip()}`"
        raise ConfigError(
            f"{named} {'is' if len(found) == 1 else 'are'} no longer read: expert iteration's curriculum is a "
            f"`stages:` list, each stage with its generations, teacher, pool and game weights ({STAGES_GUIDE}); "
            f"{how}"
        )

    @classmethod
    def from_earlier(cls, raw: dict[str, Any]) -> dict[str, Any]:
        if "stages" in raw or not any(key in raw for key in EARLIER_KEYS):
            return raw
        kept = {key: value for key, value in raw.items() if key not in EARLIER_KEYS}
        return {**kept, "stages": stages_from_earlier(raw)}


#: the keys that spelled the curriculum before ``stages``, with the defaults they had
EARLIER_KEYS: dict[str, Any] = {
    "pool": ["search:depth=1", "search:depth=2"],
    "teacher": None,
    "bot_game_weight": 0.0,
    "self_play_weight": 0.4,
    "snapshot_weight": 0.2,
    "self_teacher_from": None,
    "self_teacher_depth": 2,
    "self_teacher_every": None,
    "self_teacher_pool": None,
}


def stages_from_earlier(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``stages`` that the earlier keys in the config mapping ``raw`` meant, over its ``generations``.

    ``teacher``, ``pool`` and the game weights made the first stage. From generation
    ``self_teacher_from`` the network of that generation, frozen, labelled inside its search
    (``ppo+search:depth=<self_teacher_depth>``) and ``self_teacher_pool`` (or ``pool``) played, its
    ``{teacher}`` the frozen network; with ``self_teacher_every``, a newer network was frozen that
    many generations later, again and again. So the first stage lasts ``self_teacher_from``
    generations, each later one ``self_teacher_every``, and the last one, begun before
    ``generations``, runs until the run ends: the same teacher, pool and freezes in every generation
    of the run. Where every game is between two bots (``bot_game_weight: 1``) the shares of the
    learner's games are left out: nothing reads them.
    """
    old = {key: raw.get(key, default) for key, default in EARLIER_KEYS.items()}
    total = raw.get("generations", ExpertIterationConfig.generations)
    weights = {"bot_game_weight": old["bot_game_weight"]}
    if old["bot_game_weight"] < 1.0:
        weights |= {"self_play_weight": old["self_play_weight"], "snapshot_weight": old["snapshot_weight"]}

    def frozen(pool: list[str]) -> list[str]:
        return [spec.replace("{teacher}", FROZEN) for spec in pool]

    first = {"teacher": old["teacher"], "pool": frozen(old["pool"]), **weights}
    start, every = old["self_teacher_from"], old["self_teacher_every"]
    if start is None or start >= total:
        return [first]

    def later(**length: int) -> dict[str, Any]:
        teacher = f"ppo+search:depth={old['self_teacher_depth']},path={FROZEN}"
        return {**length, "teacher": teacher, "pool": frozen(old["self_teacher_pool"] or old["pool"]), **weights}

    starts = list(range(start, total, every)) if every else [start]
    between = [later(generations=end - begin) for begin, end in zip(starts, starts[1:])]
    return [{"generations": start, **first}, *between, later()]
