"""Training configs: one YAML file per env in ``configs/``, the single source of hyperparameters.

A config is read into :class:`TrainConfig` and every value is checked before anything
runs: unknown keys, wrong types and impossible values are a :class:`ConfigError` naming
the file, the key, what it must be and what it was, so a typo never trains a silently
different agent (or fails after minutes of training).

The checks are data: each dataclass field carries a :class:`Check` (``setting(default,
check)``), ``ppo`` and ``policy_kwargs`` have a table of the keys they accept, and a few
rules that tie keys together (agent specs and env options need the game) follow in
:func:`_check_together`. Adding a section is one dataclass of ``setting`` fields and one
``section(...)`` field in :class:`TrainConfig`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envs.registry import ENVS, get_entry, make_game
from training.framework.paths import config_path

#: ``policy_kwargs.activation_fn`` names accepted in configs.
ACTIVATIONS = ("tanh", "relu", "elu", "gelu")


class ConfigError(ValueError):
    """A config (file, command-line value or option) that cannot be used as written."""


# -- what a value must be ------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """What a config value must be: ``requirement`` in words, ``accepts`` as a test.

    ``convert`` turns an accepted value into its stored form (an int learning rate into
    a float, a list into a list of checked items).
    """

    requirement: str
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value

    def __call__(self, value: Any, where: str) -> Any:
        if not self.accepts(value):
            raise ConfigError(f"{where} must be {self.requirement}, got {value!r}")
        return self.convert(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def integer(minimum: int) -> Check:
    return Check(f"an integer >= {minimum}" if minimum != 1 else "an integer > 0", lambda v: _is_int(v) and v >= minimum)


def number(minimum: float | None = None, maximum: float | None = None, above: float | None = None) -> Check:
    """A float (ints accepted): ``>= minimum``, ``<= maximum``, ``> above``."""
    bounds = [f">= {minimum}" if minimum is not None else "", f"> {above}" if above is not None else "", f"<= {maximum}" if maximum is not None else ""]
    if minimum is not None and maximum is not None:
        bounds = [f"in [{minimum}, {maximum}]"]

    def accepts(value: Any) -> bool:
        return (
            _is_number(value)
            and (minimum is None or value >= minimum)
            and (maximum is None or value <= maximum)
            and (above is None or value > above)
        )

    return Check(" ".join(["a number", *filter(None, bounds)]), accepts, float)


def optional(check: Check) -> Check:
    return Check(f"{check.requirement} or null", lambda v: v is None or check.accepts(v), lambda v: None if v is None else check.convert(v))


def one_of(*choices: str) -> Check:
    return Check(f"one of {list(choices)}", lambda v: isinstance(v, str) and v in choices)


def list_of(item: Check, non_empty: bool = True) -> Check:
    return Check(
        f"a {'non-empty ' if non_empty else ''}list of {item.requirement}s",
        lambda v: isinstance(v, list) and (bool(v) or not non_empty) and all(item.accepts(x) for x in v),
        lambda v: [item.convert(x) for x in v],
    )


BOOL = Check("true or false", lambda v: isinstance(v, bool))
TEXT = Check("a string", lambda v: isinstance(v, str) and v != "")
OPTIONAL_TEXT = Check("a string or null", lambda v: v is None or (isinstance(v, str) and v != ""))
MAPPING = Check("a mapping of keys to values", lambda v: isinstance(v, dict), dict)
AGENT_SPECS = list_of(Check("agent spec (a string)", lambda v: isinstance(v, str) and v != ""))
LAYERS = list_of(integer(1))
NET_ARCH = Check(
    "a list of layer sizes (integers > 0) or a mapping {pi: [...], vf: [...]}",
    lambda v: LAYERS.accepts(v) or (isinstance(v, dict) and set(v) == {"pi", "vf"} and all(LAYERS.accepts(x) for x in v.values())),
)


@dataclass(frozen=True)
class Table(Check):
    """A mapping whose keys are those of ``settings``, each value checked by its own :class:`Check`."""

    settings: dict[str, Check] = field(default_factory=dict)
    name: str = ""

    def __call__(self, value: Any, where: str) -> dict[str, Any]:
        value = MAPPING(value, where)
        unknown = sorted(set(value) - set(self.settings))
        if unknown:
            raise ConfigError(f"unknown {self.name} key(s) {unknown}; known keys: {sorted(self.settings)}")
        return {key: self.settings[key](item, f"{where}.{key}") for key, item in value.items()}


def table(settings: dict[str, Check], name: str) -> Table:
    return Table(f"a mapping of {name} settings", lambda v: isinstance(v, dict), settings=settings, name=name)


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

#: Policy network settings a config may set (``activation_fn`` by name, see ``training/pipelines/ppo/vector.py``).
POLICY_SETTINGS: dict[str, Check] = {
    "net_arch": NET_ARCH,
    "activation_fn": one_of(*ACTIVATIONS),
    "ortho_init": BOOL,
    "share_features_extractor": BOOL,
}


def setting(default: Any, check: Check):
    """A config field: its default and its :class:`Check`."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"check": check})
    return field(default=default, metadata={"check": check})


def section(cls: type):
    """A nested config section (a dataclass of ``setting`` fields), all defaults when absent."""
    return field(default_factory=cls, metadata={"section": cls})


# -- the sections ----------------------------------------------------------------------------


@dataclass
class EvaluationConfig:
    """The closing evaluation (see ``training/evaluate.py``)."""

    games: int = setting(1000, integer(1))  #: games per agent (solitaire) or per pairing (several players)
    opponents: list[str] = setting(["random"], AGENT_SPECS)  #: agent specs to compare with
    #: uniformly random plies opening each game of several players, so that deterministic
    #: agents in a game without chance still play different, independent games
    random_opening_plies: int = setting(0, integer(0))
    #: further tables to evaluate at, each a mapping of game options overriding
    #: ``env_kwargs`` (e.g. ``{num_players: 4}``: the candidate against three copies of
    #: each opponent); the observation must keep its shape across them
    tables: list[dict[str, Any]] = setting([], list_of(Check("non-empty mapping of game options", lambda v: isinstance(v, dict) and bool(v), dict), non_empty=False))


@dataclass
class SelfPlayConfig:
    """Opponent pool for multi-player training (see :mod:`training.pipelines.ppo.self_play`)."""

    enabled: bool = setting(False, BOOL)
    pool: list[str] = setting(["random"], AGENT_SPECS)  #: fixed members (agent specs)
    snapshot_every: int = setting(50_000, integer(1))  #: learner steps between frozen snapshots added to the pool
    max_snapshots: int = setting(5, integer(1))  #: the oldest snapshot leaves the pool beyond this many
    snapshot_weight: float = setting(0.5, number(0, 1))  #: probability that an episode's opponent is a snapshot (when any exist)


@dataclass
class WarmStartConfig:
    """Start from a bot's play before PPO (see :mod:`training.pipelines.ppo.warm_start`)."""

    enabled: bool = setting(False, BOOL)
    teacher: str = setting("heuristic", TEXT)  #: agent spec of the teacher (a bot, not a solver)
    episodes: int = setting(2000, integer(1))  #: teacher episodes recorded as demonstrations
    epochs: int = setting(10, integer(1))  #: behaviour-cloning passes over the demonstrations
    batch_size: int = setting(512, integer(1))
    learning_rate: float = setting(0.001, number(above=0))  #: of behaviour cloning (PPO keeps its own)
    value_coef: float = setting(0.5, number(minimum=0))  #: weight of the critic's loss on the teacher's returns
    guide_coef: float = setting(1.0, number(minimum=0))  #: initial weight of the cross-entropy towards the teacher during PPO
    guide_decay_steps: int = setting(1_000_000, integer(1))  #: PPO steps over which that weight falls linearly to 0
    #: above 0: the teacher values every move (a search) and is imitated through the softmax
    #: of its values at this temperature; 0: through the move it plays
    temperature: float = setting(0.0, number(minimum=0))
    label_with: str | None = setting(None, OPTIONAL_TEXT)  #: with temperature > 0: the search whose move values label the decisions (null: the teacher)
    workers: int = setting(1, integer(1))  #: processes labelling the decisions (temperature > 0)


@dataclass
class LearningCurveConfig:
    """Periodic evaluation during training (see :mod:`training.framework.learning_curve`)."""

    every: int = setting(0, integer(0))  #: timesteps between evaluations; 0 turns the curve off
    games: int = setting(200, integer(1))  #: games per evaluation, on the same seeds every time
    reference: str = setting("heuristic", TEXT)  #: the agent spec measured against (solitaire: same dice; else the opponent)
    seed: int = setting(20_000, integer(0))  #: first seed of the fixed evaluation games


@dataclass
class TrainConfig:
    env: str = setting(None, TEXT)  #: a name of ``envs/registry.py`` (checked first, with the list of known envs)
    env_kwargs: dict[str, Any] = setting({}, MAPPING)  #: the game's options, checked against the game
    seed: int = setting(0, integer(0))
    total_timesteps: int = setting(100_000, integer(1))
    n_envs: int = setting(8, integer(1))
    #: "game": one process, the games' own envs stepped without wrappers (training/pipelines/ppo/game_vec_env.py);
    #: "dummy": SB3's DummyVecEnv over gymnasium.make and Monitor; "subproc": one process per env
    vec_env: str = setting("game", one_of("game", "dummy", "subproc"))
    torch_threads: int = setting(1, integer(1))  #: intra-op threads; one is fastest for small MLPs and on a shared machine
    normalize_reward: bool = setting(True, BOOL)  #: running reward scaling (VecNormalize); observations are already in [0, 1]
    #: the learner's reward: "score" (points as they are gained), "margin" (the change of its
    #: lead over the best other player) or "win" (+1/-1/0 at the end);
    #: empty: the env's default for the player count (evaluation always counts wins)
    reward_mode: str = setting("", one_of("", "score", "margin", "win"))
    opponents: list[str] = setting(["random"], AGENT_SPECS)  #: other seats, when self-play is off
    policy_kwargs: dict[str, Any] = setting({}, table(POLICY_SETTINGS, "policy_kwargs"))
    ppo: dict[str, Any] = setting({}, table(PPO_SETTINGS, "ppo"))
    checkpoint_every: int = setting(100_000, integer(1))  #: timesteps between checkpoints (see training/pipelines/ppo/checkpoint.py)
    evaluation: EvaluationConfig = section(EvaluationConfig)
    self_play: SelfPlayConfig = section(SelfPlayConfig)
    warm_start: WarmStartConfig = section(WarmStartConfig)
    learning_curve: LearningCurveConfig = section(LearningCurveConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# -- reading and checking --------------------------------------------------------------------


def default_config_path(env: str) -> Path:
    get_entry(env)  # unknown env: clear error listing the known ones
    return config_path(env)


def yaml_error_line(error: yaml.YAMLError) -> str:
    """A YAML error on one line: the problem and where it is."""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    mark = getattr(error, "problem_mark", None)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else problem


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a config file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"config file {path} is not valid YAML: {yaml_error_line(error)}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"config file {path}: expected a mapping of keys, got {type(raw).__name__}")
    return config_from_dict(raw, source=str(path))


def config_from_dict(raw: dict[str, Any], source: str = "config") -> TrainConfig:
    """Validate a plain dict (as read from YAML) into a :class:`TrainConfig`."""
    try:
        if "env" not in raw:
            raise ConfigError("missing required key 'env'")
        if not isinstance(raw["env"], str) or raw["env"] not in ENVS:
            raise ConfigError(f"unknown env {raw['env']!r}; known envs: {', '.join(sorted(ENVS))}")
        config = _section(TrainConfig, raw, "")
        _check_together(config)
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}") from None
    return config


def parse_sections(cls: type, raw: dict[str, Any]):
    """Validate a plain dict into the config dataclass ``cls`` (``setting`` and ``section`` fields)."""
    return _section(cls, raw, "")


def _section(cls: type, raw: Any, prefix: str):
    name = prefix.rstrip(".") or "config"
    raw = MAPPING(raw if raw is not None else {}, name)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        where = f"{name} " if prefix else ""
        raise ConfigError(f"unknown {where}key(s) {unknown}; known keys: {sorted(fields)}")
    values = {}
    for key, value in raw.items():
        metadata = fields[key].metadata
        if "section" in metadata:
            values[key] = _section(metadata["section"], value, f"{prefix}{key}.")
        else:
            values[key] = metadata["check"](value, f"{prefix}{key}")
    return cls(**values)


def _check_together(config: TrainConfig) -> None:
    """The rules that tie keys together: the game's options, players, agents and batch sizes."""
    game = make_checked_game(config.env, config.env_kwargs)
    others = game.num_players - 1
    if config.self_play.enabled:
        if others == 0:
            raise ConfigError(f"self_play needs a game with several players; env_kwargs set {config.env} up for one")
        if config.vec_env == "subproc":
            raise ConfigError("self_play shares its opponent pool in one process: use vec_env: game or dummy")
    if others and not config.self_play.enabled and len(config.opponents) not in (1, others):
        raise ConfigError(f"opponents needs 1 or {others} agent specs for {game.num_players} players, got {config.opponents}")
    agent_specs = {
        "opponents": config.opponents,
        "self_play.pool": config.self_play.pool,
        "evaluation.opponents": config.evaluation.opponents,
        "warm_start.teacher": [config.warm_start.teacher] if config.warm_start.enabled else [],
        "warm_start.label_with": [config.warm_start.label_with] if config.warm_start.enabled and config.warm_start.label_with else [],
        "learning_curve.reference": [config.learning_curve.reference] if config.learning_curve.every else [],
    }
    for key, specs in agent_specs.items():
        for spec in specs:
            check_agent_spec(config.env, spec, key)
    for options in config.evaluation.tables:
        other = make_checked_game(config.env, {**config.env_kwargs, **options})
        if other.observation_shape != game.observation_shape:
            raise ConfigError(
                f"evaluation.tables: {options} changes the observation shape {game.observation_shape} to "
                f"{other.observation_shape}; a trained agent could not play there"
            )
    _check_rollout(config)


def make_checked_game(env: str, env_kwargs: dict[str, Any]):
    """The game of ``env`` with options ``env_kwargs``, or an error naming the option that does not fit."""
    known = make_game(env).options()
    unknown = sorted(set(env_kwargs) - set(known))
    if unknown:
        raise ConfigError(f"env_kwargs: {env} has no option(s) {unknown}; its options: {sorted(known)}")
    try:
        return make_game(env, **env_kwargs)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"env_kwargs {env_kwargs}: {error}") from None


def _check_rollout(config: TrainConfig) -> None:
    """Every PPO mini-batch full: ``batch_size`` divides a rollout of ``n_steps x n_envs`` steps."""
    import inspect

    from sb3_contrib import MaskablePPO

    defaults = inspect.signature(MaskablePPO.__init__).parameters
    n_steps = config.ppo.get("n_steps", defaults["n_steps"].default)
    batch_size = config.ppo.get("batch_size", defaults["batch_size"].default)
    rollout = n_steps * config.n_envs
    if rollout % batch_size:
        raise ConfigError(
            f"ppo.batch_size ({batch_size}) must divide the rollout of ppo.n_steps x n_envs = {n_steps} x {config.n_envs} = "
            f"{rollout} steps, so that every mini-batch is full"
        )


def check_agent_spec(env: str, spec: str, key: str) -> None:
    """An agent spec that names a known agent with options it accepts (nothing is built)."""
    from agents.registry import check_spec

    try:
        check_spec(env, spec)
    except ValueError as error:
        raise ConfigError(f"{key}: {error}") from None


def build_agent(env: str, spec: str, game, seed: int | None = None):
    """``agents.registry.make_agent``, its refusals (e.g. a bot that cannot play this game) as ConfigError."""
    from agents.registry import make_agent
    from agents.solution_cache import CacheError

    try:
        return make_agent(env, spec, game, seed=seed)
    except CacheError:
        raise
    except (TypeError, ValueError) as error:
        raise ConfigError(f"agent {spec!r}: {error}") from None
