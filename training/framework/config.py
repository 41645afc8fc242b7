"""What every pipeline's config shares, and how a config is read and checked.

Each training pipeline declares its own schema (``training/pipelines/<name>/config.py``),
a subclass of :class:`RunConfig` built from :mod:`training.framework.schema`'s fields;
this module adds what they have in common: the game (``env``, ``env_kwargs``, checked
against the game's own options), the ``seed``, the sections of the closing evaluation
and the learning curve, and the rule that every agent spec a config names must be an
agent the game has. :func:`config_from_dict` and :func:`load_config` check a config
whole before anything runs; a schema adds rules of its own in :meth:`RunConfig.check`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import check_spec, make_agent
from agents.solution_cache import CacheError
from envs.core import Game
from envs.registry import ENVS, make_game
from training.evaluation.harness import DEFAULT_BATCH
from training.framework.schema import (
    AGENT_SPECS,
    BOOL,
    MAPPING,
    TEXT,
    Check,
    ConfigError,
    integer,
    list_of,
    parse_section,
    read_mapping,
    setting,
)
from training.pipelines import PIPELINES

__all__ = [
    "ConfigError",
    "EvaluationConfig",
    "LearningCurveConfig",
    "RunConfig",
    "build_agent",
    "config_from_dict",
    "load_config",
]


#: further tables of a game: each a mapping of game options overriding ``env_kwargs``
TABLES = list_of(
    Check("non-empty mapping of game options", lambda v: isinstance(v, dict) and bool(v), dict), non_empty=False
)


@dataclass
class EvaluationConfig:
    """The closing evaluation (see ``training/evaluate.py``)."""

    #: whether training ends with it (``--no-eval`` writes false, so that every resume of the run keeps the choice)
    enabled: bool = setting(True, BOOL)

    games: int = setting(1000, integer(1))  #: games per agent (solitaire) or per pairing (several players)
    opponents: list[str] = setting(["random"], AGENT_SPECS)  #: agent specs to compare with
    #: uniformly random plies opening each game of several players, so that deterministic
    #: agents in a game without chance still play different, independent games
    random_opening_plies: int = setting(0, integer(0))
    #: games of a pairing (or an agent) played at once as rows of the batched twin; 0 plays
    #: them one at a time. The games are the same either way; a pairing with an agent that
    #: cannot act in batch plays one at a time.
    batch: int = setting(DEFAULT_BATCH, integer(0))
    #: further tables to evaluate at, each a mapping of game options overriding
    #: ``env_kwargs`` (e.g. ``{num_players: 4}``: the candidate against three copies of
    #: each opponent); the observation must keep its shape across them
    tables: list[dict[str, Any]] = setting([], TABLES)


@dataclass
class LearningCurveConfig:
    """Periodic evaluation during training (see :mod:`training.framework.curve`)."""

    #: units of the budget (steps, games, ...) between evaluations; 0 turns the curve off
    every: int = setting(0, integer(0))
    games: int = setting(200, integer(1))  #: games per evaluation, on the same seeds every time
    #: the agent spec measured against (solitaire: same dice; else the opponent)
    reference: str = setting("heuristic", TEXT)
    seed: int = setting(20_000, integer(0))  #: first seed of the fixed evaluation games


@dataclass
class RunConfig:
    """The keys every pipeline's config starts with. A schema subclasses it, adds its own
    fields and ``evaluation`` / ``learning_curve`` sections, and may override :meth:`check`."""

    env: str = setting(None, TEXT)  #: a name of ``envs/registry.py`` (checked first, with the list of known envs)
    #: the pipeline the config is written for (:data:`training.pipelines.PIPELINES`); null: the
    #: command's own. ``training/train.py`` runs the one named here, so that an env's default
    #: config can choose its pipeline.
    pipeline: str | None = setting(
        None, Check(f"null or one of {sorted(PIPELINES)}", lambda v: v is None or v in PIPELINES)
    )
    env_kwargs: dict[str, Any] = setting({}, MAPPING)  #: the game's options, checked against the game
    seed: int = setting(0, integer(0))
    #: torch's intra-op threads; one is fastest for small MLPs and on a shared machine
    torch_threads: int = setting(1, integer(1))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def agent_specs(self) -> dict[str, list[str]]:
        """Every agent spec the config names, by key, to check against the game."""
        specs = {}
        if hasattr(self, "evaluation"):
            specs["evaluation.opponents"] = self.evaluation.opponents
        if getattr(self, "learning_curve", None) is not None and self.learning_curve.every:
            specs["learning_curve.reference"] = [self.learning_curve.reference]
        return specs

    def check(self, game: Game) -> None:
        """The schema's own rules that tie keys together (``game``: the configured game)."""

    @classmethod
    def refuse_retired(cls, raw: dict[str, Any]) -> None:
        """Raise a ConfigError for a key that an earlier version read and this schema no longer does,
        saying how to write it now (any other unknown key gets the generic refusal)."""

    @classmethod
    def from_earlier(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """A run folder's config mapping in this schema's keys where an earlier version wrote it with
        retired ones: ``--resume`` reads a run's ``config.yaml`` through it (and the run rewrites the
        file), where a config file given to start a run is refused instead (:meth:`refuse_retired`)."""
        return raw


def config_from_dict(schema: type[RunConfig], raw: dict[str, Any], source: str = "config") -> RunConfig:
    """Validate a plain dict (as read from YAML) into ``schema``; errors name ``source`` and the key."""
    try:
        if "env" not in raw:
            raise ConfigError("missing required key 'env'")
        if not isinstance(raw["env"], str) or raw["env"] not in ENVS:
            raise ConfigError(f"unknown env {raw['env']!r}; known envs: {', '.join(sorted(ENVS))}")
        schema.refuse_retired(raw)
        config = parse_section(schema, raw)
        _check_together(config)
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}") from None
    return config


def load_config(
    schema: type[RunConfig],
    path: str | Path,
    overrides: dict[str, Any] | None = None,
    source: str | None = None,
    saved_run: bool = False,
) -> RunConfig:
    """Read and validate a config file, with ``overrides`` applied first (dotted keys reach into sections:
    ``{"warm_start.episodes": 100}``); errors name ``source``, by default the file. ``saved_run``: the file is
    a run folder's ``config.yaml``, which an earlier version may have written (:meth:`RunConfig.from_earlier`,
    after the overrides: a longer budget is part of what the earlier keys meant)."""
    raw = read_mapping(path)
    for key, value in (overrides or {}).items():
        *sections, name = key.split(".")
        target = raw
        for section in sections:
            target = target.setdefault(section, {}) if isinstance(target.get(section, {}), dict) else target
        target[name] = value
    if saved_run:
        raw = schema.from_earlier(raw)
    return config_from_dict(schema, raw, source=source or str(path))


def _check_together(config: RunConfig) -> None:
    game = make_checked_game(config.env, config.env_kwargs)
    for key, specs in config.agent_specs().items():
        for spec in specs:
            check_agent_spec(config.env, spec, key)
    evaluation = getattr(config, "evaluation", None)
    tables = [game]
    for options in evaluation.tables if evaluation is not None else []:
        tables.append(make_table(config, game, options, "evaluation.tables"))
    config.check(game)
    curve = getattr(config, "learning_curve", None)
    counts = [("evaluation.games", evaluation.games, tables)] if evaluation is not None else []
    counts += [("learning_curve.games", curve.games, [game])] if curve is not None and curve.every else []
    for key, games, played in counts:
        for table in played:
            if table.num_players > 1 and games % table.num_players:
                raise ConfigError(
                    f"{key} ({games}) must be a multiple of the {table.num_players} players: every opening is "
                    "played once from every seat"
                )


def make_table(config: RunConfig, game: Game, options: dict[str, Any], key: str) -> Game:
    """The game at the table ``options`` set up (overriding ``config.env_kwargs``), or an error
    naming ``key`` where one agent could not play both it and ``game``: the observation's shape
    and the number of actions must stay."""
    try:
        other = make_checked_game(config.env, {**config.env_kwargs, **options})
    except ConfigError as error:
        raise ConfigError(f"{key}: {options}: {error}") from None
    for fact in ("observation_shape", "num_actions"):
        if getattr(other, fact) != getattr(game, fact):
            raise ConfigError(
                f"{key}: {options} changes the {fact.replace('_', ' ')} {getattr(game, fact)} to "
                f"{getattr(other, fact)}; a trained agent could not play there"
            )
    return other


def make_checked_game(env: str, env_kwargs: dict[str, Any]) -> Game:
    """The game of ``env`` with options ``env_kwargs``, or an error naming the option that does not fit."""
    known = make_game(env).options()
    unknown = sorted(set(env_kwargs) - set(known))
    if unknown:
        raise ConfigError(f"env_kwargs: {env} has no option(s) {unknown}; its options: {sorted(known)}")
    try:
        return make_game(env, **env_kwargs)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"env_kwargs {env_kwargs}: {error}") from None


def check_agent_spec(env: str, spec: str, key: str) -> None:
    """An agent spec that names a known agent with options it accepts (nothing is built)."""
    try:
        check_spec(env, spec)
    except ValueError as error:
        raise ConfigError(f"{key}: {error}") from None


def build_agent(env: str, spec: str, game: Game, seed: int | None = None):
    """``agents.registry.make_agent``, its refusals (e.g. a bot that cannot play this game) as ConfigError."""
    try:
        return make_agent(env, spec, game, seed=seed)
    except CacheError:
        raise
    except (TypeError, ValueError) as error:
        raise ConfigError(f"agent {spec!r}: {error}") from None
