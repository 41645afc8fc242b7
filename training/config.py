"""Training configs: one YAML file per env in ``configs/``, the single source of hyperparameters.

A config is read into :class:`TrainConfig`, which rejects unknown keys, wrong types and
impossible values with an error naming the file and the key, so a typo never trains a
silently different agent.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envs.registry import get_entry

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "configs"
CHECKPOINT_DIR = ROOT / "checkpoints"

#: ``policy_kwargs.activation_fn`` names accepted in configs.
ACTIVATIONS = ("tanh", "relu", "elu", "gelu")


class ConfigError(ValueError):
    """A config file that cannot be used as written."""


@dataclass
class EvaluationConfig:
    games: int = 1000  #: games per agent (solitaire) or per pairing (several players)
    opponents: list[str] = field(default_factory=lambda: ["random"])  #: agent specs to compare with
    #: uniformly random plies opening each game of several players, so that deterministic
    #: agents in a game without chance still play different, independent games
    random_opening_plies: int = 0


@dataclass
class SelfPlayConfig:
    """Opponent pool for multi-player training (see :mod:`training.self_play`)."""

    enabled: bool = False
    pool: list[str] = field(default_factory=lambda: ["random"])  #: fixed members (agent specs)
    snapshot_every: int = 50_000  #: learner steps between frozen snapshots added to the pool
    max_snapshots: int = 5  #: the oldest snapshot leaves the pool beyond this many
    snapshot_weight: float = 0.5  #: probability that an episode's opponent is a snapshot (when any exist)


@dataclass
class WarmStartConfig:
    """Start from a bot's play before PPO (see :mod:`training.warm_start`)."""

    enabled: bool = False
    teacher: str = "heuristic"  #: agent spec of the teacher (a bot, not a solver)
    episodes: int = 2000  #: teacher episodes recorded as demonstrations
    epochs: int = 10  #: behaviour-cloning passes over the demonstrations
    batch_size: int = 512
    learning_rate: float = 0.001  #: of behaviour cloning (PPO keeps its own)
    value_coef: float = 0.5  #: weight of the critic's loss on the teacher's returns
    guide_coef: float = 1.0  #: initial weight of the cross-entropy towards the teacher during PPO
    guide_decay_steps: int = 1_000_000  #: PPO steps over which that weight falls linearly to 0


@dataclass
class LearningCurveConfig:
    """Periodic evaluation during training (see :mod:`training.learning_curve`)."""

    every: int = 0  #: timesteps between evaluations; 0 turns the curve off
    games: int = 200  #: games per evaluation, on the same seeds every time
    reference: str = "heuristic"  #: the agent spec measured against (solitaire: same dice; else the opponent)
    seed: int = 20_000  #: first seed of the fixed evaluation games


@dataclass
class TrainConfig:
    env: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    total_timesteps: int = 100_000
    n_envs: int = 8
    vec_env: str = "dummy"  #: "dummy" (one process) or "subproc"
    torch_threads: int = 1  #: intra-op threads; one is fastest for small MLPs and on a shared machine
    normalize_reward: bool = True  #: running reward scaling (VecNormalize); observations are already in [0, 1]
    opponents: list[str] = field(default_factory=lambda: ["random"])  #: other seats, when self-play is off
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    ppo: dict[str, Any] = field(default_factory=dict)
    checkpoint_every: int = 100_000  #: timesteps between saves of the run's model
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    self_play: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    learning_curve: LearningCurveConfig = field(default_factory=LearningCurveConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def default_config_path(env: str) -> Path:
    get_entry(env)  # unknown env: clear error listing the known ones
    return CONFIG_DIR / f"{env}.yaml"


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a config file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"config file {path} is not valid YAML: {error}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"config file {path}: expected a mapping of keys, got {type(raw).__name__}")
    return config_from_dict(raw, source=str(path))


def config_from_dict(raw: dict[str, Any], source: str = "config") -> TrainConfig:
    """Validate a plain dict (as read from YAML) into a :class:`TrainConfig`."""
    if "env" not in raw:
        raise ConfigError(f"{source}: missing required key 'env'")
    values = _fields(TrainConfig, raw, source)
    values["evaluation"] = EvaluationConfig(**_fields(EvaluationConfig, raw.get("evaluation") or {}, f"{source}: evaluation"))
    values["self_play"] = SelfPlayConfig(**_fields(SelfPlayConfig, raw.get("self_play") or {}, f"{source}: self_play"))
    values["warm_start"] = WarmStartConfig(**_fields(WarmStartConfig, raw.get("warm_start") or {}, f"{source}: warm_start"))
    values["learning_curve"] = LearningCurveConfig(
        **_fields(LearningCurveConfig, raw.get("learning_curve") or {}, f"{source}: learning_curve")
    )
    config = TrainConfig(**values)
    _check(config, source)
    return config


def _fields(cls, raw: Any, source: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping, got {raw!r}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {unknown}; known keys: {sorted(known)}")
    values = {}
    for name, value in raw.items():
        if name in ("evaluation", "self_play", "warm_start", "learning_curve"):
            continue
        expected = _expected_type(known[name])
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if expected is not None and not (isinstance(value, expected) and not (expected is int and isinstance(value, bool))):
            raise ConfigError(f"{source}: key '{name}' must be {expected.__name__}, got {value!r}")
        values[name] = value
    return values


def _expected_type(f: dataclasses.Field):
    return {"str": str, "int": int, "float": float, "bool": bool}.get(f.type) or (
        dict if f.type.startswith("dict") else list if f.type.startswith("list") else None
    )


def _check(config: TrainConfig, source: str) -> None:
    try:
        get_entry(config.env)
    except KeyError as error:
        raise ConfigError(f"{source}: {error.args[0]}") from None
    for name in ("total_timesteps", "n_envs", "checkpoint_every", "torch_threads"):
        if getattr(config, name) <= 0:
            raise ConfigError(f"{source}: '{name}' must be positive, got {getattr(config, name)}")
    if config.vec_env not in ("dummy", "subproc"):
        raise ConfigError(f"{source}: 'vec_env' must be 'dummy' or 'subproc', got {config.vec_env!r}")
    if config.evaluation.games <= 0:
        raise ConfigError(f"{source}: 'evaluation.games' must be positive")
    if config.evaluation.random_opening_plies < 0:
        raise ConfigError(f"{source}: 'evaluation.random_opening_plies' must be 0 or more")
    from sb3_contrib import MaskablePPO

    allowed = set(inspect.signature(MaskablePPO.__init__).parameters) - {
        "self", "policy", "env", "policy_kwargs", "seed", "tensorboard_log", "verbose", "device", "_init_setup_model",
    }
    unknown = sorted(set(config.ppo) - allowed)
    if unknown:
        raise ConfigError(f"{source}: unknown ppo key(s) {unknown}; MaskablePPO accepts: {sorted(allowed)}")
    activation = config.policy_kwargs.get("activation_fn")
    if activation is not None and activation not in ACTIVATIONS:
        raise ConfigError(f"{source}: policy_kwargs.activation_fn must be one of {ACTIVATIONS}, got {activation!r}")
    for name in ("episodes", "epochs", "batch_size", "guide_decay_steps"):
        if getattr(config.warm_start, name) <= 0:
            raise ConfigError(f"{source}: 'warm_start.{name}' must be positive, got {getattr(config.warm_start, name)}")
    for name in ("learning_rate", "value_coef", "guide_coef"):
        if not getattr(config.warm_start, name) >= 0:
            raise ConfigError(f"{source}: 'warm_start.{name}' must be 0 or more, got {getattr(config.warm_start, name)}")
    if config.learning_curve.every < 0 or config.learning_curve.games <= 0:
        raise ConfigError(f"{source}: 'learning_curve.every' must be 0 or more and 'learning_curve.games' positive")
    if not 0.0 <= config.self_play.snapshot_weight <= 1.0:
        raise ConfigError(f"{source}: 'self_play.snapshot_weight' must be in [0, 1]")
